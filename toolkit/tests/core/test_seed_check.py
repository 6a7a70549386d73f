"""A checked output that depends on the seed the page tests start from fails at its block,
saying so (journal_tools/core/code/seed_check.py); a page that seeds itself passes."""

from __future__ import annotations

import pytest

from journal_tools.core.code.outputs import OutputMismatch
from journal_tools.core.code.parse import parse_page
from journal_tools.core.code.run import BlockError, ChainResult, reset_global_state
from journal_tools.core.code.seed_check import run_checked

torch = pytest.importorskip("torch", reason="the seeds in question are PyTorch's")

DROPOUT = "print(torch.nn.Dropout(0.5)(torch.ones(2, 4)))"


def _seed0_output() -> str:
    """What the block prints from the page tests' own start seed."""
    reset_global_state()
    return str(torch.nn.Dropout(0.5)(torch.ones(2, 4)))


def _page(journal, name: str, seed_line: str, shown: str, mode: str = "block"):
    settings, write = journal
    text = (f"---\ndoctest: {mode}\n---\n\n```python\nimport torch\n{seed_line}{DROPOUT}\n```\n\n"
            f"<!--pytest-codeblocks:expected-output-->\n\n```text\n{shown}\n```\n\n"
            "```python\nprint(1 + 1)\n```\n\n<!--pytest-codeblocks:expected-output-->\n\n```text\n2\n```\n")
    return parse_page(write(name, text), settings)


@pytest.mark.parametrize("mode", ["block", "page"])
def test_unseeded_output_fails_at_its_block_naming_the_seed(journal, mode):
    page = _page(journal, "d.md", "", _seed0_output(), mode)
    with pytest.raises(BlockError) as info:
        run_checked(page, page.steps if mode == "page" else page.steps[:1], ChainResult())
    first = str(info.value).split("\n")[0]
    assert first.startswith("docs/d.md:5: the output checked at line 12 changes with the seed the tests start from")
    assert "from seed 0: tensor([[" in str(info.value) and "from seed 1: tensor([[" in str(info.value)
    assert "never sets a seed before this block" in str(info.value)
    assert "update-outputs" not in str(info.value)


def test_unseeded_output_with_other_numbers_is_the_seed_not_a_mismatch(journal):
    """Output pasted from the author's own run (not seed 0): still the seed message, no update hint."""
    page = _page(journal, "o.md", "", "tensor([[9., 9., 9., 9.],\n        [9., 9., 9., 9.]])")
    with pytest.raises(BlockError) as info:
        run_checked(page, page.steps[:1], ChainResult())
    assert "changes with the seed the tests start from" in str(info.value).split("\n")[0]
    assert "update-outputs" not in str(info.value)


def test_update_outputs_does_not_rewrite_an_unseeded_output(journal):
    page = _page(journal, "u.md", "", "tensor([[9., 9., 9., 9.],\n        [9., 9., 9., 9.]])", "page")
    updates: list[OutputMismatch] = []
    with pytest.raises(BlockError, match="changes with the seed"):
        run_checked(page, page.steps, ChainResult(), updates)
    assert updates == []


def test_seeded_page_passes(journal):
    seed = "torch.manual_seed(123)\n"
    reset_global_state()
    torch.manual_seed(123)
    shown = str(torch.nn.Dropout(0.5)(torch.ones(2, 4)))
    page = _page(journal, "s.md", seed, shown, "page")
    result = run_checked(page, page.steps, ChainResult())
    assert [r.status for r in result.results] == ["passed", "passed"]


def test_a_plain_mismatch_still_advises_update_outputs(journal):
    settings, write = journal
    page = parse_page(write("m.md", "```python\nprint(3)\n```\n\n<!--pytest-codeblocks:expected-output-->\n\n"
                                    "```text\n4\n```\n"), settings)
    with pytest.raises(BlockError, match="make update-outputs"):
        run_checked(page, page.steps, ChainResult())


@pytest.mark.parametrize("seed_line, fails", [("", True), ("torch.manual_seed(3)\n", False)])
def test_a_number_in_the_text_that_changes_with_the_seed_fails_at_its_line(journal, seed_line, fails):
    settings, write = journal
    reset_global_state()
    value = f"{torch.rand(1).item():.3f}"
    text = f"```python\nimport torch\n{seed_line}r = torch.rand(1).item()\n```\n\nA draw: [{value}]{{= r :.3f}}.\n"
    page = parse_page(write("n.md", text), settings)
    if not fails:  # seeded on the page: the number written is that seed's
        torch.manual_seed(3)
        page = parse_page(write("n.md", text.replace(value, f"{torch.rand(1).item():.3f}")), settings)
        assert run_checked(page, page.steps, ChainResult()).numbers_checked == 1
        return
    with pytest.raises(BlockError, match=rf"docs/n\.md:6: the number in the text at line 6 changes with the seed the tests "
                                         rf"start from: it gives {value} from seed 0, .* from seed 1\. The page never sets a seed"):
        run_checked(page, page.steps, ChainResult())


# -- as the page tests run it: in the sandbox's worker -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sandbox():
    from journal_tools.core.code.sandbox import Sandbox

    box = Sandbox()
    yield box
    box.close()


UNSEEDED = {
    "in the block": ("", "import torch\nprint(torch.rand(2))\n"),
    # drawn when the module is first imported: a rerun that kept the module printed the same numbers, and passed
    "at a snippet module's import": ("import torch\n\nweights = torch.rand(2)\n", "from drawn import weights\nprint(weights)\n"),
}


@pytest.mark.parametrize("updating", [False, True], ids=["check", "update-outputs"])
@pytest.mark.parametrize("where", UNSEEDED)
def test_the_worker_fails_an_unseeded_output_at_its_block(journal, sandbox, where, updating):
    """`make check` of an output filled by `make update-outputs` (seed 0's numbers), and `make update-outputs` of the empty fence:
    both fail at the block naming the seed, and nothing is written back."""
    settings, write = journal
    module, code = UNSEEDED[where]
    (settings.root / "snippets" / "drawn.py").write_text(module, encoding="utf-8")
    reset_global_state()
    shown = "" if updating else str(torch.rand(2))
    page = parse_page(write("w.md", f"# W\n\n```python\n{code}```\n\n<!--pytest-codeblocks:expected-output-->\n\n"
                                    f"```text\n{shown}\n```\n"), settings)
    result, updates = ChainResult(), []
    with pytest.raises(BlockError) as info:
        sandbox.run_chain(page, page.steps, result, updates if updating else None, snippet_dirs=settings.snippet_dirs,
                          root=settings.root)
    assert str(info.value).startswith("docs/w.md:3: the output checked at line 10 changes with the seed"), str(info.value)
    assert result.failed == page.steps[0] and result.executed_fences == 1 and updates == []
