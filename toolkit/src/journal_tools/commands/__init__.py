"""The commands behind make targets (`make build`, `make new`) and CI's merge of the verified records."""
