"""The core: reading a journal's pages, running their code and the verified record; no MkDocs, Material or pytest."""
