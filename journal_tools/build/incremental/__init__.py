"""Builds that do only what changed: each expensive step of a page is cached by its inputs.

A MkDocs build renders every page's Markdown, every post's excerpt once per view
that lists it, and every page's template, then parses every page's HTML twice
more (search index, reading time): at 1,000 entries a one-line save costs the
whole site. Each of those steps is a function of inputs that can be digested,
so each is kept in a content-addressed store (``store``) under a key made from
everything it reads (``fingerprint``), and reused while the key is unchanged
(``steps``). A key that cannot be made (a value of a type the fingerprint does
not know) means the step runs: a cache miss costs time, never correctness.

The same store serves ``make build`` (on disk, ``.cache/pages/``) and
``make serve`` (in memory first), so a clean build and an incremental one run
the same code and differ only in which steps they skip.
"""
