"""4. Build time of a synthetic journal: t(large) / t(small) entries.

Entries are generated into a copy of the project (next to the real ones),
each like a real entry: front matter (date, category, tags, author), an
excerpt before ``<!-- more -->``, a few paragraphs, inline and display math
with a bmatrix, a Python block that prints and its expected-output fence.
The mkdocs-jupyter plugin is left out (a constant cost, measured in 3), the
journal plugin is in. Each build writes a fresh site folder, as `make build`
does; the real entries' figures are drawn into the cache first (row 1 reports
the cold first build). Row 4b: the large journal on plain Material.
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

from benchmarks import common
from benchmarks.profiling import profile_build
from benchmarks.rows import Row
from journal_tools.core.record.inputs import Record

GOAL = 12.0
CATEGORIES = ["Attention", "Foundations", "Study notes"]
TOPICS = ["tokens", "embeddings", "attention", "softmax", "layer norm", "dropout", "residuals", "sampling"]


def entry(i: int) -> tuple[str, str]:
    day = dt.date(2015, 1, 1) + dt.timedelta(days=i)
    topic = TOPICS[i % len(TOPICS)]
    a, b, c, d = (round(0.1 * ((i + k) % 9 + 1), 1) for k in range(4))
    values = [round(0.01 * ((i * 7 + k) % 100), 2) for k in range(3 + i % 3)]
    total = round(sum(values), 2)
    code = f"values = {values!r}\nprint(len(values), round(sum(values), 2))\n"
    printed = f"{len(values)} {total}"
    text = f"""---
date: {day.isoformat()}
categories:
  - {CATEGORIES[i % len(CATEGORIES)]}
tags:
  - synthetic
  - {topic}
authors:
  - author
---

# Synthetic entry {i}: {topic}

Entry {i} works through {topic} with a small example. The inputs $x_i \\in \\mathbb{{R}}^{{d}}$
are rows of $X$, and each step is checked by the code below.

<!-- more -->

The scores come from queries and keys, $s_{{ij}} = q_i^\\top k_j / \\sqrt{{d_k}}$, and are
normalised along each row. For a two-by-two case the matrix is

$$
A = \\begin{{bmatrix}} {a} & {b} \\\\ {c} & {d} \\end{{bmatrix}}
$$

and the weighted sum of the values is

$$\\operatorname{{softmax}}\\!\\left(\\frac{{QK^\\top}}{{\\sqrt{{d_k}}}}\\right)V$$

A short computation, run by the page tests:

```python
{code}```

<!--pytest-codeblocks:expected-output-->
```text
{printed}
```

What to remember from entry {i}: the shapes have to line up, $(n \\times d)(d \\times n)$
gives an $n \\times n$ matrix of scores, and every row of the weights sums to one.
The next entry picks up {TOPICS[(i + 1) % len(TOPICS)]}.
"""
    return f"{day.isoformat()}-synthetic-{i}.md", text


def make_project(base: Path, dest: Path, n: int) -> Path:
    top_level = shutil.ignore_patterns("site*", "profile*", "mkdocs.bench-*")  # the base's outputs, not site_assets.py

    def ignore(folder, names):
        return top_level(folder, names) if Path(folder) == Path(base) else set()

    shutil.copytree(base, dest, symlinks=True, ignore=ignore)
    posts = dest / "docs" / "blog" / "posts"
    posts.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        name, text = entry(i)
        (posts / name).write_text(text, encoding="utf-8")
    config = common.without_notebook_nav(common.without_plugin(common.load_config(dest), "mkdocs-jupyter"))
    common.write_config(dest, "synthetic", config)
    fill_figure_cache(dest)
    return dest


def fill_figure_cache(project: Path) -> None:
    """Draw the real entries' figures into the project's cache first: every timed build
    then finds them there, as row 1's do (the cold first build is row 1's own note)."""
    from journal_tools.compat import mkdocs_config
    from journal_tools.core.code import figures

    settings = mkdocs_config.load(project / "mkdocs.yml")
    refs = [ref for md in sorted(settings.docs_dir.rglob("*.md"))
            for ref in figures.find_figures(md.read_text(encoding="utf-8"), str(md))]
    figures.prepare(refs, list(settings.snippet_dirs), Record(settings.root))


def measure(base: Path, out: Path, sizes: tuple[int, int], repeats: tuple[int, int]) -> list[Row]:
    """Rows 4 (how the build grows) and 4b (the plugin's overhead at the large size)."""
    from benchmarks.plugin_build import GOAL as PLUGIN_GOAL
    from benchmarks.plugin_build import configs

    small, large = sizes
    projects = {n: make_project(base, out / f"synthetic-{n}", n) for n in sizes}
    _, plain_cfg = configs(projects[large])  # the same pages on plain Material, as row 1 builds them
    def cfg(n):
        return projects[n] / "mkdocs.bench-synthetic.yml"
    def build(n):
        if n == "plain":
            return common.timed_build(projects[large], plain_cfg, out / "site-synthetic-plain")
        return common.timed_build(projects[n], cfg(n), out / f"site-synthetic-{n}")
    times: dict = {small: [], large: [], "plain": []}
    # small, large, plain, small, large, plain ... as many as each size's repeats.
    order = []
    for r in range(max(repeats)):
        order += [n for n, k in zip(sizes, repeats) if r < k] + (["plain"] if r < repeats[1] else [])
    for n in order:
        times[n].append(build(n))
    t_s, t_l, t_p = common.median(times[small]), common.median(times[large]), common.median(times["plain"])
    ratio = t_l / t_s
    overhead = Row(
        f"4b. build, {large} entries, journal plugin / plain Material",
        f"{t_l / t_p:.2f}x ({t_l:.1f} s / {t_p:.1f} s)",
        f"<= {PLUGIN_GOAL:g}x",
        t_l / t_p <= PLUGIN_GOAL,
        notes=[f"journal {common.fmt_times(times[large])} s, plain {common.fmt_times(times['plain'])} s "
               "(fresh site folders, figures cached, no notebook plugin, interleaved)"],
    )
    return [Row(
        f"4. build, synthetic journal t({large})/t({small}) entries",
        f"{ratio:.2f}x ({t_l:.1f} s / {t_s:.1f} s)",
        f"<= {GOAL:g}",
        ratio <= GOAL,
        notes=[f"{small} entries {common.fmt_times(times[small])} s, {large} entries {common.fmt_times(times[large])} s "
               f"(fresh site folders, figures cached, journal plugin on, no notebook plugin); {t_l / large * 1000:.0f} ms per entry at {large}"],
        profile=lambda: profile_build(projects[large], cfg(large), out / "profile-synthetic", focus=("journal_tools", "material", "mkdocs_rss_plugin")),
    ), overhead]
