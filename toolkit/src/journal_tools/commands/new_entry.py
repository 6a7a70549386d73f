"""``make new TITLE="..."``: a draft entry, its snippet module and its snippet test, each refused if it exists.

Every placeholder starts with ``validate.PLACEHOLDER``, so a published entry still holding one fails at its line.
The category is the blog's first ``categories_allowed`` (or ``--category``); all is a function of the root and
a date, so the tests run it in a copy of the project.
The author is the blog's authors file's first id (or ``--author``, one of them: the blog stops at an
author it does not know).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import importlib.util
import io
import keyword
import re
import sys
import textwrap
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from journal_tools.compat import mkdocs_config
from journal_tools.core.markup import citations
from journal_tools.core.page import series
from journal_tools.core.record.validate import PLACEHOLDER
from journal_tools.core.settings import CONFIG_NAME, BlogSettings, ConfigError, Settings, find_root

MAX_SLUG_LENGTH = 60
TESTS_DIR = Path("tests") / "test_snippets"
# The code column of an entry at 1280 px, in characters (Chromium, the site's code font, measured on a
# built scaffold entry: 80). Every line the scaffold writes is shorter, so no block of it scrolls sideways.
CODE_COLUMN = 80

class EntryError(Exception):
    """A problem the author can fix (bad title, unknown category, existing file)."""


# --- names ------------------------------------------------------------------


def slugify(title: str) -> str:
    """ASCII, lowercase, hyphen-separated; "Q, K & V: take 2!" -> "q-k-v-take-2"."""
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    if len(slug) > MAX_SLUG_LENGTH:
        cut = slug[:MAX_SLUG_LENGTH]
        # Cut at a word boundary when there is one.
        slug = cut.rsplit("-", 1)[0] if "-" in cut else cut
    if not slug:
        raise EntryError(
            f"the title {title!r} has no letters or digits to make a file name from; "
            'give one, e.g. make new TITLE="Causal attention by hand"'
        )
    return slug


def _shadows_installed_module(name: str, snippets_dir: Path) -> bool:
    """True if ``name`` is a stdlib or installed module that a snippet of that name would hide (snippets/ is on the tests' import path)."""
    if name in sys.stdlib_module_names or name in sys.builtin_module_names:
        return True
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    origin = spec.origin or (list(spec.submodule_search_locations or []) or [""])[0]
    if not origin:
        return True
    # A module found in a snippets folder is a snippet, not a library.
    return Path(origin).resolve().parent != snippets_dir.resolve()


def module_name(slug: str, snippets_dir: Path) -> str:
    """A valid Python module name from the slug, which does not hide a library."""
    name = slug.replace("-", "_")
    if name[0].isdigit():
        name = "entry_" + name
    if keyword.iskeyword(name) or _shadows_installed_module(name, snippets_dir):
        name += "_entry"
    return name


# --- the title in each file ---------------------------------------------------


def clean_title(title: str) -> str:
    """The title on one line: whitespace runs made one space, control characters and lone surrogates (undecodable bytes) dropped."""
    kept = "".join(ch for ch in title if unicodedata.category(ch) not in ("Cc", "Cs") or ch.isspace())
    return " ".join(kept.split())


# Characters Python-Markdown or the site's extensions would read as markup in a heading: emphasis, code, links, attribute lists ({...}), a
# closing #, math ($ and backslash: arithmatex's \( and \[). Each is backslash-escaped, which Python-Markdown and arithmatex turn back into
# the character. "(" and ")" are not: escaped they would be arithmatex's inline math delimiters.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]#!$])")


def markdown_text(title: str) -> str:
    """``title`` as Markdown that renders as exactly that text (the entry's heading)."""
    text = title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def docstring_text(text: str) -> str:
    """``text`` for a triple-quoted docstring: backslashes and quotes escaped, wrapped within ruff's line length (snippets/ is linted)."""
    lines = textwrap.wrap(text, width=72, break_on_hyphens=False)  # escaping at most doubles a line
    escaped = (line.replace("\\", "\\\\").replace('"', '\\"') for line in lines)
    return "\n".join(escaped)


# --- mkdocs.yml ---------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Where things live, read from mkdocs.yml."""

    root: Path
    posts_dir: Path
    snippets_dir: Path
    tests_dir: Path
    categories_allowed: list[str]
    blog: BlogSettings
    settings: Settings
    bibliography: str = "the BibTeX file (bibliography of journal_tools.core.markup.citations in mkdocs.yml)"
    cite_key: str = "key"  # a key the commented citation example uses: the file's first, when it has one


def read_layout(root: Path) -> Layout:
    """Where things live, from the journal's one settings object (mkdocs.yml, MkDocs' loader)."""
    try:
        settings = mkdocs_config.load(root / CONFIG_NAME)
    except ConfigError as exc:
        raise EntryError(str(exc)) from None
    if settings.blog is None:
        raise EntryError(f"{settings.config_file}: no blog plugin in plugins:, so there is nowhere to post")
    return Layout(
        root=settings.root,
        posts_dir=settings.blog.posts_dir,
        snippets_dir=settings.snippet_dirs[0] if settings.snippet_dirs else settings.root / "snippets",
        tests_dir=settings.root / TESTS_DIR,
        categories_allowed=list(settings.blog.categories_allowed),
        blog=settings.blog,
        settings=settings,
        **_citation_example(settings),
    )


def _citation_example(settings: Settings) -> dict[str, str]:
    """The BibTeX file as the writer finds it and its first key, for the entry's commented example."""
    if settings.bibliography is None:
        return {}
    found = {"bibliography": settings.rel(settings.bibliography)}
    try:
        keys = citations.load(settings.bibliography).keys()
    except citations.BibError:  # no file yet, or one the build will report: the example keeps "key"
        keys = []
    return found | ({"cite_key": keys[0]} if keys else {})


def choose_category(layout: Layout, category: str | None) -> str:
    """``category``, checked against categories_allowed, or the first allowed one."""
    allowed = layout.categories_allowed
    if category is None:
        if not allowed:
            raise EntryError(
                "mkdocs.yml sets no categories_allowed for the blog; pass --category"
            )
        return allowed[0]
    if allowed and category not in allowed:
        raise EntryError(
            f"category {category!r} is not in the blog's categories_allowed "
            f"(mkdocs.yml): {', '.join(allowed)}"
        )
    return category


def series_lines(layout: Layout, name: str | None) -> str:
    """``series:`` and ``part:`` (the next free number) for ``name``, checked against the series file; none without a name."""
    where = _show(series.series_file(layout.settings), layout.root)
    try:
        known = series.declared(layout.settings)
    except series.SeriesError as exc:
        raise EntryError(str(exc)) from None
    if name is None:
        return ""
    if name not in known:
        raise EntryError(f"series {name!r} is not in {where}, which has: {', '.join(known) or 'none'} (add it there with its title)")
    taken = [p.number for p in series.parts(layout.settings) if p.series == name]
    return f"series: {name}\npart: {max(taken, default=0) + 1}\n"


def choose_author(layout: Layout, author: str | None) -> str | None:
    """``author`` checked against the authors file, or its first id; None when the blog reads no authors. A file without ids is an error
    here, before any file is written (the blog would stop the build)."""
    blog = layout.blog
    if not blog.authors:
        return None
    known = blog.author_names()
    where = _show(blog.authors_file, layout.root) if blog.authors_file is not None else "the blog's authors_file"
    if known is None:
        raise EntryError(f"{where} cannot be read as YAML: fix it (the blog reads each entry's authors there); "
                         "nothing was written")
    if not known:
        exists = blog.authors_file is not None and blog.authors_file.is_file()
        raise EntryError(f"{where} {'names no author' if exists else 'does not exist'}: "
                         f"{'add' if exists else 'create it with'} one under authors: (an id, with its name and "
                         "avatar) for the entry to name; nothing was written")
    if author is None:
        return known[0]
    if author not in known:
        raise EntryError(f"author {author!r} is not in {where}; it has: {', '.join(known)}; nothing was written")
    return author


# --- file contents ------------------------------------------------------------

SNIPPET_TEMPLATE = '''\
"""{title_line}

Sections (for pymdownx.snippets): {fn_section}, {demo_section}.
Scaffolded by `make new`: replace the placeholder function with the
entry's own code, and keep its test in step with it:
tests/test_snippets/test_{module}.py.
"""


# --8<-- [start:{fn_section}]
import math


def softmax(scores):
    """Turn a list of scores into probabilities: positive, summing to 1."""
    # Subtracting the largest score keeps exp() from overflowing.
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]
# --8<-- [end:{fn_section}]


if __name__ == "__main__":
    # The page includes this section (dedented); the file prints it too.
    # --8<-- [start:{demo_section}]
    probs = softmax([1.0, 2.0, 3.0])
    print([round(p, 4) for p in probs])
    # --8<-- [end:{demo_section}]
'''

# One import block: ruff's isort (make lint) files snippet modules with the
# third-party ones, and puts `from` imports after plain ones whatever the name.
TEST_TEMPLATE = '''\
"""{title_line}"""

import pytest
import torch
from {module} import softmax


def test_matches_torch_softmax():
    scores = [1.0, 2.0, 3.0, -0.5]
    tensor = torch.tensor(scores, dtype=torch.float64)
    want = torch.softmax(tensor, dim=0).tolist()
    assert softmax(scores) == pytest.approx(want, abs=1e-12)


def test_probabilities_sum_to_one_even_for_large_scores():
    probs = softmax([1000.0, 1001.0, 1002.0])  # exp(1000) alone would overflow
    assert all(p > 0 for p in probs)
    assert sum(probs) == pytest.approx(1.0)
'''

ENTRY_TEMPLATE = """\
---
date: {date}
draft: true
categories:
  - {category}
tags: []
{authors}{series}doctest: page
---

# {heading}

*{placeholder} say in two or three sentences what this entry
works out and why it matters. This paragraph is the excerpt shown on the
journal's index.*

<!-- more -->

<!-- To cite a source, add it to {bibliography} once,
then write its key where the text relies on it: [@{cite_key}],
with a place in it: [@{cite_key}, ch. 3],
several at once: [@{cite_key}; @other].
The page then ends with its reference list. An unknown key
fails make check and the build, naming the closest key.
To make the entry a part of a series of {series_file}
({series_names}), add series: NAME and part: N to its
front matter (make new SERIES=NAME writes the next part). -->

## Code

The code lives in `snippets/{module}.py`,
tested by `tests/test_snippets/test_{module}.py`.
This page includes it, so what you read is the code the tests run.
*({placeholder} replace the function with your own,
here and in the test.)*

```python
--8<-- "{module}.py:{fn_section}"
```

On three scores:

<!--pytest-codeblocks:cont-->
```python
--8<-- "{module}.py:{demo_section}"
```

<!--pytest-codeblocks:expected-output-->
```text
{output}```

## Notes

!!! note "What was tried, what the numbers show"
    {placeholder} what you tried and in what order, what the printed
    numbers show (and what they rule out), and what to measure next.
"""


def run_demo(snippet_source: str, filename: str) -> str:
    """What the snippet's demo prints: run it as a script, capturing stdout."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(snippet_source, filename, "exec"), {"__name__": "__main__"})
    return out.getvalue()


@dataclass(frozen=True)
class Plan:
    """The files a new entry creates."""

    entry: Path
    snippet: Path
    test: Path
    contents: dict[Path, str]


def plan_entry(
    root: Path,
    title: str,
    date: dt.date,
    category: str | None = None,
    author: str | None = None,
    series_name: str | None = None,
) -> Plan:
    """Work out the three files and their text, without writing anything."""
    title = clean_title(title)
    if not title:
        raise EntryError('a title is required, e.g. make new TITLE="Causal attention by hand"')
    root = Path(root)
    layout = read_layout(root)
    category = choose_category(layout, category)
    author = choose_author(layout, author)
    slug = slugify(title)
    module = module_name(slug, layout.snippets_dir)
    names = {"module": module, "fn_section": "softmax", "demo_section": "demo"}

    entry = layout.posts_dir / f"{date.isoformat()}-{slug}.md"
    snippet = layout.snippets_dir / f"{module}.py"
    test = layout.tests_dir / f"test_{module}.py"

    first_line = docstring_text(f"{title}: the code of the journal entry of {date.isoformat()}.")
    snippet_text = SNIPPET_TEMPLATE.format(title_line=first_line, date=date.isoformat(), **names)
    output = run_demo(snippet_text, str(snippet))
    entry_text = ENTRY_TEMPLATE.format(
        date=date.isoformat(),
        category=category,
        placeholder=PLACEHOLDER,
        authors="" if author is None else f"authors:\n  - {author}\n",
        series=series_lines(layout, series_name),
        series_file=_show(series.series_file(layout.settings), layout.root),
        series_names=", ".join(series.declared(layout.settings)) or "none yet",
        heading=markdown_text(title),
        output=output,
        bibliography=layout.bibliography,
        cite_key=layout.cite_key,
        **names,
    )
    test_text = TEST_TEMPLATE.format(title_line=docstring_text(f"Tests for snippets/{module}.py ({title})."), **names)
    return Plan(entry, snippet, test, {entry: entry_text, snippet: snippet_text, test: test_text})


def create_entry(
    root: Path,
    title: str,
    date: dt.date | None = None,
    category: str | None = None,
    author: str | None = None,
    series_name: str | None = None,
) -> list[Path]:
    """Create the entry, its snippet module and its test; return their paths. EntryError, nothing written, if any of the three exists."""
    plan = plan_entry(Path(root), title, date or dt.date.today(), category, author, series_name)
    existing = [path for path in plan.contents if path.exists()]
    if existing:
        raise EntryError(
            "refusing to overwrite: "
            + ", ".join(_show(path, Path(root)) for path in existing)
            + " already exist"
            + ("s" if len(existing) == 1 else "")
            + "; nothing was written (choose another title, or remove the file)"
        )
    written: list[Path] = []
    try:
        for path, text in plan.contents.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "x", encoding="utf-8") as handle:  # "x": never overwrite
                written.append(path)
                handle.write(text)
    except BaseException:
        for path in written:  # all or nothing
            path.unlink(missing_ok=True)
        raise
    return written


def _show(path: Path, root: Path) -> str:
    """``path`` relative to the repo root when it is inside it."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    """``journal-new`` / ``make new``: create the entry, its snippet module and its test."""
    parser = argparse.ArgumentParser(
        prog="journal-new",
        description="Create a dated journal entry, its snippet module and its test.",
    )
    parser.add_argument("title", nargs="?", default="", help='the entry title, e.g. "Causal attention by hand"')
    parser.add_argument("--category", help="one of the blog's categories_allowed (default: the first)")
    parser.add_argument("--author", help="an id from the blog's authors file (default: its first)")
    parser.add_argument("--series", help="a series of the series file (.series.yml) the entry is the next part of")
    parser.add_argument("--date", type=dt.date.fromisoformat, help="YYYY-MM-DD (default: today)")
    parser.add_argument("--root", type=Path, help="the journal's root folder (default: found from the cwd)")
    args = parser.parse_args(argv)

    try:
        root = (args.root or find_root()).resolve()
        paths = create_entry(root, args.title, args.date, args.category, args.author, args.series)
    except (EntryError, ConfigError) as error:
        print(f"journal-new: error: {error}", file=sys.stderr)
        return 2
    print("Created:")
    for path in paths:
        print(f"  {_show(path, root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
