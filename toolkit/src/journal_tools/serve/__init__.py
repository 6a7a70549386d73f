"""The author's loop: `make serve`'s own MkDocs plugin (`journal-serve`), its port check and its warm code worker."""
