"""The one place that splits the test suite into its two parts, by folder.

- The journal (tests/journal/, and the page doc-tests of docs/ collected by
  journal_pagetest): the tests of the author's content. The snippet tests,
  the strict build of docs/ and every test that looks at that build (fixtures
  `docs_build` / `built`, defined in tests/journal/conftest.py): links, feeds,
  the browser checks. They always run: their result depends on docs/, which
  changes with every entry.
- The toolkit (tests/toolkit/): the tests of journal_tools/, on the fixture
  journal (tests/toolkit/fixtures/journal, with its own mkdocs.yml) or inline
  pages. Its result is reused while its inputs are unchanged
  (tests/toolkit_reuse.py). The helpers directly under tests/ serve both and
  count as toolkit inputs.

A toolkit test cannot ask for `built` or `docs_build` (they are defined under
tests/journal/ only); one that defines its own fixture of that name is refused
at collection (tests/toolkit_reuse.py), so a reused result never hides a
dependence on docs/.
"""

from __future__ import annotations

# Paths relative to the project root; a folder ends with "/".
JOURNAL = (
    "docs/",
    "tests/journal/",
)

# The fixtures that hand a test the session build of docs/.
JOURNAL_FIXTURES = ("docs_build", "built")

# What the toolkit's result depends on, besides the installed packages and the
# Python version (tests/toolkit_reuse.py digests both). tests/ counts without
# the journal's folder above. The rest are files of this project that toolkit
# tests read: the Makefile and the workflows (lint flags, font set-up, CI
# shards) and the math font installed at set-up. The toolkit's stylesheets are
# package data in journal_tools/mkdocs_plugin/assets/ (under journal_tools/ above).
TOOLKIT_INPUTS = (
    "journal_tools/",
    "tests/",
    "requirements.txt",
    "pyproject.toml",
    "Makefile",
    ".github/",
    ".cache/fonts/",
)

# Inside those, what a build writes for the site it builds: the subsets of the installed
# math font made for the characters the pages use (journal_tools/mkdocs_plugin/fonts.py SUBSET_DIR).
# A new entry with a new symbol makes a new subset; the toolkit's tests do not read it.
TOOLKIT_OUTPUTS = (".cache/fonts/subset/",)


def is_journal(rel: str) -> bool:
    """Is the file or test id ``rel`` (relative to the project root, with /) part of the journal?"""
    path = rel.split("::", 1)[0]
    return any(path.startswith(p) if p.endswith("/") else path == p for p in JOURNAL)
