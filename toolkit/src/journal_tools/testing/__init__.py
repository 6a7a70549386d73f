"""The checks every journal's tests need, shared by a journal's ``tests/`` and the
toolkit's own suite: one strict build of a frozen copy per session (``site``), the
built site's downloads and math (``downloads``, ``site_math``), Debian's Chromium
(``plugin``'s ``browser`` fixture), what a machine must provide (``prerequisites``),
and the per-page reuse of the browser and download checks (``page_check_reuse``).

A journal loads them with ``pytest_plugins = ["journal_tools.testing.plugin"]`` in its
``tests/conftest.py``; pytest runs from the journal's top folder (its Makefile does),
which is the project these helpers copy and build."""
