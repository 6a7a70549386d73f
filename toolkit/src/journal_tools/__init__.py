"""The toolkit behind the LLM learning journal (build, page tests, serve), as one installable package.

Entry points (pyproject.toml): the MkDocs plugins ``journal``
(``mkdocs_plugin.plugin``) and ``journal-serve`` (``serve.plugin``), the Markdown
extensions ``journal_math`` and ``journal_citations`` (``core.markup``), the pytest plugin
``journal_pagetest`` (``pagetest``) and the ``journal-new`` script
(``commands.new_entry``); the checks a journal's tests share are ``testing``. One module
per concern; toolkit/DEVELOPING.md maps them.
"""
