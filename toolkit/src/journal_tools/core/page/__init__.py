"""Reading a page: its text as MkDocs reads it, front matter with each field's line,
snippet includes expanded with a line map, fences, markers, limits."""
