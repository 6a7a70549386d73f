"""The one place that splits the test suite into its two parts (issue 17).

- The journal: the tests of the author's content. The page doc-tests of docs/
  (collected by journal_pagetest), the snippet tests, and every test that
  looks at the session build of docs/ (fixtures `docs_build` / `built` in
  tests/conftest.py): the strict build, links, feeds, the browser checks,
  and the two tests that rebuild that site (engines, reproducibility). They
  always run: their result depends on docs/, which changes with every entry.
- The toolkit: everything else under tests/, on the fixture journal
  (tests/fixtures/journal) or inline pages. Its result is reused while its
  inputs are unchanged (tests/toolkit_reuse.py).

A toolkit test that takes `built` or `docs_build` would read docs/ while its
result is reused across edits of docs/: collection stops with an error naming
it (tests/toolkit_reuse.py), so it has to be listed here first.
"""

from __future__ import annotations

# Paths relative to the project root; a folder ends with "/".
JOURNAL = (
    "docs/",
    "tests/journal/",
    "tests/test_snippets/",
    "tests/test_site_build.py",
    "tests/test_links.py",
    "tests/test_feeds.py",
    "tests/test_engines.py",
    "tests/test_reproducible.py",
    "tests/browser/test_site.py",
    "tests/browser/test_home.py",
    "tests/browser/test_phones.py",
    "tests/browser/test_accessibility.py",
)

# The fixtures that hand a test the session build of docs/.
JOURNAL_FIXTURES = ("docs_build", "built")

# What the toolkit's result depends on, besides the installed packages and the
# Python version (tests/toolkit_reuse.py digests both). tests/ counts without
# the journal's files above. The rest are files of this project that toolkit
# tests read today: the Makefile and the workflows (lint flags, font set-up,
# CI shards), mkdocs.yml (a notebook-conversion guard in tests/unit/test_compat.py),
# and the math font installed at set-up (font tests skip without it). The
# toolkit's stylesheets are package data in journal_tools/build/assets/.
TOOLKIT_INPUTS = (
    "journal_tools/",
    "tests/",
    "requirements.txt",
    "pyproject.toml",
    "Makefile",
    ".github/",
    "mkdocs.yml",
    ".cache/fonts/",
)


def is_journal(rel: str) -> bool:
    """Is the file or test id ``rel`` (relative to the project root, with /) part of the journal?"""
    path = rel.split("::", 1)[0]
    return any(path.startswith(p) if p.endswith("/") else path == p for p in JOURNAL)
