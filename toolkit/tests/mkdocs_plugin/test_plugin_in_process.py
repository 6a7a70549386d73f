"""The journal plugin builds small sites one after another in this process, from a dict config:
nothing of one build (cited keys, formula numbering, mistakes) reaches the next.
"""

from __future__ import annotations

import logging

import pytest
import yaml
from mkdocs.commands.build import build
from mkdocs.config import load_config

from fixture_journal import minimal_extensions

BIB = """@book{raschka2024,
  author = {Raschka, Sebastian},
  title = {Build a Large Language Model (From Scratch)},
  publisher = {Manning},
  year = {2024},
}

@misc{vaswani2017,
  author = {Vaswani, Ashish},
  title = {Attention Is All You Need},
  year = {2017},
}
"""


@pytest.fixture
def build_site(tmp_path, caplog):
    """``build_site(name, pages)``: a small journal (the plugin, MathML, citations) built in this
    process; returns its pages' HTML and the build's log lines."""

    def make(name: str, pages: dict[str, str], *, plugins: tuple = (), journal=lambda plugin: None) -> tuple[dict[str, str], list[str]]:
        """``plugins``: after the journal's; ``journal(plugin)``: before the build (make serve's hooks)."""
        root = tmp_path / name
        (root / "docs").mkdir(parents=True)
        for page, text in pages.items():
            (root / "docs" / page).parent.mkdir(parents=True, exist_ok=True)
            (root / "docs" / page).write_text(text, encoding="utf-8")
        (root / "refs.bib").write_text(BIB, encoding="utf-8")
        conf = {
            "site_name": name, "theme": {"name": "material", "font": False},
            "plugins": ["journal", *plugins],
            "markdown_extensions": ["journal_math", {"journal_citations": {"bibliography": "refs.bib"}},
                                    *minimal_extensions()],
        }
        (root / "mkdocs.yml").write_text(yaml.safe_dump(conf), encoding="utf-8")
        config = load_config(str(root / "mkdocs.yml"), site_dir=str(root / "site"))
        caplog.clear()
        config.plugins.on_startup(command="build", dirty=False)
        journal(config.plugins["journal"])
        try:
            with caplog.at_level(logging.INFO):
                build(config)
        finally:
            config.plugins.on_shutdown()
        html = {p.relative_to(root / "site").as_posix(): p.read_text(encoding="utf-8") for p in (root / "site").rglob("*.html")}
        return html, [r.getMessage() for r in caplog.records]

    return make


def test_two_builds_in_one_process_share_nothing(build_site):
    cites = "# A\n\nAs [@raschka2024] shows:\n\n$$x^2$$\n\n$$y^2$$\n"
    first, first_log = build_site("first", {"index.md": cites})
    assert "raschka2024" in first["index.html"] and 'aria-label="Formula 2"' in first["index.html"]
    assert [m for m in first_log if "cited by no page" in m] == ["refs.bib:8: entry 'vaswani2017' is cited by no page of this build"]

    second, second_log = build_site("second", {"index.md": "# B\n\n$$z$$\n"})
    assert 'aria-label="Formula 1"' in second["index.html"] and 'aria-label="Formula 2"' not in second["index.html"]
    uncited = sorted(m for m in second_log if "cited by no page" in m)
    assert uncited == ["refs.bib:1: entry 'raschka2024' is cited by no page of this build",
                       "refs.bib:8: entry 'vaswani2017' is cited by no page of this build"], second_log

    again, _ = build_site("again", {"index.md": cites})
    assert again["index.html"] == first["index.html"].replace("first", "again")


PROSE = "# A\n\n```python\nr = 2 ** 0.5\n```\n\nIt divides by [1.41]{= r :.2f}, or {= r :.3f} exactly; `{= r}` is the syntax.\n"


def test_numbers_in_the_text_read_as_plain_numbers_and_a_filled_one_is_the_codes(build_site, caplog):
    html, _ = build_site("prose", {"index.md": PROSE})
    assert "It divides by 1.41, or 1.414 exactly; <code>{= r}</code> is the syntax." in html["index.html"]
    with pytest.raises(Exception, match="BuildError"):  # a filled number with no value stops the build at its line
        build_site("unknown", {"index.md": PROSE.replace("{= r :.3f}", "{= s :.3f}")})
    assert [r.getMessage().split("\n")[0] for r in caplog.records if r.levelname == "ERROR"] == [
        "docs/index.md:7: NameError: name 's' is not defined"]
    caplog.clear()
    with pytest.raises(Exception, match="BuildError"):  # a page the tests cannot read: its filled number has no value either
        build_site("unread", {"index.md": PROSE.replace("{= r :.3f}", "{= r +}")})
    assert [r.getMessage().split("\n")[0] for r in caplog.records if r.levelname == "ERROR"] == [
        "docs/index.md:7: the number's field {= r +} is not a Python f-string field: f-string: invalid syntax"]


def test_a_written_number_the_code_contradicts_stops_the_build_at_its_line(build_site, caplog):
    """make build never publishes a number its code does not give: the same line and words as make check."""
    with pytest.raises(Exception, match="BuildError"):
        build_site("wrong", {"index.md": PROSE.replace("[1.41]{=", "[1.42]{=").replace(", or {= r :.3f} exactly", "")})
    assert [r.getMessage().split("\n")[0].split(";")[0] for r in caplog.records if r.levelname == "ERROR"] == [
        "docs/index.md:7: the number written is 1.42 but `r` gives 1.41 (`:.2f`)"]


NOTEBOOK = "# %% [markdown]\n# # N\n\n# %%\nr = 2 ** 0.5\n\n# %% [markdown]\n# It divides by [1.41]{= r :.2f}.\n"
JUPYTER = {"mkdocs-jupyter": {"include": ["notebooks/*.py"], "execute": False}}


def test_a_number_written_in_a_notebook_the_code_contradicts_stops_the_build_or_is_its_served_pages_mistake(build_site, caplog,
                                                                                                           monkeypatch):
    """No passed page test vouches for the notebook: the build runs its cells as its page test does (make serve: the page's panel)."""
    from mkdocs_jupyter import nbconvert2, plugin

    for module, name in ((nbconvert2, "HTMLExporter"), (nbconvert2, "SubCell"), (plugin, "_compute_cache_key")):
        monkeypatch.setattr(module, name, getattr(module, name))  # the journal's notebook renderers (compat/jupyter.py) undone after
    html, _ = build_site("nb", {"index.md": "# A\n", "notebooks/n.py": NOTEBOOK}, plugins=(JUPYTER,))
    assert "It divides by 1.41." in html["notebooks/n/index.html"]
    wrong = {"index.md": "# A\n", "notebooks/n.py": NOTEBOOK.replace("[1.41]", "[1.42]")}
    with pytest.raises(Exception, match="BuildError"):
        build_site("nb-wrong", wrong, plugins=(JUPYTER,))
    assert [r.getMessage().split("\n")[0].split(";")[0] for r in caplog.records if r.levelname == "ERROR"] == [
        "docs/notebooks/n.py:8: the number written is 1.42 but `r` gives 1.41 (`:.2f`)"]
    served = []

    def serve_hooks(plugin):  # MkDocs keeps the plugin's instance for the next build in this process: undone after the test
        monkeypatch.setattr(plugin, "page_mistake", lambda path, mistake: served.append((path.name, str(mistake).split(";")[0])))

    build_site("nb-served", wrong, plugins=(JUPYTER,), journal=serve_hooks)
    assert served == [("n.py", "docs/notebooks/n.py:8: the number written is 1.42 but `r` gives 1.41 (`:.2f`)")]
