"""Each entry's ``<entry>.py``, made from the page as its tests read it: pinned needs, the tests' start state
(``start_state()``; ``start_afresh()`` before each block unless ``doctest: page``), the files its code read, the
snippet modules it imports, every block with its checked output as a comment (skipped blocks as comments). It is
a jupytext percent script (``# %%`` cells); ``<entry>.ipynb`` is made from it by jupytext, cell for cell, so both
open with the same header and ``Needs:`` line and hold the same code. From the sources alone, so every build
writes the same bytes; no MkDocs but in ``add_files``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import jupytext
from nbformat.v4 import nbjson

from journal_tools.core.code.imports import imported_names_in_text
from journal_tools.core.code.outputs import matrix_numbers
from journal_tools.core.code.parse import SHELL_LANGS, Page, Step, parse_page
from journal_tools.core.code.run import SEED
from journal_tools.core.page import editors
from journal_tools.core.page.source import read_source
from journal_tools.core.settings import Settings
from journal_tools.mkdocs_plugin import download_data, download_needs
from journal_tools.mkdocs_plugin.download_data import ReadFile

__all__ = ["FOLDER", "Download", "Placed", "ReadFile", "add_files", "ipynb_text", "links_html", "make", "notebook",
           "start_state"]

FOLDER = "downloads"  # under the site: downloads/<entry>.py, downloads/<entry>.ipynb

CELL = "# %%"  # a jupytext percent cell: the .ipynb's cells are the .py's
KERNEL = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
          "language_info": {"name": "python"}}

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
    """Where one step of the page went: the script lines that run it."""

    step: Step
    lines: range  # 1-based lines of the .py that run the step (empty: not run, shown as comments)


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


def make(path: Path, settings: Settings, data_files: Sequence[Path | ReadFile] = ()) -> Download:
    """The downloads of the page at ``path``, carrying ``data_files`` (what the tests saw its code read, never guessed)."""
    page = parse_page(path, settings)
    modules = _snippet_modules(page, settings)
    title = _title(page) or path.stem
    where = page.path
    imported = download_needs.imported_modules([step.code for step in page.steps] + [src for _, _, src in modules])
    found, missing = download_needs.needs(imported, {name for name, _, _ in modules}, settings.root / "requirements.txt")
    first = page.steps[0].origin.line if page.steps else None
    carried = download_data.carry(data_files, settings, where, first)
    marked = editors.line_ranges(read_source(path, where))  # the editors' words: the page's notice, their code said so
    header = [f"{CELL} [markdown]", f"# # {title}", "#", *_notice(page, marked), f"# The code of {where},",
              "# as its page tests run it: every block, in page order, with the snippets it",
              "# includes. It runs alone, in any folder: the snippet modules the page imports",
              "# and the files its code reads are written in below (the files are written",
              "# beside this one when it runs). Under each block whose output the page checks,",
              "# that output, as a comment. Run it: python <this file>; the .ipynb of the same",
              "# name holds the same cells (made from this file by jupytext).", "#",
              *download_needs.header_line(found, missing)]
    if page.mode != "page":
        header.append("# Each block runs on its own, as in the tests: start_afresh() begins each one.")
    setup, written_in = _setup_code(page, modules, carried, imported)
    script = _Script(header + ["", CELL] + "".join([setup, *(f"\n{CELL}{code}" for code in written_in)]).split("\n"))
    placed = [_place(page, step, script, marked) for step in page.steps]
    return Download(path.stem, script.text(), notebook(script.text()), placed, carried.too_big)


def notebook(script: str) -> str:
    """The ``.ipynb`` of a download's ``.py``: jupytext's cells of the percent script, ids by position (nbformat's are random)."""
    nb = jupytext.reads(script, fmt="py:percent")
    nb.metadata = dict(KERNEL)
    for n, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{n}"
    return ipynb_text(nb)


def ipynb_text(nb) -> str:
    """An ``.ipynb``'s text as ``nbformat.write`` lays it out, minus its schema check (0.1 s per entry; the tests validate it)."""
    return nbjson.writes(nb) + "\n"


# -- in the build (the only MkDocs of this module: imported where used) -----------------


def add_files(files, config, settings: Settings, digest=None, kept: dict | None = None,
              files_read=None) -> dict[Path, list]:
    """Each post's two downloads as generated files; an unreadable post gets none, one too big warns; ``kept`` (make serve): by digest."""
    import logging

    from mkdocs.structure.files import File

    from journal_tools.core.mistake import Mistake

    log = logging.getLogger("mkdocs.plugins.journal")
    made = {}
    for file in list(files.documentation_pages()):
        src = Path(file.abs_src_path) if file.abs_src_path else None
        if src is None or src.suffix != ".md" or not settings.is_post(src):
            continue
        read = list(files_read(settings.rel(src))) if files_read is not None else []
        key = ((digest(src), tuple(_stamps(read, settings)))
               if digest is not None and kept is not None else None)
        if key is not None and src in kept and kept[src][0] == key:
            download = kept[src][1]
        else:
            try:
                download = make(src, settings, read)
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
                imported: set[str]) -> tuple[str, list[str]]:
    """Imports, start state and helpers; then the cells writing in each file read, then each snippet module."""
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
    return code, [*carried.code, *(f"\n# {rel}\nsnippet_module({name!r}, {rel!r}, {_quoted(source)})\n"
                                   for name, rel, source in modules)]


def _quoted(source: str) -> str:
    """``source`` as a Python string literal a reader can read: raw triple quotes when they fit."""
    for q in ("'''", '"""'):
        if q not in source and not source.endswith(("\\", q[0])):
            return f"r{q}\n{source}{q}"
    return repr(source)


def _notice(page: Page, marked: list[range]) -> list[str]:
    """The page's notice of the editors' words (core/page/editors.py), as the header's first lines; none without any."""
    if not marked:
        return []
    theirs = any(_is_editors(page, step, marked) for step in page.steps)
    return [*("# " + ln for ln in textwrap.wrap(f"On the page: {editors.NOTICE}", 86)),
            *(["# A cell of the editors' code says so on its first line."] if theirs else []), "#"]


def _is_editors(page: Page, step: Step, marked: Sequence[range]) -> bool:
    """Whether ``step``'s opening fence stands inside the editors' words of the page."""
    origin = page.where(step.parts[0].fence.start)
    return origin.path == page.path and any(origin.line in r for r in marked)


def _place(page: Page, step: Step, script: _Script, marked: Sequence[range] = ()) -> Placed:
    """Write one step, a cell of its own, and its checked output to the script (the editors' code said so)."""
    line = page.where(step.parts[0].fence.start).line
    reason = _not_run(step)
    whose = ", the editors' code" if _is_editors(page, step, marked) else ""
    script.add(f"\n{CELL}\n# {page.path}, line {line}{whose}" + (f": {reason}" if reason else ""))
    run_lines = None
    for k, part in enumerate(step.parts):
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
    return Placed(step, range(0) if reason else run_lines)


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


def _title(page: Page) -> str:
    return next((ln[2:].strip() for ln in page.expanded.lines if ln.startswith("# ")), "")
