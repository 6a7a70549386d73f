"""The toolkit behind the LLM learning journal (build, page tests, serve), as one installable package.

Entry points (pyproject.toml): the MkDocs plugins ``journal``
(``mkdocs_plugin.plugin``) and ``journal-serve`` (``serve.plugin``), the Markdown
extensions ``journal_math`` and ``journal_citations`` (``core``), the pytest plugin
``journal_pagetest`` (``pagetest``) and the ``journal-new`` script
(``commands.new_entry``). One module per concern; DEVELOPING.md maps them.
"""
