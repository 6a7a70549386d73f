"""Each entry's ``<entry>.py`` and ``<entry>.ipynb``, made from the page as its tests read it: pinned needs,
the tests' start state (``start_state()``; ``start_afresh()`` before each block unless ``doctest: page``),
the files its code read, the snippet modules it imports, every block with its checked output as a comment
(skipped blocks as comments). The notebook adds the prose as Markdown cells. From the sources alone, so
every build writes the same bytes; no MkDocs but in ``add_files``.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat.v4 import nbjson

from journal_tools.core.code.imports import imported_names_in_text
from journal_tools.core.code.outputs import matrix_numbers
from journal_tools.core.code.parse import SHELL_LANGS, Page, Step, parse_page
from journal_tools.core.code.run import SEED
from journal_tools.core.settings import Settings
from journal_tools.mkdocs_plugin import download_data, download_needs
from journal_tools.mkdocs_plugin.download_data import ReadFile
from journal_tools.mkdocs_plugin.download_prose import Prose, SiteLinks

__all__ = ["FOLDER", "Download", "Placed", "ReadFile", "SiteLinks", "add_files", "ipynb_text", "links_html", "make",
           "start_state"]

FOLDER = "downloads"  # under the site: downloads/<entry>.py, downloads/<entry>.ipynb

_COMMENT_LINE = re.compile(r"^\s*<!--.*-->\s*$")  # markers, <!-- more -->, figures: nothing for a reader
_ADMONITION = re.compile(r'^(?P<indent>\s*)(?:!!!|\?\?\?\+?)\s*(?P<kind>\w+)(?:\s+"(?P<title>[^"]*)")?\s*$')

def start_state(seeded: Sequence[str] = ("numpy", "torch")) -> str:
    """``start_state()``'s code: ``random``, and NumPy or PyTorch only if ``seeded`` (never import what the reader need not install)."""
    body = [f"    random.seed({SEED})"]
    if "numpy" in seeded:
        body.append(f"    numpy.random.seed({SEED})")
    if "torch" in seeded:
        body += [f"    torch.manual_seed({SEED})", '    torch.set_printoptions(profile="default")',
                 "    torch.set_default_dtype(torch.float32)"]
    what = "the same seeds, PyTorch's default print options" if "torch" in seeded else "the same seed"
    return f'def start_state():\n    """The state the page tests start from: {what}."""\n' + "\n".join(body) + "\n"


_AFRESH = '''\
def start_afresh():
    """Each block of this page is a test of its own: forget what the blocks before defined."""
    for name in set(globals()) - _KEEP:
        if not name.startswith("_"):
            del globals()[name]
    start_state()


_KEEP = set(globals())  # what the blocks find: the imports and functions above
'''

# Where the file lies (a notebook runs in its own folder): the journal's files and snippet
# modules are placed beside it as in the journal, so ``Path(__file__).parent / "data"`` finds them.
_HERE = '''\
HERE = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()
'''

_SNIPPET_HELPER = '''\
def snippet_module(name, path, source):
    """Make `import name` find ``source``: the journal's file ``path``, written in below."""
    module = types.ModuleType(name)
    module.__file__ = str(HERE / path)
    sys.modules[name] = module
    exec(compile(source.removeprefix("\\n"), module.__file__, "exec"), module.__dict__)
'''


@dataclass
class Placed:
    """Where one step of the page went: the script lines that run it, its notebook cells."""

    step: Step
    lines: range  # 1-based lines of the .py that run the step (empty: not run, shown as comments)
    cells: list[str] = field(default_factory=list)  # ids of its code cells


@dataclass
class Download:
    """The two files of one entry, and where each step of the page went in them."""

    name: str  # the entry's file stem: <name>.py, <name>.ipynb
    script: str
    notebook: str
    placed: list[Placed]
    # Each file the page's code reads that is too big to carry (download_data.LIMIT): the
    # build warns at its line, so the strict `make build` fails.
    too_big: list[download_data.TooBig] = field(default_factory=list)


def make(path: Path, settings: Settings, data_files: Sequence[Path | ReadFile] = (),
         links: SiteLinks | None = None) -> Download:
    """The downloads of the page at ``path``, carrying ``data_files`` (what the tests saw its code read, never guessed); ``links``: URLs."""
    page = parse_page(path, settings)
    modules = _snippet_modules(page, settings)
    title = _title(page) or path.stem
    where = page.path
    imported = download_needs.imported_modules([step.code for step in page.steps] + [src for _, _, src in modules])
    found, missing = download_needs.needs(imported, {name for name, _, _ in modules}, settings.root / "requirements.txt")
    first = page.steps[0].origin.line if page.steps else None
    carried = download_data.carry(data_files, settings, where, first)
    header = [f"# {title}", "#", f"# The code of {where},",
              "# as its page tests run it: every block, in page order, with the snippets it",
              "# includes. It runs alone, in any folder: the snippet modules the page imports",
              "# and the files its code reads are written in below (the files are written",
              "# beside this one when it runs). Under each block whose output the page checks,",
              "# that output, as a comment. Run it: python <this file>", "#",
              *download_needs.header_line(found, missing)]
    if page.mode != "page":
        header.append("# Each block runs on its own, as in the tests: start_afresh() begins each one.")
    setup, written_in = _setup_code(page, modules, carried, imported)
    script = _Script(header + [""] + "".join([setup, *(code for _, code in written_in)]).split("\n"))
    about = (f"*The code of {where}, as its page tests run it. First the state the tests start from"
             + (", then the files its code reads and the snippet modules it imports, written in.*"
                if written_in else ".*"))
    head = [_markdown_cell(about, "about"), _code_cell(setup, "setup"),
            *(_code_cell(code.lstrip("\n"), cell_id) for cell_id, code in written_in)]
    cells: list[dict] = []
    placed = []
    text_start = _body_start(page)
    rel_src = Path(path).resolve().relative_to(settings.docs_dir).as_posix()
    reader = Prose(settings, links, rel_src)

    def prose(start: int, stop: int) -> None:
        text = _prose(page, start, stop)
        if text:
            cells.append(_markdown_cell(reader.cell(text), f"text-{page.where(start).line}"))

    for step in page.steps:
        prose(text_start, step.parts[0].fence.start)
        placed.append(_place(page, step, script, cells, prose))
        text_start = _after(step, step.parts[-1].fence.end) + 1
    prose(text_start, len(page.expanded.lines))
    references = reader.references()
    if references is not None:
        cells.append(_markdown_cell(references, "references"))
    nb = nbformat.from_dict({"nbformat": 4, "nbformat_minor": 5, "cells": _title_first(head, cells), "metadata": {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"}}})
    return Download(path.stem, script.text(), ipynb_text(nb), placed, carried.too_big)


def ipynb_text(nb) -> str:
    """An ``.ipynb``'s text as ``nbformat.write`` lays it out, minus its schema check (0.1 s per entry; the tests validate it)."""
    return nbjson.writes(nb) + "\n"


def _code_cell(source: str, cell_id: str) -> dict:
    return {"cell_type": "code", "id": cell_id, "metadata": {}, "execution_count": None, "outputs": [],
            "source": source.rstrip("\n")}


def _markdown_cell(source: str, cell_id: str) -> dict:
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": source}


# -- in the build (the only MkDocs of this module: imported where used) -----------------


def add_files(files, config, settings: Settings, digest=None, kept: dict | None = None,
              files_read=None) -> dict[Path, list]:
    """Each post's two downloads as generated files; an unreadable post gets none, one too big warns; ``kept`` (make serve): by digest."""
    import logging

    from mkdocs.structure.files import File

    from journal_tools.core.mistake import Mistake

    log = logging.getLogger("mkdocs.plugins.journal")
    links = SiteLinks(settings.site_url, {f.src_uri: f.url for f in files})
    urls_key = hash(tuple(sorted(links.urls.items())))
    made = {}
    for file in list(files.documentation_pages()):
        src = Path(file.abs_src_path) if file.abs_src_path else None
        if src is None or src.suffix != ".md" or not settings.is_post(src):
            continue
        read = list(files_read(settings.rel(src))) if files_read is not None else []
        key = ((digest(src), urls_key, tuple(_stamps(read, settings)))
               if digest is not None and kept is not None else None)
        if key is not None and src in kept and kept[src][0] == key:
            download = kept[src][1]
        else:
            try:
                download = make(src, settings, read, links)
            except Mistake:  # the page's own test reports it
                download = None
            if key is not None:
                kept[src] = (key, download)
        if download is None or not download.placed:
            continue
        for mistake in download.too_big:
            log.warning(str(mistake))
        made[src] = [File.generated(config, f"{FOLDER}/{download.name}{ext}", content=text)
                     for ext, text in ((".py", download.script), (".ipynb", download.notebook))]
        for generated in made[src]:
            files.append(generated)
    return made


def _stamps(read, settings: Settings) -> list[tuple]:
    """What a kept download depends on of the files read: each one's path, line, size and time."""
    out = []
    for f in read:
        r = f if isinstance(f, ReadFile) else ReadFile(Path(f))
        try:
            st = (settings.root / r.path).stat()
            out.append((r.path.as_posix(), r.line, st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((r.path.as_posix(), r.line, None, None))
    return out


def drop_left_out(made: dict[Path, list], files) -> dict[Path, list]:
    """``made`` less the downloads of the posts the build leaves out: a draft's code must not be published either."""
    left_out = {Path(f.abs_src_path) for f in files.documentation_pages(inclusion=lambda i: i.is_excluded())
                if f.abs_src_path}
    for src in made.keys() & left_out:
        for generated in made[src]:
            files.remove(generated)
    return {src: generated for src, generated in made.items() if src not in left_out}


def links_html(made: list | None, page_url: str) -> str:
    """The links next to the badge: the entry's script and notebook, saved under their names."""
    if not made:
        return ""
    from mkdocs.utils import get_relative_url

    links = [f'<a href="{get_relative_url(f.url, page_url)}" download="{Path(f.src_uri).name}">{label}</a>'
             for f, label in zip(made, ("script (.py)", "notebook (.ipynb)"))]
    return ('\n<p class="journal-downloads"><span class="journal-downloads__label">Run it yourself:</span> '
            f"{links[0]} · {links[1]}, the code this page's tests run.</p>")


# -- the script --------------------------------------------------------------------------


class _Script:
    """Lines of the .py, 1-based where a step's lines are told."""

    def __init__(self, lines: list[str]):
        self.lines = lines

    def add(self, text: str) -> range:
        start = len(self.lines) + 1
        self.lines.extend(text.rstrip("\n").split("\n"))
        return range(start, len(self.lines) + 1)

    def text(self) -> str:
        return "\n".join(self.lines).rstrip("\n") + "\n"


def _setup_code(page: Page, modules: list[tuple[str, str, str]], carried: download_data.Carried,
                imported: set[str]) -> tuple[str, list[tuple[str, str]]]:
    """Imports, start state and helpers; then [(cell id, code)]: a ``journal_file`` per file read, then a ``snippet_module`` per module."""
    seeded = [name for name in ("numpy", "torch") if name in imported]
    stdlib = ["random"]
    if carried.code or modules:
        stdlib.append("pathlib")
    if any("base64.b64decode(" in code for code in carried.code):
        stdlib.append("base64")
    if modules:
        stdlib += ["sys", "types"]
    imports = "".join("from pathlib import Path\n" if name == "pathlib" else f"import {name}\n"
                      for name in sorted(stdlib))
    if seeded:
        imports += "\n" + "".join(f"import {name}\n" for name in seeded)
    parts = [imports, start_state(seeded)]
    if carried.code or modules:
        parts.append(_HERE)
    parts += carried.helpers
    if modules:
        parts.append(_SNIPPET_HELPER)
    parts.append(_AFRESH if page.mode != "page" else "")
    code = "\n\n\n".join(p.rstrip("\n") for p in parts if p) + "\n"
    if page.mode == "page":
        code += "\n\nstart_state()\n"
    files = [(f"file-{n}", text) for n, text in enumerate(carried.code, 1)]
    return code, files + [(f"snippet-{name}", f"\n# {rel}\nsnippet_module({name!r}, {rel!r}, {_quoted(source)})\n")
                          for name, rel, source in modules]


def _quoted(source: str) -> str:
    """``source`` as a Python string literal a reader can read: raw triple quotes when they fit."""
    for q in ("'''", '"""'):
        if q not in source and not source.endswith(("\\", q[0])):
            return f"r{q}\n{source}{q}"
    return repr(source)


def _place(page: Page, step: Step, script: _Script, cells: list, prose) -> Placed:
    """Write one step and its checked output to the script and notebook; ``prose(i, j)`` adds page lines i:j as a Markdown cell."""
    line = page.where(step.parts[0].fence.start).line
    reason = _not_run(step)
    script.add(f"\n# {page.path}, line {line}" + (f": {reason}" if reason else ""))
    ids = []
    run_lines = None
    for k, part in enumerate(step.parts):
        if k:
            prose(step.parts[k - 1].fence.end + 1, part.fence.start)
        code = _code(step, part.code)
        if k == 0 and page.mode != "page" and not reason:
            code = "start_afresh()\n" + code
        if k == len(step.parts) - 1:
            code = code.rstrip("\n") + "\n" + _checked_comment(page, step)
        if reason:
            code = "\n".join("# " + ln if ln else "#" for ln in code.rstrip("\n").split("\n")) + "\n"
        if k:
            script.add(f"# (continued: {page.path}, line {page.where(part.fence.start).line})")
        lines = script.add(code)
        run_lines = range(run_lines.start if run_lines else lines.start, lines.stop)
        cell_id = f"block-{page.where(part.fence.start).line}"
        cells.append(_code_cell(code, cell_id))
        ids.append(cell_id)
    if step.math is not None:  # the checked matrix, as the page shows it: Jupyter renders $$ TeX
        tex = "\n".join(page.expanded.lines[i].strip() for i in step.math.lines)
        cells.append(_markdown_cell(tex, f"math-{step.math.origin.line}"))
    return Placed(step, range(0) if reason else run_lines, ids)


def _not_run(step: Step) -> str:
    for name in ("skip", "skipif", "xfail"):
        mark = step.mark(name)
        if mark is not None:
            why = mark.kwargs.get("reason") or (mark.args[0] if mark.args and name == "skip" else "")
            return f"{'expected to fail' if name == 'xfail' else 'skipped'} by the page tests ({why}); not run here"
    return ""


def _code(step: Step, code: str) -> str:
    if step.lang not in SHELL_LANGS:
        return code
    shell = ', executable="/bin/bash"' if step.lang == "bash" else ""
    return (f"import subprocess\n\nprint(subprocess.run({_quoted(code)}, shell=True{shell}, check=True,\n"
            "                     stdout=subprocess.PIPE, text=True).stdout, end=\"\")\n")


def _checked_comment(page: Page, step: Step) -> str:
    """The output the page checks, as comment lines (none when it checks nothing)."""
    out = []
    if step.expected_output is not None:
        at = page.where(step.expected_fence.start).line
        out.append(f"# Prints (checked by the page tests, line {at}):")
        out += ["# " + ln if ln else "#" for ln in step.expected_output.rstrip("\n").split("\n")]
    if step.math is not None:
        out.append(f"# The matrix at line {step.math.origin.line} shows a printed tensor, its numbers:")
        out += ["# " + ln for ln in textwrap.wrap(" ".join(matrix_numbers(step.math.tex)), 86)]
    return "\n".join(out) + ("\n" if out else "")


def _snippet_modules(page: Page, settings: Settings) -> list[tuple[str, str, str]]:
    """(name, path from the journal root, source) of each snippet module the code imports, followed through imports, dependencies first."""
    code = "\n".join(step.code for step in page.steps)
    dirs = list(settings.snippet_dirs)
    ordered: list[tuple[str, str, str]] = []
    done: set[str] = set()

    def visit(name: str) -> None:
        path = next((d / f"{name}.py" for d in dirs if (d / f"{name}.py").is_file()), None)
        if name in done or path is None:
            return
        done.add(name)  # before its imports: a cycle ends here
        source = path.read_text(encoding="utf-8")
        for dep in sorted(imported_names_in_text(source)):
            visit(dep)
        ordered.append((name, path.relative_to(settings.root).as_posix(), source))

    for name in sorted(imported_names_in_text(code)):
        visit(name)
    return ordered


# -- the notebook's prose ---------------------------------------------------------------


def _body_start(page: Page) -> int:
    """The first expanded line after the front matter."""
    lines = page.expanded.lines
    if lines and lines[0].strip() == "---":
        for i in range(1, len(lines)):
            if lines[i].strip() in ("---", "..."):
                return i + 1
    return 0


def _after(step: Step, last: int) -> int:
    """The last expanded line of a step: its expected-output fence or checked formula included."""
    ends = [last]
    if step.expected_fence is not None:
        ends.append(step.expected_fence.end)
    if step.math is not None:
        ends.append(step.math.lines[-1])
    return max(ends)


def _prose(page: Page, start: int, stop: int) -> str:
    """Page lines ``start:stop`` as notebook Markdown: markers and comments left out, admonitions as quotes (Jupyter lacks them)."""
    out, quote = [], None
    for line in page.expanded.lines[start:stop]:
        if _COMMENT_LINE.match(line):
            continue
        m = _ADMONITION.match(line)
        if m:
            quote = len(m["indent"]) + 4
            out.append(f"> **{m['title'] or m['kind'].capitalize()}**")
            out.append(">")
            continue
        if quote is not None:
            if line.strip() and not line.startswith(" " * quote):
                quote = None
            else:
                out.append(("> " + line[quote:]).rstrip())
                continue
        out.append(line)
    text = "\n".join(out).strip("\n")
    return re.sub(r"\n{3,}", "\n\n", text)


def _title(page: Page) -> str:
    return next((ln[2:].strip() for ln in page.expanded.lines if ln.startswith("# ")), "")


def _title_first(head: list, body: list) -> list:
    """The page's opening prose (its title) above the set-up cells, when the page opens with prose."""
    if body and body[0]["cell_type"] == "markdown":
        return [body[0], *head, *body[1:]]
    return head + body
