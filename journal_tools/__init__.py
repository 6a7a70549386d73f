"""Build-time code of the LLM learning journal, as one installable package.

Entry points (pyproject.toml): the MkDocs plugin ``journal`` (``plugin``), the
Markdown extension ``journal_math`` (``markdown_math``), the pytest plugin
``journal_pagetest`` (``pagetest``) and the ``journal-new`` script
(``new_entry``). One module per concern; the README lists them.
"""
