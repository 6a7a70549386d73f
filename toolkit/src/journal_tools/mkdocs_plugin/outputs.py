"""Printed outputs shown as outputs, one way on every page: an expected-output fence is marked (journal.css gives
it an "Output" label and the notebook's style; ``no-copy``: Material adds no copy button), and an output that a
checked matrix follows is folded under the matrix, so a tensor is shown once, typeset. Every checked matrix says
so under it ("Numbers checked against ..."): the mark docs/verified.md tells a reader to look for.
"""

from __future__ import annotations

import re

__all__ = ["CHECKED", "mark_outputs"]

CHECKED = "Numbers checked against"  # how every checked matrix's line under it starts

# The fence after the marker, as pymdownx.highlight writes it: <div class="language-text highlight"><pre>...</pre></div>.
_OUTPUT = re.compile(r'<!--\s*pytest-codeblocks:expected-output(?:-ignore-whitespace)?\s*-->\s*'
                     r'<div class="(?P<classes>[^"]*\bhighlight\b[^"]*)"(?P<rest>.*?</pre></div>)', re.S)
# A marked output, then the checked matrix's box (core/markup/markdown_math.py; a formula holds no </div>).
_CHECKED = re.compile(r'(?P<output><div class="[^"]*\bjournal-output\b(?:(?!</pre></div>).)*</pre></div>)\s*'
                      r'(?P<marker><!--\s*journal:expected-math\b.*?-->)\s*'
                      r'(?P<matrix><div [^>]*\bclass="math-display".*?</div>)', re.S)


# A checked matrix no printed output stands right above (it names one printed earlier: tensor=...).
_LONE = re.compile(r'(?P<marker><!--\s*journal:expected-math\b.*?-->)\s*'
                   r'(?P<matrix><div [^>]*\bclass="math-display".*?</div>)(?!\s*<details class="journal-printed">)', re.S)


def mark_outputs(html: str) -> str:
    """``html`` with every expected output marked, each one a checked matrix follows folded under it, and every
    checked matrix saying so under it."""
    html = _OUTPUT.sub(lambda m: f'<div class="{m["classes"]} journal-output no-copy"{m["rest"]}', html)
    html = _CHECKED.sub(lambda m: f'{m["marker"]}\n{m["matrix"]}\n<details class="journal-printed">'
                                  f'<summary>{CHECKED} this printed output</summary>\n{m["output"]}\n</details>', html)
    return _LONE.sub(lambda m: f'{m["marker"]}\n{m["matrix"]}\n<p class="journal-printed" data-search-exclude>'
                               f"{CHECKED} what the code above prints</p>", html)
