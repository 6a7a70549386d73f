"""5. Page doc-tests versus the same code run as plain scripts.

The Python blocks of every page under docs/ (snippet includes expanded by
journal_tools.pagetest, as the tests see them) are written as one script per
page: a ``doctest: page`` page is its blocks top to bottom; otherwise the
blocks follow each other, each after the same seeding the tests do. All the
scripts run in one interpreter (script_runner.py), so both sides
pay one interpreter start-up, one torch import. Compared with
``python -m pytest docs -p no:randomly -q`` in the same project copy.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks import common
from benchmarks.profiling import profile_cmd
from benchmarks.rows import Row

GOAL = 1.2
RUNNER = Path(__file__).with_name("script_runner.py")  # runs the page scripts in one interpreter
# pytest is given docs/ with the notebooks left out (they are page tests too, but have no
# script counterpart here: they would skew the ratio). Not the pages one by one: pytest 9
# lists a folder's files again for every file argument in it, so 1,000 entries given by name
# cost 1,000 x 1,000 collect calls (most of the measured time before this was found).
PYTEST = ["-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", "-q", "docs", "--ignore=docs/notebooks"]

_RESET = '''def _bench_reset():
    import random
    random.seed(0)
    try:
        import numpy
        numpy.random.seed(0)
    except ImportError:
        pass
    try:
        import torch
    except ImportError:
        return
    torch.manual_seed(0)
    torch.set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)


_bench_reset()
'''


def write_scripts(project: Path, dest: Path) -> tuple[list[Path], int]:
    from journal_tools.compat import mkdocs_config
    from journal_tools.core.code.parse import parse_page

    settings = mkdocs_config.load(project / "mkdocs.yml")

    dest.mkdir(parents=True, exist_ok=True)
    scripts, blocks = [], 0
    for md in sorted((project / "docs").rglob("*.md")):
        page = parse_page(md, settings)
        steps = [s for s in page.steps if s.lang in ("python", "py", "python3", "py3")
                 and not any(d.mark.name in {"skip", "skipif", "xfail"} for d in s.marks)]
        if not steps:
            continue
        chunks = [f"# {page.path}, doctest: {page.mode}\n", _RESET]
        for step in steps:
            if page.mode != "page":
                chunks.append("_bench_reset()\n")
            for part in step.parts:
                chunks.append(part.code)
                blocks += 1
        script = dest / (md.relative_to(project / "docs").as_posix().replace("/", "__")[:-3] + ".py")
        script.write_text("\n".join(chunks), encoding="utf-8")
        scripts.append(script)
    return scripts, blocks


def measure(project: Path, out: Path, repeats: int) -> Row:
    scripts, blocks = write_scripts(project, out / "page-scripts")
    runner = RUNNER
    failures: dict[str, list[str]] = {"pytest": [], "scripts": []}
    failures["pytest, FRESH=1"] = []
    common.timed([common.PYTHON, *PYTEST], cwd=project, failures=failures["pytest"])  # fills the record
    # Warm: the passed tests of unchanged pages are in the record (core/record/inputs.py), as
    # after an edit of one entry; FRESH=1 checks every page again, as a fresh clone does.
    times = common.interleaved(
        {
            "pytest": lambda: common.timed([common.PYTHON, *PYTEST], cwd=project, failures=failures["pytest"]),
            "pytest, FRESH=1": lambda: common.timed([common.PYTHON, *PYTEST], cwd=project, failures=failures["pytest, FRESH=1"],
                                                    env=dict(common.ENV, FRESH="1")),
            "scripts": lambda: common.timed([common.PYTHON, str(runner), *map(str, scripts)], cwd=project, failures=failures["scripts"]),
        },
        repeats,
    )
    t_test, t_plain = common.median(times["pytest"]), common.median(times["scripts"])
    ratio = t_test / t_plain
    # The goal holds on every run: each interleaved pair's ratio, not only the medians'.
    pairs = sorted(t / p for t, p in zip(times["pytest"], times["scripts"]))
    t_fresh = common.median(times["pytest, FRESH=1"])
    notes = [f"pytest docs {common.fmt_times(times['pytest'])} s, scripts {common.fmt_times(times['scripts'])} s "
             f"({len(scripts)} page scripts, {blocks} blocks; median of {repeats})",
             f"FRESH=1 (every render check again) {common.fmt_times(times['pytest, FRESH=1'])} s: "
             f"{t_fresh / t_plain:.2f}x the scripts",
             f"ratio per run, min/median/max: {pairs[0]:.2f} / {common.median(pairs):.2f} / {pairs[-1]:.2f}x"]
    for name, fails in failures.items():
        if fails:
            notes.append(f"WARNING: {name} run failed ({len(fails)}x), last lines:\n" + fails[-1])
    return Row(
        "5. page doc-tests / same code as plain scripts",
        f"{ratio:.2f}x ({t_test:.1f} s / {t_plain:.1f} s)",
        f"<= {GOAL}x every run",
        pairs[-1] <= GOAL,
        notes=notes,
        profile=lambda: profile_cmd(PYTEST, cwd=project, prof=out / "profile-pytest" / "pytest.prof",
                                    focus=("journal_tools", "mkdocs/config", "snippets")),
    )
