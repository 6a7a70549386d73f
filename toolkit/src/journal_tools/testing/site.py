"""A journal's site, built for its tests: a frozen copy of the project, one strict
build per test session, the first problem of a failed build and the page test that
reports it.

The project is the folder pytest runs in (``ROOT``): a journal's Makefile runs its
tests from its top folder, and the toolkit's suite from the same checkout (its own
tests build the fixture journal of ``toolkit/tests/fixtures/journal`` instead).
Exactly one test builds the author's site (``BUILD_TEST``, the strict build of
docs/); the tests that look at the built site depend on that build through the
journal's ``built`` fixture and skip, naming that test, when it failed.

The session build is one ``mkdocs build --strict`` of a frozen copy per test
session (one even under pytest-xdist: the first worker builds, the others wait on
a lock and reuse it). The copy is frozen so the site matches one state of the
sources while people edit the working tree, and it is a one-commit git
repository whose commit date is HEAD's: journal_tools.mkdocs_plugin.build_date
pins SOURCE_DATE_EPOCH from it exactly as in the real checkout.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from filelock import FileLock

from journal_tools.core.record.inputs import Record

# The journal under test: pytest runs from its top folder (the Makefile's targets do).
ROOT = Path.cwd().resolve()
# No inherited SOURCE_DATE_EPOCH: the build pins it itself (journal_tools/mkdocs_plugin/build_date.py).
# The journal_tools this process imports (the editable install's src/ folder, or site-packages).
TOOLKIT = Path(__file__).resolve().parent.parent
ENV = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"} | {"NO_MKDOCS_2_WARNING": "1"}
# What the build reads (and what `python -m pytest docs` in a copy needs), besides mkdocs.yml's
# docs_dir and snippet folders (:func:`project_dirs`); a journal may lack requirements.txt.
PROJECT_FILES = ("mkdocs.yml", "pyproject.toml", "requirements.txt")
FONTS = Path(".cache") / "fonts"
# Build caches keyed on content, not paths: mkdocs-jupyter's (notebook bytes, options, imported snippets, renderer: notebook_cache.install)
# and the figures' (snippet bytes). A seeded copy builds the same bytes as a fresh one (toolkit/tests/sites/test_reproducible.py compares);
# it only skips re-executing notebooks and re-drawing figures that did not change. A test build takes them from the checkout's .cache/ and
# gives back what it added (make build evicts what it did not use).
BUILD_CACHES = ("mkdocs-jupyter",)
# The record's rows a test build takes from the checkout's record and gives back: figures drawn, and what
# an entry's code read (for its downloads; without them every session build ran every entry's code). Not
# the pages' passed tests: a copy's badges stay those of a build with none, whatever the checkout ran.
RECORD_KINDS = ("figure", "chain")  # "chain": a page's chain that passed and what its code read, under its code (core/judge.py)
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".cache", ".pytest_cache")


def once_per_session(tmp_path_factory, name: str, make) -> tuple[Path, dict]:
    """(folder, record): ``make(folder)`` run once per session in a fresh shared folder, its JSON-able record beside it; under xdist the
    first worker makes it, the others wait on a lock."""
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / name
    with FileLock(str(shared) + ".lock"):
        record = shared / "record.json"
        if not record.exists():
            if shared.exists():
                shutil.rmtree(shared)
            shared.mkdir(parents=True)
            record.write_text(json.dumps(make(shared)), encoding="utf-8")
        return shared, json.loads(record.read_text(encoding="utf-8"))


def copy_project(dst: Path, src: Path = ROOT, *, caches: bool = True) -> Path:
    """Copy what the build reads from ``src`` into ``dst``; ``caches=False``: without stored caches (notebooks, figures made anew)."""
    dst.mkdir(parents=True, exist_ok=True)
    for name in PROJECT_FILES:
        if (src / name).is_file():
            shutil.copy2(src / name, dst / name)
    for name in project_dirs(src):
        shutil.copytree(src / name, dst / name, ignore=_IGNORE)
    return with_checkout_state(dst, src, caches=caches)


def project_dirs(src: Path) -> list[str]:
    """The folders of ``src`` its build reads: mkdocs.yml's docs_dir and pymdownx.snippets' base paths."""
    from journal_tools.compat import mkdocs_config

    settings = mkdocs_config.load(src / "mkdocs.yml")
    found = []
    for folder in (settings.docs_dir, *settings.snippet_dirs):
        rel = folder.relative_to(src.resolve()) if src.resolve() in folder.parents else None
        if rel is not None and folder.is_dir() and rel.parts[0] not in found:
            found.append(rel.parts[0])
    return found


def with_checkout_state(dst: Path, checkout: Path, *, caches: bool = True) -> Path:
    """Give ``dst`` the uncommitted math font (else every page requests a missing font) and, with ``caches``, the build caches."""
    if (checkout / FONTS).is_dir():
        shutil.copytree(checkout / FONTS, dst / FONTS)
    if caches:
        Record(ROOT).copy_to(Record(dst), RECORD_KINDS)
        _copy_entries(checkout / ".cache", dst / ".cache")
    return dst


def _copy_entries(src: Path, dst: Path) -> None:
    """The BUILD_CACHES entries of cache folder ``src`` that ``dst`` lacks, copied there (never half a file under an entry's name)."""
    for name in BUILD_CACHES:
        for entry in (src / name).glob("*") if (src / name).is_dir() else ():
            kept = dst / name / entry.name
            if entry.is_file() and not kept.exists():
                kept.parent.mkdir(parents=True, exist_ok=True)
                partial = kept.with_name(f".{entry.name}.{os.getpid()}")
                shutil.copy2(entry, partial)
                os.replace(partial, kept)


# The one test that builds the author's docs/ (the strict build of the real site).
BUILD_TEST = "mkdocs.yml::build::test_docs_build"


_BLOG = re.compile(r"(?m)^(?P<indent>[ \t]*)- blog(?P<colon>:?)[ \t]*(?:#.*)?$")


def with_drafts(project: Path) -> Path:
    """Make the copy's blog build its drafts (``draft: true``), so a draft gets every check of the built site before publishing; ``make
    build`` still leaves drafts out."""
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    m = _BLOG.search(text)
    if m is None:
        raise ValueError(f"{config}: no `- blog` plugin entry to build drafts with")
    option = f"\n{m['indent']}    draft: true"
    text = text[: m.start()] + f"{m['indent']}- blog:{option}" + text[m.end():]
    config.write_text(text, encoding="utf-8")
    return project


def _git(*args: str, cwd: Path, env: dict | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def freeze_as_git_repo(root: Path) -> None:
    """Make ``root`` a one-commit repository dated like ROOT's HEAD."""
    try:
        date = _git("log", "-1", "--format=%ct", cwd=ROOT).strip()
    except (OSError, subprocess.CalledProcessError):
        date = "1753574400"  # 2025-07-27, when ROOT is no git checkout
    env = dict(os.environ, GIT_AUTHOR_DATE=f"@{date} +0000", GIT_COMMITTER_DATE=f"@{date} +0000",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    _git("init", "-q", cwd=root)
    _git("add", "-A", cwd=root)
    _git("-c", "commit.gpgsign=false", "commit", "-q", "-m", "snapshot", cwd=root, env=env)


def tree_digest(folder: Path) -> str:
    """sha256 over every file of ``folder`` (names and bytes; caches left out)."""
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(f"{path.relative_to(folder).as_posix()}\0".encode() + path.read_bytes())
    return h.hexdigest()


def mkdocs_build(project: Path, site: Path, env: dict | None = None, verbose: bool = False) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` of ``project`` into ``site`` in a new process, output in ``stdout``; a passing build gives the checkout
    what it added to the build caches and the record's figures."""
    site.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", *(["-v"] if verbose else []),
         "--config-file", str(project / "mkdocs.yml"), "--site-dir", str(site)],
        cwd=project, env=env or ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    if proc.returncode == 0:
        Record(project).copy_to(Record(ROOT), RECORD_KINDS)
        _copy_entries(project / ".cache", ROOT / ".cache")
    return proc


def session_build(tmp_path_factory, name: str, copy) -> Built:
    """``copy(folder)`` built by ``mkdocs build --strict`` once per session, frozen as a one-commit repo; never fails itself."""
    def build(shared: Path) -> dict:
        project = copy(shared / "project")
        freeze_as_git_repo(project)
        proc = mkdocs_build(project, shared / "site")
        return {"returncode": proc.returncode, "output": proc.stdout}

    shared, result = once_per_session(tmp_path_factory, name, build)
    return Built(shared / "site", result["output"], shared / "project", result["returncode"])


_H1 = re.compile(r"<h1\b[^>]*>(?P<inner>.*?)</h1>", re.S)
_PERMALINK = re.compile(r'<a class="headerlink".*?</a>', re.S)


def heading_text(page_html: str) -> str:
    """The text a reader sees in the first <h1> of ``page_html`` (its permalink left out), or ''."""
    h1 = _H1.search(page_html)
    if h1 is None:
        return ""
    return html.unescape(re.sub(r"<[^>]+>", "", _PERMALINK.sub("", h1["inner"]))).strip()


class Built:
    """The session's build: ``site``, ``output`` (mkdocs' log), ``project`` (the frozen copy built), ``returncode``."""

    def __init__(self, site: Path, output: str, project: Path, returncode: int = 0):
        self.site = site
        self.output = output
        self.project = project
        self.returncode = returncode

    def html_pages(self) -> list[Path]:
        """Every HTML page of the built site, in path order."""
        return sorted(self.site.rglob("*.html"))


# --------------------------------------------------------------------------
# A failed build of docs/: the first problem, and the page test that reports it


def in_this_run(session, nodeid: str) -> bool:
    """Is ``nodeid`` collected in this session (under xdist every worker collects all)? Only then may a skip defer to it."""
    return any(item.nodeid == nodeid for item in session.items)

_LOG_LINE = re.compile(r"^(?:ERROR|WARNING)\s+-\s+(?P<message>.*)$")
_LOCATED = re.compile(r"^(?P<path>[^\s:]+):(?P<line>\d+): ")


def first_problem(output: str) -> str:
    """The build's first located ``path:line: message``, else its first error or warning, else ``Error: ...`` or the last line."""
    messages = [m["message"].strip() for m in map(_LOG_LINE.match, output.splitlines()) if m]
    located = [msg for msg in messages if _LOCATED.match(msg)]
    if located:
        return located[0]
    if messages:
        return messages[0]
    lines = output.strip().splitlines() or ["(no output)"]
    start = next((i for i, line in enumerate(lines) if line.startswith("Error: ")), len(lines) - 1)
    return "\n".join(lines[start:]).removeprefix("Error: ")


def build_problem(output: str, project: Path) -> str:
    """:func:`first_problem` of a build of ``project``; one about mkdocs.yml (MkDocs names the option) gets ``mkdocs.yml:N: ``."""
    from journal_tools.compat.mkdocs_config import config_message_line

    problem = first_problem(output)
    line = None if _LOCATED.match(problem) else config_message_line(project / "mkdocs.yml", problem)
    return f"mkdocs.yml:{line}: {problem}" if line else problem


def page_tests_reporting(project: Path) -> dict[str, str | None]:
    """Each mistake the last build of ``project`` stopped at (``path:line``), with the page test that reports it (None: a mistake only
    the build sees), as the build listed them; empty when it stopped at none of its own."""
    from journal_tools.core.record.mistakes import TOLD

    try:
        return {m["where"]: m["test"] for m in json.loads((project / ".cache" / TOLD).read_text(encoding="utf-8"))}
    except (OSError, ValueError, KeyError, TypeError):
        return {}
