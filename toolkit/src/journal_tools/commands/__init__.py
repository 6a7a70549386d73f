"""The commands behind make targets: `make build` and `make new`."""
