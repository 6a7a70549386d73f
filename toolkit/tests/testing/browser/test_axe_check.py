"""The accessibility check of the built site (journal_tools/testing/checks/browser/axe.py) can fail."""

from __future__ import annotations

from journal_tools.testing.checks.browser.axe import axe_violations


def test_axe_check_catches_a_bad_page(browser):
    """The check above can fail: a page with a link told apart by colour only,
    faint text, a wide box that scrolls but takes no focus and an unnamed dialog."""
    context = browser.new_context(viewport={"width": 390, "height": 600})
    try:
        page = context.new_page()
        page.set_content(
            '<html lang="en"><head><title>bad</title></head><body><main>'
            '<p style="color:#333">Dark text with a <a href="#x" style="color:#3a3a8a;text-decoration:none">'
            'link told apart by colour</a> only, and <span style="color:#aaa">faint words</span>.</p>'
            '<div style="overflow-x:auto;width:200px">'
            '<p style="width:900px;margin:0">wide content, read only by scrolling sideways</p></div>'
            '<div role="dialog">no name</div>'
            "</main></body></html>"
        )
        ids = {v["id"] for v in axe_violations(page)}
    finally:
        context.close()
    assert {"color-contrast", "link-in-text-block", "scrollable-region-focusable", "aria-dialog-name"} <= ids, ids
