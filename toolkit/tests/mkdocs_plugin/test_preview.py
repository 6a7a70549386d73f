"""Link previews (journal_tools/mkdocs_plugin/preview.py): plain text from rendered excerpts, the tags of a post."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

from journal_tools.core.markup.mathml import tex_to_mathml
from journal_tools.mkdocs_plugin import preview


def test_a_formula_reads_as_its_tex_on_one_line():
    display = tex_to_mathml("\\frac{QK^\\top}\n{\\sqrt{d_k}} < 1", display=True)
    assert preview.plain_text(f"<p>Scores {display}, scaled.</p>") == "Scores \\frac{QK^\\top} {\\sqrt{d_k}} < 1, scaled."


def test_plain_text_keeps_what_a_reader_sees_and_drops_the_rest():
    html = ('<p>Weights <math alttext="w_{ij}"><msub><mi>w</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub></math> from '
            '<a href="#x">scores</a> &amp; <em>rows</em> (<span class="citation">(<a href="#ref-a">A, 2024</a>)</span>).</p>'
            '<svg><title>a drawing</title><text>label</text></svg><script>var x = "$";</script>'
            '<p>Second <code>x @ y</code>.</p>')
    assert preview.plain_text(html) == "Weights w_{ij} from scores & rows ((A, 2024)). Second x @ y."


def test_summary_cuts_at_a_word_within_the_limit():
    text = "words " * 40  # 159 characters would end inside a word ("wor")
    cut = preview.summary(text)
    kept = cut.removesuffix("…")
    assert len(cut) <= preview.LIMIT and cut.endswith("words…") and text.startswith(kept + " ")
    assert preview.summary("Short, as written.") == "Short, as written."
    assert preview.summary("a" * 200).endswith("…") and len(preview.summary("a" * 200)) == preview.LIMIT


def _post(meta: dict | None = None):
    created = dt.datetime(2025, 7, 27, tzinfo=dt.timezone.utc)
    return SimpleNamespace(title='An "entry"', url="blog/2025/07/27/entry/", meta=dict(meta or {}),
                           canonical_url="https://example.org/j/blog/2025/07/27/entry/",
                           config=SimpleNamespace(date=SimpleNamespace(created=created)))


def _settings():
    return SimpleNamespace(blog=SimpleNamespace(excerpt_separator="<!-- more -->"))


HTML = ('<h1 id="t">An "entry"</h1>\n<p>The excerpt with <math alttext="W^Q"><msup><mi>W</mi><mi>Q</mi></msup></math>.</p>\n'
        "<!-- more -->\n<p>The body, never in the preview.</p>")


def test_a_post_previews_as_its_excerpt():
    page = _post()
    preview.describe(page, HTML, _settings(), "The journal")
    assert page.meta["description"] == "The excerpt with W^Q."
    assert page.meta[preview.META_KEY] == [
        ("property", "og:type", "article"),
        ("property", "og:site_name", "The journal"),
        ("property", "og:title", 'An "entry"'),
        ("property", "og:description", "The excerpt with W^Q."),
        ("property", "og:url", "https://example.org/j/blog/2025/07/27/entry/"),
        ("property", "article:published_time", "2025-07-27T00:00:00+00:00"),
        ("name", "twitter:card", "summary"),
        ("name", "twitter:title", 'An "entry"'),
        ("name", "twitter:description", "The excerpt with W^Q."),
    ]


def test_the_authors_description_wins_and_no_excerpt_means_no_preview():
    page = _post({"description": "Written by the author."})
    preview.describe(page, HTML, _settings(), "The journal")
    assert page.meta["description"] == "Written by the author."
    assert ("property", "og:description", "Written by the author.") in page.meta[preview.META_KEY]
    bare = _post()
    preview.describe(bare, "<p>No separator.</p>", _settings(), "The journal")
    assert bare.meta == {}


def test_a_title_with_an_entity_previews_as_its_text():
    """A heading's title is HTML text ("&amp;" for the "&" make new writes escaped): the tags hold the
    text the <title> shows, so the template's escaping gives "&amp;", not "&amp;amp;"."""
    page = _post()
    page.title = "Keys &amp; values <em>by hand</em>"
    preview.describe(page, HTML, _settings(), "The journal")
    titles = {name: content for _, name, content in page.meta[preview.META_KEY] if name.endswith(":title")}
    assert titles == {"og:title": "Keys & values by hand", "twitter:title": "Keys & values by hand"}
