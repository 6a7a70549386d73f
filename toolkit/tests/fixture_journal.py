"""The fixture journal (fixtures/journal/): the build tests build this one, never the author's docs/; and the
suite's helpers for small journals and nested runs."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from journal_tools.core.required_settings import REQUIRED, Required
from journal_tools.testing.site import _IGNORE, ROOT, with_checkout_state

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "journal"


def fixture_project(dst: Path, src: Path = ROOT, *, caches: bool = True) -> Path:
    """The fixture journal in ``dst`` (created), built as a journal builds its site; the pins
    (requirements.txt) and the math font come from ``src``, the checkout the suite runs in.

    ``caches=False``: without the stored build caches, for tests of the caches themselves. Its checks
    of the built site are the toolkit plugin's, collected from its mkdocs.yml."""
    dst.mkdir(parents=True, exist_ok=True)
    for name in ("mkdocs.yml", "pyproject.toml"):
        shutil.copy2(FIXTURE / name, dst / name)
    shutil.copy2(src / "requirements.txt", dst / "requirements.txt")
    for name in ("docs", "snippets"):
        shutil.copytree(FIXTURE / name, dst / name, ignore=_IGNORE)
    return with_checkout_state(dst, src, caches=caches)


def without_notebook_execution(project: Path) -> Path:
    """Make ``project``'s notebooks render without running (``execute: false``), for builds whose test is not about notebooks."""
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    config.write_text(re.sub(r"(?m)^(\s+execute:\s*)true\b", r"\1false", text), encoding="utf-8")
    return project


def minimal_extensions(required: tuple[Required, ...] = REQUIRED) -> list:
    """markdown_extensions entries meeting ``required``, as mkdocs.yml lists them: what a small journal (a test's) starts from."""
    entries = []
    for name in dict.fromkeys(r.extension for r in required):
        options = {r.option: r.value for r in required if r.extension == name and r.option is not None}
        entries.append({name: options} if options else name)
    return entries


def junit_outcomes(report: Path) -> tuple[list[tuple[str, str]], list[str], int]:
    """From pytest's ``--junitxml``: (test id, first report line) of each failure, the ids of errors, the number of tests."""
    failed, errors, total = [], [], 0
    for case in ET.parse(report).getroot().iter("testcase"):
        total += 1
        name = f"{case.get('classname')}::{case.get('name')}"
        for failure in case.findall("failure"):
            text = (failure.text or failure.get("message") or "").strip()
            failed.append((name, text.split("\n", 1)[0]))
        errors += [name for _ in case.findall("error")]
    return failed, errors, total
