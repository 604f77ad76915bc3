"""Text helpers that reproduce the WordPress string handling TEC's REST v1 output relies on.

TEC serialises ``description``/``excerpt`` through ``wpautop``, builds slugs with
``sanitize_title`` and HTML-escapes JSON-LD text; clients compare these strings verbatim,
so the rules here follow WordPress rather than any "nicer" formatting.
"""

from __future__ import annotations

import html as _html
import re
import unicodedata

__all__ = [
    "first_free",
    "fold",
    "json_ld_escape",
    "slugify",
    "strip_tags",
    "transliterate",
    "wpautop",
]

_BLOCK_TAGS = (
    "p|div|ul|ol|li|table|h[1-6]|blockquote|pre|section|article|figure|hr|form|dl|address"
    "|aside|header|footer|nav|details|fieldset"
)
# A paragraph that already opens (or closes) a block element must not be wrapped in <p>,
# otherwise we would emit invalid nesting such as <p><ul>…</ul></p>.
_STARTS_WITH_BLOCK = re.compile(rf"^</?(?:{_BLOCK_TAGS})\b", re.IGNORECASE)
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\f\v]*\n\s*")

# Tags are only "<" followed by a letter, "/", "!" or "?" so that text such as "a < b" survives.
_TAG = re.compile(r"<[A-Za-z/!?][^>]*>")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_SCRIPT_STYLE = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.DOTALL | re.IGNORECASE)
# Block-level tags and <br> separate words visually, so they become a space rather than "".
_BLOCK_OR_BR_TAG = re.compile(rf"</?(?:{_BLOCK_TAGS}|br|td|th|tr|dt|dd)\b[^>]*>", re.IGNORECASE)
_WHITESPACE = re.compile(r"\s+")

# Letters NFKD cannot decompose but WordPress's remove_accents() still transliterates.
_TRANSLITERATE = str.maketrans(
    {
        "ß": "ss", "Æ": "AE", "æ": "ae", "Ø": "O", "ø": "o", "Œ": "OE", "œ": "oe",
        "Đ": "D", "đ": "d", "Ð": "D", "ð": "d", "Ł": "L", "ł": "l", "Þ": "TH", "þ": "th",
        "ı": "i", "Ħ": "H", "ħ": "h",
        # Typographic dashes act as word separators, as in sanitize_title_with_dashes().
        "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-",
        "\u2015": "-", "\u2212": "-",
    }
)  # fmt: skip
_SLUG_DISALLOWED = re.compile(r"[^a-z0-9\s_./\\-]")
_SLUG_SEPARATORS = re.compile(r"[\s_./\\-]+")


def wpautop(text: str) -> str:
    """Wrap plain-text paragraphs in ``<p>`` like WordPress so descriptions match TEC byte-for-byte.

    Blank lines separate paragraphs; single newlines inside a wrapped paragraph become
    ``<br />``. Paragraphs that already start with a block-level tag are left untouched.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        return ""
    paragraphs: list[str] = []
    for chunk in _PARAGRAPH_BREAK.split(text):
        chunk = chunk.strip()
        if not chunk:
            continue
        if _STARTS_WITH_BLOCK.match(chunk):
            paragraphs.append(chunk)
            continue
        lines = [line.rstrip() for line in chunk.split("\n")]
        paragraphs.append("<p>" + "<br />\n".join(lines) + "</p>")
    return "\n".join(paragraphs).rstrip()


def slugify(text: str, max_length: int = 200) -> str:
    """Build a URL slug the way WordPress's ``sanitize_title`` does, so generated slugs match TEC.

    Returns "" when nothing ASCII survives (e.g. purely CJK titles) so the caller can fall
    back to another slug source instead of publishing an empty or odd one.
    """
    if max_length < 1:
        raise ValueError("max_length must be at least 1")
    ascii_text = _SLUG_DISALLOWED.sub("", fold(_html.unescape(_TAG.sub("", text))))
    slug = _SLUG_SEPARATORS.sub("-", ascii_text).strip("-")
    return slug[:max_length].rstrip("-")


def first_free(base: str, taken: set[str]) -> str:
    """``base`` if it is not ``taken``, else the first free ``base-2``, ``base-3``…
    (WordPress's ``wp_unique_post_slug`` and ``wp_unique_term_slug`` suffixes)."""
    if base not in taken:
        return base
    number = 2
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"


def transliterate(text: str) -> str:
    """Latin letters NFKD cannot decompose spelled out ("ß" → "ss", "Æ" → "AE"), and
    typographic dashes made hyphens, as WordPress's ``remove_accents()`` does."""
    return text.translate(_TRANSLITERATE)


def fold(text: str) -> str:
    """Lower-case ASCII transliteration ("Café Crème" → "cafe creme"): the form of
    slugs (search words keep every script: see ``search.fold``)."""
    decomposed = unicodedata.normalize("NFKD", transliterate(text))
    ascii_text = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _WHITESPACE.sub(" ", ascii_text).encode("ascii", "ignore").decode("ascii").lower()


def strip_tags(html: str) -> str:
    """Reduce HTML to plain text for search indexing and JSON-LD.

    Script/style bodies and comments are dropped entirely; block-level tags and ``<br>`` turn
    into spaces so "<p>a</p><p>b</p>" yields "a b" rather than "ab".
    """
    text = _COMMENT.sub("", html)
    text = _SCRIPT_STYLE.sub(" ", text)
    text = _BLOCK_OR_BR_TAG.sub(" ", text)
    text = _html.unescape(_TAG.sub("", text))
    return _WHITESPACE.sub(" ", text).strip()


def json_ld_escape(text: str) -> str:
    """Escape ``&``, ``<`` and ``>`` as TEC does for JSON-LD ``description`` (quotes untouched).

    TEC additionally leaves a literal backslash-n after the text; that quirk is deliberately
    not reproduced.
    """
    return _html.escape(text, quote=False)
