"""Make a whole journal in one command: ``journal-new-site DIR`` (as ``quarto create project blog``).

DIR must be empty or absent (it is created); a folder holding anything is refused
before a file is written. What is written comes from ``site_template/`` beside this
module (package data), file by file, with the ``{{ NAME }}`` tokens of :func:`values`
filled in. Dotfiles are stored there without their dot (setuptools' package-data globs
skip dotfiles) and get it on writing (``RENAMES``). Last, ``make new``'s own scaffold
(commands/new_entry.py) adds a draft entry, its snippet module and its test, so the
made journal starts with what ``make new`` makes, read back from the made mkdocs.yml.

The template is this repository's top level minus its content and the toolkit's own
targets and job; toolkit/tests/sites/test_new_site.py compares the two and names every
difference with its reason.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from journal_tools.commands import new_entry

TEMPLATE_DIR = Path(__file__).resolve().parent / "site_template"
DISTRIBUTION = "journal-tools"
DEFAULT_TITLE = "An executable journal"
DEFAULT_AUTHOR = "Author"
DESCRIPTION = "Dated entries whose every code block is run by the tests."
# The author id the authors file holds and entries name (make new writes the file's first); the name shown is --author's.
AUTHOR_ID = "author"
EXAMPLE_SLUG = "scaled-dot-product-attention"
DRAFT_TITLE = "Softmax by hand"
# Stored name in site_template/ (a path or a leading folder) -> the name written.
RENAMES = {
    "gitignore": ".gitignore",
    "github": ".github",
    "ci": ".ci",
    "docs/blog/authors.yml": "docs/blog/.authors.yml",
    "docs/blog/series.yml": "docs/blog/.series.yml",
}
EXAMPLE_ENTRY = "docs/blog/posts/example-entry.md"  # written as <date>-<EXAMPLE_SLUG>.md
EXECUTABLE = {".ci/run"}
# Upper case: GitHub's own ${{ github.ref }} expressions in the workflow stay as they are.
TOKEN = re.compile(r"\{\{ ([A-Z_]+) \}\}")
SHOWN_ENTRIES = 5  # how many of a non-empty folder's entries the refusal names


class SiteError(Exception):
    """A problem the user can fix (a folder that is not empty, a bad URL); nothing was written."""


@dataclass(frozen=True)
class Options:
    """What the command line gives (None: the default)."""

    title: str = DEFAULT_TITLE
    author: str | None = None
    site_url: str | None = None
    repo_url: str | None = None


# --- the folder -----------------------------------------------------------------


def check_target(target: Path) -> None:
    """Refuse a target that is a file, or a folder holding anything (hidden files too)."""
    if target.exists() and not target.is_dir():
        raise SiteError(f"{target} is a file, not a folder; nothing was written: give an empty or new folder")
    if target.is_dir():
        entries = sorted(p.name + ("/" if p.is_dir() else "") for p in target.iterdir())
        if entries:
            shown = ", ".join(entries[:SHOWN_ENTRIES])
            more = f" and {len(entries) - SHOWN_ENTRIES} more" if len(entries) > SHOWN_ENTRIES else ""
            raise SiteError(f"{target} is not empty (it holds {shown}{more}); nothing was written: "
                            "give an empty or new folder")


# --- the values of the tokens -----------------------------------------------------


def git_user_name() -> str | None:
    """``git config user.name``, or None (no git, or no name set)."""
    try:
        proc = subprocess.run(["git", "config", "user.name"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() or None


def _url(value: str, option: str) -> str:
    if urlsplit(value).scheme not in ("http", "https") or not urlsplit(value).netloc:
        raise SiteError(f"{option} {value!r} is no http(s) address, e.g. https://you.github.io/journal/")
    return value


def _yaml(text: str) -> str:
    """``text`` as a YAML scalar that reads back as exactly that (a JSON string is YAML)."""
    return json.dumps(text, ensure_ascii=False)


def toolkit_version() -> str:
    """The installed journal-tools' version: the made journal pins it by name, whatever it was installed from
    (an index, a wheel, a checkout), so the journal names no folder of this machine; pip's own configuration
    (PIP_FIND_LINKS, PIP_INDEX_URL, pip.conf) says where else to look, or the Makefile's TOOLKIT a checkout."""
    return importlib.metadata.version(DISTRIBUTION)


def values(target: Path, options: Options, date: dt.date) -> dict[str, str]:
    """Every token the template uses, formatted for the file it goes into."""
    title = new_entry.clean_title(options.title) or DEFAULT_TITLE
    author = new_entry.clean_title(options.author or git_user_name() or DEFAULT_AUTHOR)
    slug = _slug(target)
    site_url = _url(options.site_url, "--site-url") if options.site_url else local_address(slug)
    site_url = site_url if site_url.endswith("/") else site_url + "/"  # the feed's logo is appended to it
    repo_url = _url(options.repo_url, "--repo-url") if options.repo_url else f"https://github.com/example/{slug}"
    version = toolkit_version()
    return {
        "TITLE_YAML": _yaml(title),
        "TITLE_MD": new_entry.markdown_text(title),
        "DESCRIPTION_YAML": _yaml(DESCRIPTION),
        "AUTHOR_YAML": _yaml(author),
        "COPYRIGHT_YAML": _yaml(f"Written by {author}; every code block is run by the tests."),
        "SITE_URL": site_url,
        "SERVE_URL": serve_address(target, site_url),
        "REPO_URL": repo_url,
        "REPO_NAME": _yaml(urlsplit(repo_url).path.rstrip("/").rsplit("/", 1)[-1] or slug),
        "DATE": date.isoformat(),
        "TOOLKIT_VERSION": version,
    }


# --- the files ------------------------------------------------------------------


def written_name(stored: str, date: dt.date) -> str:
    """The path a template file is written to (posix, relative to the new journal)."""
    if stored == EXAMPLE_ENTRY:
        return f"docs/blog/posts/{date.isoformat()}-{EXAMPLE_SLUG}.md"
    for old, new in RENAMES.items():
        if stored == old or stored.startswith(old + "/"):
            return new + stored[len(old):]
    return stored


def render(text: str, tokens: dict[str, str], source: str) -> str:
    """``text`` with its tokens filled; an unknown token fails at ``source``:line."""
    for number, line in enumerate(text.split("\n"), 1):
        for name in TOKEN.findall(line):
            if name not in tokens:
                raise SiteError(f"{source}:{number}: unknown template token {{{{ {name} }}}} "
                                f"(known: {', '.join(sorted(tokens))})")
    return TOKEN.sub(lambda m: tokens[m[1]], text)


def template_files() -> list[str]:
    """The template's files, posix paths relative to site_template/ (caches left out: __pycache__, and a tool's
    dot-folder such as .ruff_cache, as the template stores no dotfile)."""
    return sorted(p.relative_to(TEMPLATE_DIR).as_posix() for p in TEMPLATE_DIR.rglob("*")
                  if p.is_file() and not any(part == "__pycache__" or part.startswith(".")
                                             for part in p.relative_to(TEMPLATE_DIR).parts))


def plan_site(target: Path, options: Options, date: dt.date) -> dict[str, str]:
    """Every file's path (posix, relative) and text, rendered before anything is written."""
    tokens = values(target, options, date)
    return {written_name(stored, date): render((TEMPLATE_DIR / stored).read_text(encoding="utf-8"), tokens,
                                               str(TEMPLATE_DIR / stored))
            for stored in template_files()}


def create_site(target: Path, options: Options = Options(), date: dt.date | None = None) -> list[Path]:
    """Make the journal in ``target`` (empty or absent); return the files. SiteError, nothing written, for a non-empty target; a failure
    while writing removes what was written."""
    date = date or dt.date.today()
    check_target(Path(target))  # named as given, in the message
    target = Path(target).absolute()
    plan = plan_site(target, options, date)
    made_folder = not target.exists()
    try:
        written = []
        for rel, text in plan.items():
            path = target / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            if rel in EXECUTABLE:
                path.chmod(0o755)
            written.append(path)
        written += new_entry.create_entry(target, DRAFT_TITLE, date, author=AUTHOR_ID)
    except BaseException:
        if made_folder:
            shutil.rmtree(target, ignore_errors=True)
        else:  # it was empty: empty it again
            for child in target.iterdir():
                shutil.rmtree(child) if child.is_dir() else child.unlink()
        raise
    return written


def _slug(target: Path) -> str:
    return re.sub(r"[^a-z0-9]+", "-", target.name.lower()).strip("-") or "journal"


def serve_address(target: Path, site_url: str | None) -> str:
    """Where ``make serve`` answers: site_url's path on the local port."""
    return f"http://127.0.0.1:8000{urlsplit(site_url or local_address(_slug(target.absolute()))).path}"


def local_address(slug: str) -> str:
    """site_url's default, where ``make serve`` answers (a build for publishing is given the published one: SITE_URL)."""
    return f"http://127.0.0.1:8000/{slug}/"


def main(argv: list[str] | None = None) -> int:
    """``journal-new-site DIR``: make a whole journal in an empty or new folder."""
    parser = argparse.ArgumentParser(
        prog="journal-new-site",
        description="Make a whole journal (pages, checks, Makefile, pinned requirements, CI) in an empty or new folder.",
    )
    parser.add_argument("dir", type=Path, help="the folder to make it in: empty, or absent (created)")
    parser.add_argument("--title", default=DEFAULT_TITLE, help=f"the site's name (default: {DEFAULT_TITLE!r})")
    parser.add_argument("--author", help=f"the author's name (default: git config user.name, else {DEFAULT_AUTHOR!r})")
    parser.add_argument("--site-url", help="site_url's default (default: the local address; the Pages workflow gives the published one)")
    parser.add_argument("--repo-url", help="repo_url's default (default: a placeholder; the Pages workflow gives the repository's)")
    args = parser.parse_args(argv)
    try:
        files = create_site(args.dir, Options(args.title, args.author, args.site_url, args.repo_url))
    except (SiteError, new_entry.EntryError) as error:
        print(f"journal-new-site: error: {error}", file=sys.stderr)
        return 2
    print(f"Made a journal in {args.dir} ({len(files)} files). Next:")
    print(f"  cd {args.dir}")
    print(f"  make serve   # sets up .venv first (minutes, the first time: torch and the pins), then serves "
          f"{serve_address(args.dir, args.site_url)}")
    print("  make test    # every check")
    return 0


if __name__ == "__main__":
    sys.exit(main())
