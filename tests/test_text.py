"""Tests for calendar_rest.text: WordPress-compatible string helpers."""

from __future__ import annotations

import pytest

from calendar_rest.wordpress.text import json_ld_escape, slugify, strip_tags, wpautop


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("A mid-size concert hall.", "<p>A mid-size concert hall.</p>"),
        ("<p>Live jazz trio.</p>", "<p>Live jazz trio.</p>"),
        ("a\n\nb", "<p>a</p>\n<p>b</p>"),
        ("a\nb", "<p>a<br />\nb</p>"),
        ("", ""),
        ("   \n\n  ", ""),
        ("  padded  ", "<p>padded</p>"),
        ("a\r\n\r\nb", "<p>a</p>\n<p>b</p>"),
        ("a\r\nb", "<p>a<br />\nb</p>"),
        ("a\rb", "<p>a<br />\nb</p>"),
        ("a\n\n\n\nb", "<p>a</p>\n<p>b</p>"),
        ("a\n   \nb", "<p>a</p>\n<p>b</p>"),
        ("a  \nb", "<p>a<br />\nb</p>"),
        ("<strong>Bold</strong> move", "<p><strong>Bold</strong> move</p>"),
        ('<a href="/x">link</a>', '<p><a href="/x">link</a></p>'),
        ("<em>x</em>\n\n<span>y</span>", "<p><em>x</em></p>\n<p><span>y</span></p>"),
        ("<ul>\n<li>one</li>\n</ul>", "<ul>\n<li>one</li>\n</ul>"),
        ("Intro\n\n<h2>Title</h2>\n\nOutro", "<p>Intro</p>\n<h2>Title</h2>\n<p>Outro</p>"),
        ("<DIV>upper</DIV>", "<DIV>upper</DIV>"),
        ("<pre>code\nblock</pre>", "<pre>code\nblock</pre>"),
        ("<hr/>\n\ntext", "<hr/>\n<p>text</p>"),
        ("<param>x</param>", "<p><param>x</param></p>"),
        ("<picture>img</picture>", "<p><picture>img</picture></p>"),
    ],
)
def test_wpautop(raw: str, expected: str) -> None:
    assert wpautop(raw) == expected


@pytest.mark.parametrize(
    "tag",
    [
        "p", "div", "ul", "ol", "li", "table", "h1", "h2", "h3", "h4", "h5", "h6",
        "blockquote", "pre", "section", "article", "figure", "hr", "form", "dl", "address",
        "aside", "header", "footer", "nav", "details", "fieldset",
    ],
)  # fmt: skip
def test_wpautop_leaves_block_tags_unwrapped(tag: str) -> None:
    raw = f"<{tag} class='x'>content</{tag}>"
    assert wpautop(raw) == raw


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Jazz Night", "jazz-night"),
        ("Python Workshop (Advanced)", "python-workshop-advanced"),
        ("  Rock & Roll!  ", "rock-roll"),
        ("Ünïcödé", "unicode"),
        ("Café Crème", "cafe-creme"),
        ("<b>Bold</b> Title", "bold-title"),
        ("Rock &amp; Roll", "rock-roll"),
        ("snake_case.and/slash\\back", "snake-case-and-slash-back"),
        ("a -- b __ c", "a-b-c"),
        ("---edge---", "edge"),
        ("Straße Ærø", "strasse-aero"),
        ("Jazz \u2013 Night", "jazz-night"),
        ("2024\u20132025 Season", "2024-2025-season"),
        ("Don't Stop", "dont-stop"),
        ("tab\tand\nnewline\u00a0nbsp", "tab-and-newline-nbsp"),
        ("東京", ""),
        ("!!!", ""),
        ("", ""),
        ("Ｆｕｌｌｗｉｄｔｈ", "fullwidth"),
    ],
)
def test_slugify(raw: str, expected: str) -> None:
    assert slugify(raw) == expected


@pytest.mark.parametrize(
    ("raw", "max_length", "expected"),
    [
        ("jazz night", 4, "jazz"),
        ("jazz night", 5, "jazz"),  # would end in "-": trimmed
        ("jazz night", 6, "jazz-n"),
        ("a" * 300, 200, "a" * 200),
    ],
)
def test_slugify_max_length(raw: str, max_length: int, expected: str) -> None:
    assert slugify(raw, max_length=max_length) == expected


def test_slugify_default_max_length_is_200() -> None:
    assert len(slugify("word " * 100)) <= 200
    assert not slugify("word " * 100).endswith("-")


def test_slugify_rejects_non_positive_max_length() -> None:
    with pytest.raises(ValueError):
        slugify("x", max_length=0)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("<p>Live jazz trio.</p>", "Live jazz trio."),
        ("<p>a</p><p>b</p>", "a b"),
        ("line<br />break", "line break"),
        ("<strong>Jazz</strong>y", "Jazzy"),
        ("Rock &amp; Roll &lt;3", "Rock & Roll <3"),
        ("caf&eacute; &#8211; &nbsp;x", "café – x"),
        ("  lots \n\n of \t space  ", "lots of space"),
        ("<script>alert('x')</script>safe", "safe"),
        ("<STYLE type='text/css'>p {color: red}</STYLE>text", "text"),
        ("a<!-- hidden -->b", "ab"),
        ("1 < 2 and 3 > 2", "1 < 2 and 3 > 2"),
        ('<a href="https://x.test/?a=1&amp;b=2">link</a>', "link"),
        ("", ""),
        ("plain", "plain"),
    ],
)
def test_strip_tags(raw: str, expected: str) -> None:
    assert strip_tags(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("<p>Live jazz trio.</p>", "&lt;p&gt;Live jazz trio.&lt;/p&gt;"),
        ("Rock & Roll", "Rock &amp; Roll"),
        ("\"quoted\" 'single'", "\"quoted\" 'single'"),
        ("line\nbreak", "line\nbreak"),
        ("&amp;", "&amp;amp;"),
        ("", ""),
    ],
)
def test_json_ld_escape(raw: str, expected: str) -> None:
    assert json_ld_escape(raw) == expected


def test_json_ld_escape_of_wpautop_description() -> None:
    # Real capture minus TEC's trailing literal "\\n", which we deliberately do not emit.
    assert json_ld_escape(wpautop("<p>Live jazz trio.</p>")) == "&lt;p&gt;Live jazz trio.&lt;/p&gt;"
