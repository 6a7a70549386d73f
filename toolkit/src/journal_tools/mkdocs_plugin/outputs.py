"""Printed outputs shown as outputs, one way on every page: an expected-output fence is marked (journal.css gives
it an "Output" label and the notebook's style; ``no-copy``: Material adds no copy button), and an output that a
checked matrix follows is folded under the matrix, so a tensor is shown once, typeset.
"""

from __future__ import annotations

import re

__all__ = ["mark_outputs"]

# The fence after the marker, as pymdownx.highlight writes it: <div class="language-text highlight"><pre>...</pre></div>.
_OUTPUT = re.compile(r'<!--\s*pytest-codeblocks:expected-output(?:-ignore-whitespace)?\s*-->\s*'
                     r'<div class="(?P<classes>[^"]*\bhighlight\b[^"]*)"(?P<rest>.*?</pre></div>)', re.S)
# A marked output, then the checked matrix's box (core/markup/markdown_math.py; a formula holds no </div>).
_CHECKED = re.compile(r'(?P<output><div class="[^"]*\bjournal-output\b(?:(?!</pre></div>).)*</pre></div>)\s*'
                      r'(?P<marker><!--\s*journal:expected-math\b.*?-->)\s*'
                      r'(?P<matrix><div [^>]*\bclass="math-display".*?</div>)', re.S)


def mark_outputs(html: str) -> str:
    """``html`` with every expected output marked, and each one a checked matrix follows folded under it."""
    html = _OUTPUT.sub(lambda m: f'<div class="{m["classes"]} journal-output no-copy"{m["rest"]}', html)
    return _CHECKED.sub(lambda m: f'{m["marker"]}\n{m["matrix"]}\n<details class="journal-printed">'
                                  f'<summary>Printed output</summary>\n{m["output"]}\n</details>', html)
