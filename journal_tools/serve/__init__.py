"""The author's loop: what `make serve` adds, its port check and its warm code worker."""
