"""The journal's checks of its built site (strict build, links, feeds, downloads, browser)
come from journal-tools' pytest plugin, which collects mkdocs.yml (pyproject.toml's
testpaths); the page checks of docs/ come from its journal_pagetest plugin. Nothing to
add here: a fixture the journal's own tests share would go in this file."""
