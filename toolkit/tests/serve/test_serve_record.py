"""make serve's code runner asks the judge with the one record (serve/runner.py): a chain that passed in ``make test`` runs
not again, a chain serve passes is ``make test``'s to reuse, and a prose save runs nothing. The worker is real; a block that
appends to a file outside the journal counts its runs (its seed check included)."""

from __future__ import annotations

import pytest

from journal_tools.core.code.sandbox import Sandbox
from journal_tools.core.record.inputs import Record
from journal_tools.serve.runner import run_page

PAGE = """# Training

{prose}

```python
with open({count!r}, "a") as f:
    f.write("ran\\n")
print(2 + 2)
```

<!--pytest-codeblocks:expected-output-->

```text
4
```
"""


@pytest.fixture
def sandbox():
    worker = Sandbox()
    yield worker
    worker.close()


def test_serve_reuses_and_writes_the_record_of_passed_chains(journal, sandbox, tmp_path_factory, monkeypatch):
    monkeypatch.delenv("FRESH", raising=False)
    settings, write = journal
    count = tmp_path_factory.mktemp("outside") / "runs.txt"  # outside the journal: not an input of the page

    def runs() -> int:
        return len(count.read_text().splitlines()) if count.exists() else 0

    page = write("p.md", PAGE.format(prose="Some prose.", count=str(count)))
    first = run_page(sandbox, Record(settings.root), settings, page)
    assert first["failures"] == [] and first["ran"] == 1
    assert runs() == 2  # the run and its seed check
    # serve started again (a new record object: a new session), or the page's prose saved: its pass holds, nothing runs
    write("p.md", PAGE.format(prose="Other prose, same code.", count=str(count)))
    again = run_page(sandbox, Record(settings.root), settings, page)
    assert again["failures"] == [] and again["ran"] == 1 and runs() == 2
    # a code save runs it, and its seed check
    write("p.md", PAGE.format(prose="Other prose, same code.", count=str(count)).replace("2 + 2", "2 * 2"))
    run_page(sandbox, Record(settings.root), settings, page)
    assert runs() == 4
