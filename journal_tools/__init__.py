"""Build-time code of the LLM learning journal.

Modules, one concern each:
- ``pagetest``: the pytest plugin that runs every code block of every page.
- ``snippet_map``: snippet includes expanded as in the build, with a line map.
- ``mathml``: LaTeX to MathML at build time (used by the MkDocs hook and the tests).
- ``hooks``: the MkDocs hooks file named in mkdocs.yml.
"""
