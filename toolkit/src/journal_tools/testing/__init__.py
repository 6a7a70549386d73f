"""The checks every journal needs, as the toolkit's pytest plugin (``plugin``, entry point
``journal_checks``): every check of the built site (``checks``, collected from the journal's
mkdocs.yml, with their ``fixtures``), read through one ``journal`` object, on one strict build
of a frozen copy per session (``site``). pytest runs from the journal's top folder (its
Makefile does), which is the project these checks copy and build."""
