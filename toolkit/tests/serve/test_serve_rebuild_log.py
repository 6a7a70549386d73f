"""Every `make serve` rebuild ends in one log line saying whether it finished or failed.

Why: MkDocs' duplicate filter drops "Documentation built in 0.45 seconds" when an earlier build
took the same rounded time, so the serve wrapper numbers each rebuild and logs its end itself.
"""

from __future__ import annotations

import logging
from types import SimpleNamespace

from journal_tools.serve import error_pages
from journal_tools.serve.rebuild_requests import RebuildRequests
from journal_tools.serve.save_log import SaveLog


class _Server:
    def __init__(self, builder):
        self.builder = builder
        self.app = None

    def get_app(self):
        return self.app

    def set_app(self, app):
        self.app = app


def test_each_rebuild_logs_done_or_failed_even_when_equally_fast(caplog):
    outcomes = iter([None, None, RuntimeError("bad TeX in formula 'x' at docs/a.md:3")])

    def build():
        error = next(outcomes)
        if error is not None:
            raise error

    server = _Server(build)
    state = SimpleNamespace(last_error=None, build_error=None, rebuilds=0,
                            rebuild_requests=RebuildRequests(), save_log=SaveLog(settings=None))
    error_pages.install_error_pages(server, state)
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.journal.serve"):
        for _ in range(3):
            server.builder()
    lines = [r.getMessage() for r in caplog.records if r.name == "mkdocs.plugins.journal.serve"]
    assert [line.split(" in ")[0].split(";")[0] for line in lines] == ["rebuild 1 done", "rebuild 2 done", "rebuild 3 failed"]
    assert "docs/a.md:3" in lines[2] and state.build_error.startswith("bad TeX")
