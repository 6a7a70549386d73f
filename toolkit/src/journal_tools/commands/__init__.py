"""The commands behind make targets: `make build` and `make new`; and `journal-new-site`, which makes a journal."""
