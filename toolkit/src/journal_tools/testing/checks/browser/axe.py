"""Accessibility of every built page, measured by axe-core in Chromium.

axe-core comes bundled with `axe-playwright-python` (pinned in
requirements.txt; 0.1.8 ships axe-core 4.12.1). Every HTML page of the
session's build is loaded in the light and the dark palette (the browser's
prefers-color-scheme, which Material's palette follows), at 1280 px and at
390 px, each on a load other checks share (light at 1280 px: pages.py's check of
every page; 390 px: phones.py), and axe runs on the page as the reader gets it,
after Material's scripts have run. A page fails on:

- any violation of impact "serious" or "critical" (contrast, links told apart
  by colour only, scroll regions out of keyboard reach, unnamed dialogs, ...);
- `landmark-unique` (moderate in axe): two navigation landmarks with the same
  name, which screen-reader users cannot tell apart.

The failure lists each rule with its impact, the page, the configuration and
the offending nodes (CSS selector, HTML, axe's reason).
"""

from __future__ import annotations

import re

from axe_playwright_python.sync_playwright import Axe

FAIL_IMPACTS = {"serious", "critical"}
FAIL_RULES = {"landmark-unique"}
WIDTH = 1280  # 390 px: checks/browser/phones.py

_AXE = Axe()


def axe_violations(page) -> list[dict]:
    """axe's violations on ``page`` that fail the site (see the module doc)."""
    result = _AXE.run(page)
    return [v for v in result.response["violations"] if v["impact"] in FAIL_IMPACTS or v["id"] in FAIL_RULES]


def _node_text(html: str) -> str:
    """The first words a node shows (its tags left out): what its source line holds."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())[:40]


def describe(violations: list[dict], where: str, sources=None, site=None, rel: str = "", max_nodes: int = 8) -> list[str]:
    """One line per violation at the page's source ``file:line`` (its first node's text, else line 1), one per node at its own line."""
    lines = []
    for v in violations:
        first = v["nodes"][0]["html"] if v["nodes"] else ""
        at = f"{sources.text(site, rel, _node_text(first))}: " if sources is not None else ""
        lines.append(f"{at}{v['id']} ({v['impact']}) on {where}: {v['help']} [{len(v['nodes'])} nodes]; "
                     "mend the page's text or markup at that line (or the site's theme, when no line of the page holds it)")
        for node in v["nodes"][:max_nodes]:
            reasons = [c["message"] for c in node.get("any", []) + node.get("all", []) + node.get("none", [])]
            html = " ".join(node["html"].split())[:160]
            own = f" ({sources.text(site, rel, _node_text(node['html']))})" if sources is not None else ""
            lines.append(f"    {' '.join(node['target'])}{own}: {html}")
            if reasons:
                lines.append(f"      - {reasons[0][:200]}")
        if len(v["nodes"]) > max_nodes:
            lines.append(f"    ... and {len(v['nodes']) - max_nodes} more")
    return lines

SCHEMES = {"light": "default", "dark": "slate"}  # browser preference -> Material's scheme


def test_every_page_passes_axe_in_the_dark_palette(built, server, visit, page_checks, sources):
    """The light palette's run at 1280 px shares the load of pages.py's check of every page."""
    width, scheme = WIDTH, "dark"
    pages = [p.relative_to(built.site).as_posix() for p in built.html_pages()
             if "screenshots" not in p.relative_to(built.site).parts]
    assert "index.html" in pages
    v = visit(color_scheme=scheme)
    v.page.set_viewport_size({"width": width, "height": 900})
    problems: list[str] = []
    counts: dict[str, int] = {}
    for rel in pages:
        if page_checks.reused(rel) is not None:
            continue
        v.load(rel, SCHEMES[scheme])
        found = axe_violations(v.page)
        for violation in found:
            counts[violation["id"]] = counts.get(violation["id"], 0) + len(violation["nodes"])
        problems += describe(found, f"{rel} ({scheme}, {width}px)", sources, built.site, rel)
        if not found:
            page_checks.passed(rel, v.fetched)
    print(f"\naxe on {len(pages)} pages, {scheme}, {width}px{page_checks.note()}")
    assert not problems, (f"axe: {counts} (rule: nodes) over {len(pages)} pages, {scheme}, {width}px\n"
                          + "\n".join(problems))
