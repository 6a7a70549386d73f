"""The MkDocs plugin and what it does at build time (figures, notebooks, feeds, the badge)."""
