"""What some tests need from the machine that pip does not install: Debian's Chromium
(checks/browser/) and the math font (``python -m journal_tools.mkdocs_plugin.fonts install``, run by
``make setup`` from the npm registry). Missing, the test skips on a developer's
machine and FAILS under CI=true, where set-up installs both (.ci/run, the workflow,
the Makefile's font rule): a CI run that silently skipped them would prove nothing."""

from __future__ import annotations

import pytest

from journal_tools.core.settings import env_flag


def in_ci() -> bool:
    """Is this a CI run (CI=true, as GitHub Actions and .ci/run set it)?"""
    return env_flag("CI")


def require(present: bool, reason: str) -> None:
    """Go on if ``present``; else skip the test, or fail it under CI, saying ``reason``."""
    if present:
        return
    if in_ci():
        pytest.fail(f"CI: {reason}", pytrace=False)
    pytest.skip(reason)


FONT_MISSING = "math font not installed (make setup runs python -m journal_tools.mkdocs_plugin.fonts install; it needs npm)"
