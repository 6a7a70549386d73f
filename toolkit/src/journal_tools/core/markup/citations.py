"""Citations as a Python-Markdown extension: ``[@key]``, ``[@key, sec. 3.2]``, ``[@a; @b]`` (Pandoc's syntax) in,
``(Raschka, 2024, ch. 3)`` linking to a "References" list at the document's end out, from one BibTeX file
read and formatted by pybtex (``plain`` style).

Every renderer of the site's Markdown reads them alike. Notebook cells turn the list off
(``reference_list: false``); their page gets one (:func:`append_reference_list`). Errors name file and line
(:class:`UnknownKey` with "did you mean", :class:`BibError`); :class:`Cited` notes a build's keys for the
uncited list.
"""

from __future__ import annotations

import difflib
import functools
import html
import re
import xml.etree.ElementTree as etree
from dataclasses import dataclass, field
from pathlib import Path

import pybtex.errors
from markdown import Extension
from markdown.inlinepatterns import InlineProcessor
from markdown.treeprocessors import Treeprocessor
from markdown.util import AtomicString
from pybtex.database.input.bibtex import Parser
from pybtex.exceptions import PybtexError
from pybtex.plugin import find_plugin
from pybtex.richtext import Text

from journal_tools.core.mistake import Mistake

__all__ = ["NAME", "NAMES", "listed_name", "BibError", "Bibliography", "CitationError", "CitationExtension", "UnknownKey",
           "Cited", "append_reference_list", "list_items", "load", "makeExtension"]

# As listed in mkdocs.yml's markdown_extensions: the entry point's name, or the module's dotted path.
NAME = "journal_citations"
NAMES = (NAME, "journal_tools.core.markup.citations")


def listed_name(configs) -> str:
    """The name mkdocs.yml lists the extension under (its options are kept under that name)."""
    return next((name for name in NAMES if name in configs), NAME)

# Pandoc's citation key: starts and ends with a letter, digit or _, internal
# punctuation allowed (``vaswani2017``, ``doe:2020``), so "[@key.]" is not key "key.".
KEY = r"\w(?:[\w:.#$%&+?<>~/-]*\w)?"
# One bracketed citation: ``@key`` items separated by ';', each with an optional ", locator".
CITATION = rf"\[(?P<items>@{KEY}(?:\s*,[^\[\]@;]*)?(?:\s*;\s*@{KEY}(?:\s*,[^\[\]@;]*)?)*)\]"
_ITEM = re.compile(rf"@(?P<key>{KEY})(?:\s*,(?P<locator>[^;]*))?")
# The attribute every rendered citation link carries: how a notebook page finds its keys.
_DATA_CITE = re.compile(r'\bdata-cite="(?P<key>[^"]+)"')


class CitationError(Mistake, ValueError):
    """A citation the build cannot resolve, at ``file:line`` where it knows them."""

    def located(self, src_path: str, source: str | None) -> CitationError:
        """The error naming the page it was raised on (this one already names its file)."""
        return self


class BibError(CitationError):
    """The BibTeX file cannot be read or one of its entries cannot be formatted."""

    def __init__(self, rel: str, line: int | None, reason: str):
        self.rel, self.reason = rel, reason
        super().__init__(rel, line, reason)


class UnknownKey(CitationError):
    """A cited key that the BibTeX file does not have."""

    def __init__(self, key: str, bib_rel: str, known: list[str], src_path: str | None = None, line: int | None = None):
        self.key, self.bib_rel, self.known, self.src_path = key, bib_rel, known, src_path
        close = difflib.get_close_matches(key, known, n=3, cutoff=0.6)
        if close:
            hint = "did you mean " + " or ".join(repr(k) for k in close) + "?"
        elif known:
            hint = "its keys are " + ", ".join(known[:12]) + (", ..." if len(known) > 12 else "")
        else:
            hint = "it has no entries"
        super().__init__(src_path, line, f"unknown citation key {key!r}: {bib_rel} has no such entry; {hint}")

    def located(self, src_path: str, source: str | None) -> UnknownKey:
        """The same error naming ``src_path`` and the line of the key's first citation in ``source``."""
        return UnknownKey(self.key, self.bib_rel, self.known, src_path, _citation_line(self.key, source))


def _citation_line(key: str, source: str | None) -> int | None:
    if not source:
        return None
    m = re.search(rf"[\[;]\s*@{re.escape(key)}(?![\w:.#$%&+?<>~/-]*\w)", source)
    return source.count("\n", 0, m.start()) + 1 if m else None


# -- the BibTeX file ---------------------------------------------------------------

@dataclass
class Bibliography:
    """One BibTeX file, parsed and checked: every entry formats with the ``plain`` style."""

    path: Path
    rel: str  # as messages name it: relative to the journal's root (the folder holding mkdocs.yml)
    text: str
    data: object  # pybtex.database.BibliographyData
    labels: dict[str, str] = field(default_factory=dict)  # key -> "Raschka, 2024"
    references: dict[str, tuple[str, str]] = field(default_factory=dict)  # key -> (HTML, plain text)

    def key(self, cited: str) -> str | None:
        """The file's own spelling of ``cited`` (BibTeX keys ignore case), or None."""
        entry = self.data.entries.get(cited)
        return None if entry is None else entry.key

    def keys(self) -> list[str]:
        """Every key, in file order."""
        return list(self.data.entries.keys())

    def unknown(self, cited: str) -> UnknownKey:
        """The error for a key this file lacks."""
        return UnknownKey(cited, self.rel, self.keys())

    def line_of(self, key: str) -> int | None:
        """The line of the entry ``key`` (its last definition)."""
        return _entry_line(self.text, lambda k: k.lower() == key.lower())

    def sorted_keys(self, keys) -> list[str]:
        """``keys`` in the order the plain style sorts a reference list (author, year, title)."""
        entries = [self.data.entries[k] for k in keys]
        return [e.key for e in _style().sort(entries)]


_HEADER = re.compile(r"^[ \t]*@(?P<type>\w+)[ \t]*[{(][ \t]*(?P<key>[^,\s]+)[ \t]*,", re.MULTILINE)


def _entry_line(text: str, match) -> int | None:
    lines = [text.count("\n", 0, m.start()) + 1 for m in _HEADER.finditer(text)
             if m["type"].lower() not in ("string", "preamble", "comment") and match(m["key"])]
    return lines[-1] if lines else None


_LOADED: dict[str, tuple[tuple, Bibliography]] = {}


def load(path: str | Path) -> Bibliography:
    """The BibTeX file, parsed and formatted (BibError at file:line); cached by size and mtime, since MkDocs makes an extension per page."""
    path = Path(path).resolve()
    rel = _project_rel(path)
    try:
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
    except OSError:
        raise BibError(rel, None, "no such BibTeX file (the bibliography option of journal_citations "
                                  "in mkdocs.yml)") from None
    cached = _LOADED.get(str(path))
    if cached is not None and cached[0] == stamp:
        return cached[1]
    bib = _read(path, rel)
    _LOADED[str(path)] = (stamp, bib)
    return bib


def _project_rel(path: Path) -> str:
    """``path`` relative to the nearest folder above it holding mkdocs.yml (the journal's root)."""
    for folder in path.parents:
        if (folder / "mkdocs.yml").is_file():
            return path.relative_to(folder).as_posix()
    return str(path)


def _read(path: Path, rel: str) -> Bibliography:
    text = path.read_text(encoding="utf-8-sig")
    # pybtex reports problems through pybtex.errors (raising or printing, by a global
    # switch); capturing them gets every problem with its line whatever that switch says.
    with pybtex.errors.capture() as problems:
        data = Parser().parse_string(text)
    if problems:
        raise _bib_error(problems[0], text, rel)
    bib = Bibliography(path, rel, text, data)
    _format_all(bib)
    return bib


def _bib_error(exc: Exception, text: str, rel: str) -> BibError:
    """pybtex's error with the line: its own for a syntax error, else the line of the entry it names."""
    line = getattr(exc, "lineno", None)
    reason = str(exc)
    if line:
        reason = re.sub(r"^syntax error in line \d+: ", "BibTeX syntax error: ", reason)
    else:
        line = _entry_line(text, lambda k: re.search(rf"(?<![\w:.-]){re.escape(k)}(?![\w:.-])", reason) is not None)
    return BibError(rel, line, reason)


@functools.cache
def _pybtex(kind: str, name: str):
    """One pybtex plugin instance per process: ``find_plugin`` reads every entry point on each call (about 13 ms)."""
    return find_plugin(kind, name)()


def _style():
    return _pybtex("pybtex.style.formatting", "plain")


def _text(rich) -> str:
    return rich.render(_pybtex("pybtex.backends", "text"))


def _format_all(bib: Bibliography) -> None:
    """Every entry's reference (HTML and plain text) and its author-year label, or BibError."""
    style, backend = _style(), _pybtex("pybtex.backends", "html")
    for key, entry in bib.data.entries.items():
        if not (hasattr(style, f"get_{entry.type}_template") or hasattr(style, f"format_{entry.type}")):
            raise BibError(bib.rel, bib.line_of(key), f"entry {key!r}: @{entry.type} is not an entry type pybtex's "
                                                      "plain style formats (article, book, inproceedings, misc, ...)")
        try:
            with pybtex.errors.capture() as problems:
                formatted = style.format_entry(key, entry, bib_data=bib.data)
        except PybtexError as exc:  # FieldIsMissing: raised, not reported
            problems = [exc]
        if problems:
            raise BibError(bib.rel, bib.line_of(key), f"entry {key!r} cannot be formatted: {problems[0]}")
        bib.references[key] = (formatted.text.render(backend), _text(formatted.text))
    bib.labels.update(_labels(bib.data))


def _labels(data) -> dict[str, str]:
    """"Raschka, 2024", "Vaswani and Shazeer, 2017", "Vaswani et al., 2017"; 2024a, 2024b when two agree."""
    plain = {}
    for key, entry in data.entries.items():
        persons = entry.persons.get("author") or entry.persons.get("editor") or []
        names = [" ".join(_text(p) for p in person.rich_prelast_names + person.rich_last_names)
                 for person in persons]
        if not names:
            who = _field_text(entry, "title") or key
        elif len(names) == 1:
            who = names[0]
        elif len(names) == 2:
            who = f"{names[0]} and {names[1]}"
        else:
            who = f"{names[0]} et al."
        year = _field_text(entry, "year") or _field_text(entry, "date")[:4] or "n.d."
        plain[key] = (who, year)
    labels = {}
    for key, (who, year) in plain.items():
        same = [k for k, v in plain.items() if v == (who, year)]
        if len(same) > 1:  # author-year style: the same label twice gets a, b, ... in title order
            same.sort(key=lambda k: _field_text(data.entries[k], "title").lower())
            year += "abcdefghijklmnopqrstuvwxyz"[same.index(key) % 26]
        labels[key] = f"{who}, {year}"
    return labels


def _field_text(entry, name: str) -> str:
    value = entry.fields.get(name, "")
    return _text(Text.from_latex(value)) if value else ""


# -- what this build cited ------------------------------------------------------------

class Cited:
    """The keys one build's pages cite (the journal plugin keeps one per build)."""

    def __init__(self):
        self.keys: set[str] = set()  # lower-cased, as BibTeX compares keys

    def note(self, page_html: str) -> list[str]:
        """Record the keys ``page_html`` cites (every citation link carries ``data-cite``); return them in order."""
        keys = list(dict.fromkeys(html.unescape(m["key"]) for m in _DATA_CITE.finditer(page_html)))
        self.keys.update(k.lower() for k in keys)
        return keys

    def of(self, bib: Bibliography) -> set[str]:
        """The keys of ``bib`` cited so far, as the file spells them."""
        return {key for key in bib.keys() if key.lower() in self.keys}

    def uncited(self, bib: Bibliography) -> list[tuple[int | None, str]]:
        """(line, key) of each entry of ``bib`` not cited so far, in file order."""
        cited = self.of(bib)
        return [(bib.line_of(key), key) for key in bib.keys() if key not in cited]


# -- HTML ---------------------------------------------------------------------------

def _anchor(key: str) -> str:
    return f"ref-{key}"


LIST_CLASS = "journal-references"


def list_items(bib: Bibliography, keys) -> list[tuple[str, str]]:
    """(item id ``ref-<key>``, reference HTML) of each of ``keys``, sorted as the plain style sorts."""
    return [(_anchor(k), bib.references[k][0]) for k in bib.sorted_keys(keys)]


def append_reference_list(page_html: str, bib: Bibliography, heading: str = "References") -> tuple[str, list[str]]:
    """A notebook page's HTML with one reference list for its ``data-cite`` keys, and those keys (UnknownKey for a key not in the file)."""
    keys = list(dict.fromkeys(html.unescape(m["key"]) for m in _DATA_CITE.finditer(page_html)))
    if not keys:
        return page_html, []
    for key in keys:
        if bib.key(key) is None:
            raise bib.unknown(key)
    items = "".join(f'<li id="{html.escape(anchor)}">{reference}</li>' for anchor, reference in list_items(bib, keys))
    return f'{page_html}\n<h2 id="references">{html.escape(heading)}</h2>\n<ul class="{LIST_CLASS}">{items}</ul>\n', keys


# -- the extension --------------------------------------------------------------------

class _CitationPattern(InlineProcessor):
    """``[@a, ch. 3; @b]`` to ``(<a>A, 2024</a>, ch. 3; <a>B et al., 2017</a>)``."""

    def __init__(self, ext: CitationExtension, md):
        super().__init__(CITATION, md)
        self.ext = ext

    def handleMatch(self, m, data):  # noqa: N802 (Python-Markdown's name)
        """The citation's span; UnknownKey for a key the BibTeX file lacks."""
        bib = self.ext.bibliography()
        span = etree.Element("span", {"class": "citation"})
        span.text = AtomicString("(")
        last = None
        for n, item in enumerate(_ITEM.finditer(m["items"])):
            key = bib.key(item["key"])
            if key is None:
                raise bib.unknown(item["key"])
            self.ext.cited.setdefault(key, None)
            if n:
                last.tail = AtomicString((last.tail or "") + "; ")
            link = etree.SubElement(span, "a", {"href": f"#{_anchor(key)}", "class": "citation__ref", "data-cite": key,
                                                "title": bib.references[key][1]})
            link.text = AtomicString(bib.labels[key])
            locator = " ".join((item["locator"] or "").split())
            link.tail = AtomicString(f", {locator}" if locator else "")
            last = link
        last.tail = AtomicString((last.tail or "") + ")")
        return span, m.start(0), m.end(0)


class _ReferenceList(Treeprocessor):
    """After the inline patterns (the keys are known), before the table of contents (it lists the heading)."""

    def __init__(self, ext: CitationExtension, md):
        super().__init__(md)
        self.ext = ext

    def run(self, root):
        """Append the heading (for the table of contents) and items (for MkDocs' anchor check), each item's HTML raw in the stash."""
        if not self.ext.cited or not self.ext.getConfig("reference_list"):
            return
        etree.SubElement(root, "h2").text = self.ext.getConfig("heading")
        ul = etree.SubElement(root, "ul", {"class": LIST_CLASS})
        for anchor, reference in list_items(self.ext.bibliography(), list(self.ext.cited)):
            etree.SubElement(ul, "li", {"id": anchor}).text = self.md.htmlStash.store(reference)


class CitationExtension(Extension):
    """``[@key]`` citations against one BibTeX file, and a reference list at the end."""

    def __init__(self, **kwargs):
        self.config = {
            "bibliography": ["", "the BibTeX file (a relative path is taken from the working directory)"],
            "reference_list": [True, "end each document that cites with its reference list"],
            "heading": ["References", "the reference list's heading"],
        }
        super().__init__(**kwargs)
        self.cited: dict[str, None] = {}  # this document's keys, in citing order

    def bibliography(self) -> Bibliography:
        """The configured BibTeX file (read on the first citation: pages that cite nothing never need it)."""
        path = str(self.getConfig("bibliography") or "")
        if not path:
            raise BibError("mkdocs.yml", None, f"a page cites, but {NAME} has no bibliography option (the BibTeX file)")
        return load(path)

    def extendMarkdown(self, md):  # noqa: N802 (Python-Markdown's name)
        """Register the citation pattern (before links: ``[@key]`` is no reference link) and the list."""
        md.registerExtension(self)
        md.inlinePatterns.register(_CitationPattern(self, md), "journal-citation", 175)
        md.treeprocessors.register(_ReferenceList(self, md), "journal-references", 6)

    def reset(self):
        """A new document: nothing cited yet."""
        self.cited = {}


def makeExtension(**kwargs):  # noqa: N802 (Python-Markdown's name)
    """Python-Markdown's entry point ``journal_citations``."""
    return CitationExtension(**kwargs)
