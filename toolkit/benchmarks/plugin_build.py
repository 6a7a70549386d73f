"""1. Build time with the journal plugin and math extension versus the same pages on plain Material.

Both variants drop the mkdocs-jupyter plugin (and the nav entry of the
notebook, which is a page only with that plugin). The plain one also drops the
journal's two plugins (journal, journal-serve) and writes math with arithmatex
instead of the journal's math extension, as a plain Material site would. Cold
builds: a fresh interpreter each, as `make build` runs them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from benchmarks import common
from benchmarks.profiling import profile_build
from benchmarks.rows import Row

GOAL = 1.10
MATH_EXTENSIONS = ("journal_math", "journal_tools.core.markup.markdown_math")


def theme_dir() -> Path:
    """The journal plugin's template folder, in the installed package (mkdocs_plugin/theme/)."""
    from journal_tools import mkdocs_plugin

    return Path(mkdocs_plugin.__file__).resolve().parent / "theme"


def plain_theme(project: Path) -> Path:
    """The templates the plugin puts before Material's (its theme folder, and Material's templates it edits, home.html made from
    blog.html among them) in one folder, for custom_dir: the plain build renders the same pages without the plugin."""
    from journal_tools.compat import theme_patches

    folder = project / ".cache" / "bench-plain-theme"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(theme_dir(), folder)
    for name, text in theme_patches.patched_templates().items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def configs(project: Path) -> tuple[Path, Path]:
    base = common.without_notebook_nav(common.without_plugin(common.load_config(project), "mkdocs-jupyter"))
    journal = common.write_config(project, "journal", base)
    plain = common.without_plugin(common.without_plugin(base, "journal"), "journal-serve")
    plain["theme"] = dict(plain.get("theme") or {}, custom_dir=str(plain_theme(project)))
    # Plain Material writes math as arithmatex's TeX for a script to render.
    # (mkdocs.yml names the extension by its entry point, journal_math, or by its module.)
    plain["markdown_extensions"] = [{"pymdownx.arithmatex": {"generic": True}} if e in MATH_EXTENSIONS else e
                                    for e in plain.get("markdown_extensions", [])]
    return journal, common.write_config(project, "plain", plain)


def measure(project: Path, out: Path, repeats: int) -> tuple[Row, Path]:
    journal_cfg, plain_cfg = configs(project)
    sites = {"journal": out / "site-journal", "plain": out / "site-plain"}
    # The first journal build starts with an empty figure cache (the figures are
    # drawn: PyTorch and matplotlib imported in a child process): reported on its own.
    cold = common.timed_build(project, journal_cfg, sites["journal"])
    times = common.interleaved(
        {
            "journal": lambda: common.timed_build(project, journal_cfg, sites["journal"]),
            "plain": lambda: common.timed_build(project, plain_cfg, sites["plain"]),
        },
        repeats,
    )
    t_journal, t_plain = common.median(times["journal"]), common.median(times["plain"])
    ratio = t_journal / t_plain
    row = Row(
        "1. build, journal plugin / plain Material (no notebook plugin)",
        f"{ratio:.2f}x ({t_journal:.1f} s / {t_plain:.1f} s)",
        f"<= {GOAL}x",
        ratio <= GOAL,
        notes=[f"journal builds {common.fmt_times(times['journal'])} s, plain builds {common.fmt_times(times['plain'])} s "
               f"(figure cache filled, median of {repeats})",
               f"first build with an empty figure cache: {cold:.1f} s ({cold / t_plain:.2f}x plain): the figures are drawn"],
        profile=lambda: profile_build(project, journal_cfg, out / "profile-journal", focus=("journal_tools", "snippets")),
    )
    return row, sites["plain"]
