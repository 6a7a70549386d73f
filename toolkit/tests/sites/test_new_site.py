"""``journal-new-site DIR``: the made journal equals this repository's top level but for DIFFERENCES
(each row with its reason; a row naming no difference fails too), builds strictly, and its page
tests pass; a non-empty folder is refused before anything is written.
"""

from __future__ import annotations

import copy
import datetime as dt
import importlib.metadata
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
import yaml

from journal_tools.commands import new_site
from journal_tools.commands.new_site import Options, SiteError, create_site
from journal_tools.testing.doc_claims import make_targets
from journal_tools.testing.site import ENV, mkdocs_build

REPO = Path(__file__).resolve().parents[3]
DATE = dt.date(2026, 1, 5)
TITLE = "A test journal: attention"
AUTHOR = "Ada Example"

# (file, what differs, why). ``what``: for the Makefile "target X" (only one side has it) or
# "rule X" (its prerequisites or recipe differ); for YAML and TOML files a dotted key path
# (a list item by index, or by the plugin name it configures); for requirements.txt a
# package; for .ci/run and .gitignore a line.
DIFFERENCES = [
    ("Makefile", "target test-toolkit", "the toolkit's own suite: it runs toolkit/tests, which only this repository has"),
    ("Makefile", "target lint-toolkit", "ruff and import-linter on toolkit/, with toolkit/pyproject.toml's contract"),
    ("Makefile", "target bench", "runs toolkit/benchmarks/run.py"),
    ("Makefile", "target fuzz", "runs toolkit/tests/core/test_fuzz_pages.py"),
    ("Makefile", "rule $(STAMP)", "journal-tools comes from requirements.txt, not `pip install -e toolkit`; "
                                  "so toolkit/pyproject.toml is no prerequisite either"),
    ("Makefile", "rule serve", "no `--watch toolkit/src/journal_tools`: there is no toolkit source to watch"),
    ("mkdocs.yml", "site_name", "content: the journal's own name (--title)"),
    ("mkdocs.yml", "site_description", "content"),
    ("mkdocs.yml", "site_author", "content: the author (--author)"),
    ("mkdocs.yml", "site_url", "names: SITE_URL, else --site-url or the local address of the journal's folder name"),
    ("mkdocs.yml", "repo_url", "names: REPO_URL, else --repo-url or a placeholder"),
    ("mkdocs.yml", "repo_name", "names: from repo_url"),
    ("mkdocs.yml", "copyright", "content"),
    ("mkdocs.yml", "plugins.blog.categories_allowed", "content: the journal's own categories"),
    ("mkdocs.yml", "plugins.journal.unindexed_boxes", "content: the titles of this journal's series boxes"),
    ("mkdocs.yml", "nav", "content: this journal's nav names its notebook page; a made journal has none yet"),
    (".github/workflows/pages.yml", "jobs.toolkit", "the toolkit's suite (make test-toolkit), which needs toolkit/"),
    (".github/workflows/pages.yml", "jobs.deploy.needs", "waits for test-and-build only: there is no toolkit job"),
    (".github/workflows/pages.yml", "jobs.test-and-build.steps.1.with.cache-dependency-path",
     "the pip cache keys on requirements.txt alone: there is no toolkit/pyproject.toml"),
    ("requirements.txt", "properdocs", "only toolkit/tests/sites/test_engines.py builds with it"),
    ("requirements.txt", "hypothesis", "only the toolkit's fuzz tests (make fuzz) use it"),
    ("requirements.txt", "import-linter", "only make lint-toolkit runs it"),
    ("requirements.txt", "pytest-codeblocks", "the toolkit's test oracle (toolkit/tests); a journal turns its collector off"),
    ("requirements.txt", "journal-tools", "this repository installs toolkit/ editable; a made journal pins the release "
                                          "it was made with, by name"),
    (".ci/run", "make test-toolkit", "the toolkit's suite, which needs toolkit/"),
    (".gitignore", "*.egg-info/", "what `pip install toolkit/` leaves in the toolkit's source tree"),
    (".gitignore", "/build/", "the same"),
    (".gitignore", "toolkit/build/", "the same"),
]


class EnvLoader(yaml.SafeLoader):
    """MkDocs' ``!ENV [NAME, default]`` read as its list."""


EnvLoader.add_constructor("!ENV", lambda loader, node: loader.construct_sequence(node))


def differences(file: str) -> dict[str, str]:
    return {what: why for name, what, why in DIFFERENCES if name == file}


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("made") / "journal"
    create_site(target, Options(title=TITLE, author=AUTHOR), date=DATE)
    return target


# --- the comparison with this repository ---------------------------------------------

_RULE = re.compile(r"^(\$\([A-Z_]+\)|[a-z][\w-]*)\s*:(?!=)[ \t]*(.*)$")


def rules(makefile: Path) -> dict[str, tuple[str, list[str]]]:
    """Each rule's (prerequisites, recipe lines); variables and comments are no rules."""
    found: dict[str, tuple[str, list[str]]] = {}
    name = None
    for line in makefile.read_text(encoding="utf-8").split("\n"):
        if m := _RULE.match(line):
            name = m[1]
            found[name] = (m[2], [])
        elif line.startswith("\t") and name is not None:
            found[name][1].append(line)
        elif not line.startswith("#"):
            name = None
    return found


def test_the_same_make_targets_apart_from_the_toolkit_s(made):
    ours, theirs = make_targets(REPO / "Makefile"), make_targets(made / "Makefile")
    named = {what.removeprefix("target ") for what in differences("Makefile") if what.startswith("target ")}
    assert ours ^ theirs == named, "a target only one Makefile has, and no row of DIFFERENCES names it (or a stale row)"


def test_the_same_make_recipes_apart_from_the_named_ones(made):
    ours, theirs = rules(REPO / "Makefile"), rules(made / "Makefile")
    named = {what.removeprefix("rule ") for what in differences("Makefile") if what.startswith("rule ")}
    differ = {name for name in ours.keys() & theirs.keys() if ours[name] != theirs[name]}
    assert differ == named, "a rule whose recipe differs, and no row of DIFFERENCES names it (or a stale row)"


_ABSENT = object()


def _slot(node, key: str):
    """(container, index) of ``key`` under ``node``: a dict key, a list index, or in a list of
    plugins the options of the plugin named ``key``; None when there is none."""
    if isinstance(node, dict):
        return (node, key) if key in node else None
    if isinstance(node, list):
        if key.isdigit():
            return (node, int(key)) if int(key) < len(node) else None
        for item in node:
            if isinstance(item, dict) and key in item:
                return item, key
            if item == key:  # a plugin listed with no options
                return node, node.index(item)
    return None


def lookup(tree, dotted: str):
    node = tree
    for key in dotted.split("."):
        slot = _slot(node, key)
        if slot is None:
            return _ABSENT
        node = slot[0][slot[1]]
    return node


def blank(tree, dotted: str) -> None:
    *parents, last = dotted.split(".")
    node = lookup(tree, ".".join(parents)) if parents else tree
    slot = None if node is _ABSENT else _slot(node, last)
    if slot is not None:
        del slot[0][slot[1]]


def compare_trees(file: str, ours, theirs) -> None:
    rows = differences(file)
    stale = [what for what in rows if lookup(ours, what) == lookup(theirs, what)]
    assert not stale, f"{file}: rows of DIFFERENCES that name no difference: {stale}"
    ours, theirs = copy.deepcopy(ours), copy.deepcopy(theirs)
    for what in rows:
        blank(ours, what)
        blank(theirs, what)
    assert theirs == ours, f"{file}: settings differ that no row of DIFFERENCES names: {paths_differing(ours, theirs)}"


def paths_differing(ours, theirs, prefix: str = "") -> list[str]:
    """The dotted paths at which two parsed files differ (list items by index)."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        keys = list(ours) + [k for k in theirs if k not in ours]
        return [p for k in keys for p in paths_differing(ours.get(k, _ABSENT), theirs.get(k, _ABSENT), f"{prefix}{k}.")]
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        return [p for i, (a, b) in enumerate(zip(ours, theirs)) for p in paths_differing(a, b, f"{prefix}{i}.")]
    return [] if ours == theirs else [prefix.rstrip(".")]


def test_the_same_mkdocs_settings_apart_from_content_and_names(made):
    load = lambda root: yaml.load((root / "mkdocs.yml").read_text(encoding="utf-8"), Loader=EnvLoader)  # noqa: E731
    compare_trees("mkdocs.yml", load(REPO), load(made))


def test_the_same_workflow_apart_from_the_toolkit_job(made):
    path = ".github/workflows/pages.yml"
    load = lambda root: yaml.safe_load((root / path).read_text(encoding="utf-8"))  # noqa: E731
    compare_trees(path, load(REPO), load(made))


def test_the_same_pytest_and_ruff_settings(made):
    load = lambda root: tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))  # noqa: E731
    compare_trees("pyproject.toml", load(REPO), load(made))
    assert lookup(load(made), "tool.pytest.ini_options.testpaths") == ["tests", "docs", "mkdocs.yml"]


def pins(path: Path) -> dict[str, str]:
    """name -> version of each ``name==version`` line (names as pip compares them)."""
    found = {}
    for line in path.read_text(encoding="utf-8").split("\n"):
        if m := re.match(r"^([A-Za-z0-9][\w.-]*)==(\S+)", line):
            found[re.sub(r"[-_.]+", "-", m[1]).lower()] = m[2]
    return found


def test_the_same_pins_for_the_packages_both_need(made):
    ours, theirs = pins(REPO / "requirements.txt"), pins(made / "requirements.txt")
    named = set(differences("requirements.txt"))
    assert {n: (ours[n], theirs[n]) for n in ours.keys() & theirs.keys() if ours[n] != theirs[n]} == {}
    assert (ours.keys() ^ theirs.keys()) - {"journal-tools"} == named - {"journal-tools"}, \
        "a package only one side pins, and no row of DIFFERENCES names it (or a stale row)"


@pytest.mark.parametrize("path", [".ci/run", ".gitignore"])
def test_the_same_lines_apart_from_the_named_ones(made, path):
    def lines(root):
        return {line for line in (root / path).read_text(encoding="utf-8").split("\n") if line and not line.startswith("#")}
    assert lines(REPO) ^ lines(made) == set(differences(path))


# --- what the made journal holds ----------------------------------------------------


def test_writes_every_file_a_journal_needs_with_no_token_left(made):
    # What the command wrote: not what the module's other tests' builds and runs leave (.cache/, site/, ...).
    made_later = {".cache", "site", ".pytest_cache", ".venv"}
    files = {p.relative_to(made).as_posix() for p in made.rglob("*")
             if p.is_file() and not made_later & set(p.relative_to(made).parts) and "__pycache__" not in p.parts}
    example = f"docs/blog/posts/{DATE.isoformat()}-{new_site.EXAMPLE_SLUG}.md"
    for name in ("mkdocs.yml", "Makefile", "pyproject.toml", "requirements.txt", "README.md", ".gitignore", ".ci/run",
                 ".github/workflows/pages.yml", "docs/index.md", "docs/tags.md", "docs/references.bib",
                 "docs/blog/.authors.yml", example, "snippets/scaled_attention.py",
                 "tests/test_snippets/test_scaled_attention.py", "tests/conftest.py"):
        assert name in files
    assert (made / ".ci/run").stat().st_mode & 0o111, ".ci/run is not executable"
    assert len((made / "tests/conftest.py").read_text(encoding="utf-8").split("\n")) <= 15
    for name in files:
        left = new_site.TOKEN.findall((made / name).read_text(encoding="utf-8"))
        assert not left, f"{name} still holds template tokens {left}"
    drafts = [p for p in (made / "docs/blog/posts").glob("*.md") if "\ndraft: true\n" in p.read_text(encoding="utf-8")]
    assert len(drafts) == 1, "one draft entry, from make new's scaffold"
    text = (made / example).read_text(encoding="utf-8")
    for part in ("<!--pytest-codeblocks:expected-output-->", "<!-- journal:expected-math -->", "[@vaswani2017]",
                 '--8<-- "scaled_attention.py:', "$$"):
        assert part in text, f"the example entry has no {part}"
    authors = yaml.safe_load((made / "docs/blog/.authors.yml").read_text(encoding="utf-8"))["authors"]
    assert authors[new_site.AUTHOR_ID]["name"] == AUTHOR
    assert yaml.load((made / "mkdocs.yml").read_text(encoding="utf-8"), Loader=EnvLoader)["site_name"] == TITLE


def test_the_addresses_come_from_the_environment_else_the_local_or_given_ones(tmp_path):
    create_site(tmp_path / "a", Options(), date=DATE)
    create_site(tmp_path / "b", Options(site_url="https://ada.github.io/notes", repo_url="https://github.com/ada/notes"), date=DATE)
    a, b = ((tmp_path / n / "mkdocs.yml").read_text(encoding="utf-8") for n in "ab")
    assert 'site_url: !ENV [SITE_URL, "http://127.0.0.1:8000/a/"]' in a
    assert 'repo_url: !ENV [REPO_URL, "https://github.com/example/a"]' in a
    assert 'site_url: !ENV [SITE_URL, "https://ada.github.io/notes/"]' in b
    assert yaml.load(b, Loader=EnvLoader)["repo_name"] == "notes"


def test_the_author_defaults_to_git_s_user_name_else_author(tmp_path, monkeypatch):
    monkeypatch.setattr(new_site, "git_user_name", lambda: None)
    create_site(tmp_path / "a", date=DATE)
    monkeypatch.setattr(new_site, "git_user_name", lambda: "Grace Git")
    create_site(tmp_path / "b", date=DATE)
    names = [yaml.safe_load((tmp_path / n / "docs/blog/.authors.yml").read_text(encoding="utf-8"))["authors"]["author"]["name"]
             for n in "ab"]
    assert names == ["Author", "Grace Git"]


# What names one machine: an absolute path of its own (home, temporary or work folders), a file URL,
# a --find-links line. This suite's toolkit is an editable checkout, the case that once wrote its path.
_MACHINE = re.compile(r"(?<![\w.])/(work|root|home|tmp|opt|Users)/|file://|--find-links|^-e /", re.M)


def test_the_made_journal_names_no_machine_and_pins_the_toolkit_by_name(made):
    later = {".cache", "site", ".pytest_cache", ".venv", "__pycache__"}  # what the module's other tests leave
    found = [f"{p.relative_to(made)}:{n}: {line}" for p in sorted(made.rglob("*")) if p.is_file() and not later & set(p.parts)
             for n, line in enumerate(p.read_text(encoding="utf-8").split("\n"), 1)
             if _MACHINE.search(line) or str(made) in line or str(REPO) in line]
    assert found == []
    version = importlib.metadata.version(new_site.DISTRIBUTION)
    assert f"\njournal-tools=={version}\n" in (made / "requirements.txt").read_text(encoding="utf-8")


def test_an_unknown_template_token_fails_at_its_line():
    with pytest.raises(SiteError, match=r"^mkdocs\.yml:2: unknown template token \{\{ NOPE \}\}"):
        new_site.render("a: 1\nb: {{ NOPE }}\n", {"TITLE": "x"}, "mkdocs.yml")


# --- refusing a folder that is not empty ------------------------------------------------


@pytest.mark.parametrize("held", [["notes.txt"], [".git/HEAD"], ["a", "b", "c", "d", "e", "f", "g"]])
def test_a_folder_that_is_not_empty_is_refused_before_anything_is_written(tmp_path, held):
    target = tmp_path / "journal"
    for name in held:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        (target / name).write_text("mine\n", encoding="utf-8")
    before = sorted(p.relative_to(target).as_posix() for p in target.rglob("*"))
    with pytest.raises(SiteError) as caught:
        create_site(target, date=DATE)
    message = str(caught.value)
    assert message.startswith(f"{target} is not empty (it holds ") and "nothing was written" in message
    assert held[0].split("/")[0] in message
    if len(held) > new_site.SHOWN_ENTRIES:
        assert f"and {len(held) - new_site.SHOWN_ENTRIES} more" in message
    assert sorted(p.relative_to(target).as_posix() for p in target.rglob("*")) == before


def test_the_command_line_refuses_with_a_message_and_makes_an_absent_folder(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "README.md").write_text("mine\n", encoding="utf-8")
    run = lambda *args: subprocess.run([sys.executable, "-m", "journal_tools.commands.new_site", *args],  # noqa: E731
                                       capture_output=True, text=True, cwd=tmp_path)
    refused = run("full")
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == ("journal-new-site: error: full is not empty (it holds README.md); nothing was written: "
                              "give an empty or new folder\n")
    made = run("new/journal", "--author", "Ada")
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "new/journal/mkdocs.yml").is_file()
    assert "make serve" in made.stdout and "http://127.0.0.1:8000/journal/" in made.stdout


def test_an_empty_folder_is_used_and_a_file_is_refused(tmp_path):
    (tmp_path / "empty").mkdir()
    assert create_site(tmp_path / "empty", date=DATE)
    (tmp_path / "file").write_text("", encoding="utf-8")
    with pytest.raises(SiteError, match="is a file, not a folder"):
        create_site(tmp_path / "file", date=DATE)


# --- the made journal works -------------------------------------------------------------


@pytest.mark.slow
def test_the_made_journal_builds_strictly(made, tmp_path):
    proc = mkdocs_build(made, tmp_path / "site")
    assert proc.returncode == 0, proc.stdout
    entry = (tmp_path / "site" / "blog" / "2026" / "01" / "05" / new_site.EXAMPLE_SLUG / "index.html").read_text(encoding="utf-8")
    assert entry.count("<math") >= 3 and "Attention Is All You Need" in entry
    assert "softmax-by-hand" not in (tmp_path / "site" / "index.html").read_text(encoding="utf-8"), "the draft was published"


@pytest.mark.slow
def test_the_made_journal_s_page_and_snippet_tests_pass_and_check_the_matrix(made, tmp_path):
    def pytest_in(root: Path, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pytest", *args, "-n", "0", "-p", "no:randomly", "-q",
                               "-p", "no:cacheprovider"], cwd=root, env=ENV, capture_output=True, text=True)

    proc = pytest_in(made, "docs", "tests")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"executed 6 of 6 code blocks on \d+ pages", proc.stdout), proc.stdout
    assert re.search(r"\b13 passed\b", proc.stdout), proc.stdout  # verified.md, the page the badge links to, is one
    # The example's matrix is checked: one wrong number fails its page test at the matrix.
    copy_ = tmp_path / "copy"
    create_site(copy_, Options(title=TITLE, author=AUTHOR), date=DATE)
    entry = copy_ / f"docs/blog/posts/{DATE.isoformat()}-{new_site.EXAMPLE_SLUG}.md"
    text = entry.read_text(encoding="utf-8")
    entry.write_text(text.replace("0.1978 & 0.4011 & 0.4011", "0.1978 & 0.4111 & 0.4011"), encoding="utf-8")
    proc = pytest_in(copy_, str(entry.relative_to(copy_)))
    assert proc.returncode == 1 and "of the matrix is 0.4111 but the block at line" in proc.stdout, proc.stdout


README_ENTRY = """\
---
date: 2026-01-06
categories:
  - Notes
authors:
  - author
---

# Word lengths

What the corpus's words look like.

<!-- more -->

<!-- journal:figure corpus.histogram | Word lengths. -->
"""


def _readme_fence(readme: str, holding: str) -> str:
    """The README's Python fence (list items indent theirs) that holds ``holding``, dedented."""
    fences = [textwrap.dedent(m["code"]) for m in re.finditer(r"^(?P<indent> *)```python\n(?P<code>.*?)^(?P=indent)```$", readme,
                                                             re.M | re.S)]
    (fence,) = [f for f in fences if holding in f]
    return fence


@pytest.mark.slow
def test_the_readme_s_data_figure_and_notebook_recipes_pass_the_page_tests_and_lint(tmp_path):
    """What the made README tells an author to write, written as it says (the corpus module from its data file and figure recipes,
    its notebook import line): the page tests pass, the figure follows its rules, and the journal's lint passes."""
    root = tmp_path / "journal"
    create_site(root, Options(title=TITLE, author=AUTHOR), date=DATE)
    readme = (root / "README.md").read_text(encoding="utf-8")
    recipes = [_readme_fence(readme, "def read_corpus"), _readme_fence(readme, "def histogram")]
    lines = [line for code in recipes for line in code.split("\n") if not line.startswith("#")]
    imports = [line for line in lines if line.startswith(("import ", "from "))]
    # as an author joins them: the imports at the top, the standard library's first
    imports.sort(key=lambda line: (line.split()[1].split(".")[0] not in sys.stdlib_module_names, not line.startswith("import")))
    third = next(i for i, line in enumerate(imports) if line.split()[1].split(".")[0] not in sys.stdlib_module_names)
    body = "\n".join(line for line in lines if line not in imports).strip()
    module = '"""The corpus and its figure."""\n\n' + "\n".join([*imports[:third], "", *imports[third:]]) + "\n\n\n"
    (root / "snippets" / "corpus.py").write_text(module + re.sub(r"\n+def ", "\n\n\ndef ", body) + "\n", encoding="utf-8")
    (root / "snippets" / "tiny_corpus.txt").write_text("your journey starts with one step\n", encoding="utf-8")
    (root / "docs/blog/posts/2026-01-06-word-lengths.md").write_text(README_ENTRY, encoding="utf-8")
    (importing,) = re.findall(r"\(`(from scaled_attention import [^`]+)`\)", readme)
    (root / "docs" / "notebooks").mkdir()
    (root / "docs/notebooks/demo.py").write_text(f"# %% [markdown]\n# # Demo\n\n# %%\n{importing}\n\n"
                                                 "print(scaled_dot_product_attention.__name__)\n", encoding="utf-8")
    lint = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "snippets", "docs"], cwd=root, env=ENV,
                          capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    proc = subprocess.run([sys.executable, "-m", "pytest", "docs/blog/posts/2026-01-06-word-lengths.md", "docs/notebooks/demo.py",
                           "-n", "0", "-p", "no:randomly", "-q", "-p", "no:cacheprovider"], cwd=root, env=ENV, capture_output=True,
                          text=True)
    assert proc.returncode == 0 and re.search(r"\b4 passed\b", proc.stdout), proc.stdout + proc.stderr
