"""This journal's own tests: its snippets' (test_snippets/) and what only this journal says
(test_this_journal.py). Every check of the built site comes from the toolkit's pytest plugin,
collected from mkdocs.yml (pyproject.toml's testpaths; journal_tools/testing/checks/)."""
