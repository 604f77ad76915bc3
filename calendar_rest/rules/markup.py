"""Markup by capability: what HTML a writer without ``unfiltered_html`` may store.

Administrators and editors store exactly what they send, as on a WordPress single
site. Everyone else's markup goes through nh3 (the binding to Rust's ammonia) with
WordPress's kses allow-lists (``security.md`` B): the *post* list for descriptions and
excerpts, the *inline* list for names and titles. Elements outside the list, ``on*``
and ``style`` attributes, comments, and URLs whose scheme is not one of WordPress's
allowed protocols are removed; the text around them and escaped text stay. This module
is the one place that configures it.
"""

from __future__ import annotations

import enum
import html
import re
import typing as t

import nh3

from ..models import User
from .permissions import has_cap


class Markup(enum.Enum):
    """Which allow-list a field's markup is filtered with."""

    INLINE = "inline"  # names and titles: WordPress's $allowedtags
    POST = "post"  # descriptions and excerpts: wp_kses_allowed_html('post')


GENERIC_ATTRIBUTES = {"class", "id", "title", "lang", "dir"}
TABLE_TAGS = {"table", "caption", "colgroup", "col", "thead", "tbody", "tfoot", "tr", "th", "td"}
POST_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "cite", "code", "dd", "del", "div", "dl", "dt",
    "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img",
    "ins", "li", "ol", "p", "pre", "q", "s", "small", "span", "strong", "sub", "sup", "u",
    "ul", *TABLE_TAGS,
}  # fmt: skip
POST_ATTRIBUTES = {
    "*": GENERIC_ATTRIBUTES,
    "a": {"href", "title", "rel", "target"},
    "blockquote": {"cite"},
    "img": {"src", "alt", "width", "height", "title"},
}
INLINE_TAGS = {
    "a", "abbr", "acronym", "b", "blockquote", "cite", "code", "del", "em", "i", "q", "s",
    "strike", "strong",
}  # fmt: skip
INLINE_ATTRIBUTES = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "acronym": {"title"},
    "blockquote": {"cite"},
    "del": {"datetime"},
    "q": {"cite"},
}
#: WordPress's wp_allowed_protocols(); relative URLs are kept too
URL_SCHEMES = {
    "http", "https", "ftp", "ftps", "mailto", "news", "irc", "irc6", "ircs", "gopher",
    "nntp", "feed", "telnet", "mms", "rtsp", "sms", "svn", "tel", "fax", "xmpp", "webcal",
    "urn",
}  # fmt: skip
#: attributes holding a URL, whose scheme must be an allowed one
URL_ATTRIBUTES = frozenset(
    {"href", "src", "cite", "action", "formaction", "xlink:href", "data", "poster", "longdesc"}
)
#: what WordPress's wp_kses_bad_protocol ignores when it reads a scheme
INVISIBLE = re.compile(r"[\s\x00-\x1f\x7f]+")
SCHEME = re.compile(r"^([^:/?#]*):")
ALLOW_LISTS = {
    Markup.POST: (POST_TAGS, POST_ATTRIBUTES),
    Markup.INLINE: (INLINE_TAGS, INLINE_ATTRIBUTES),
}


def sanitize(text: str, markup: Markup) -> str:
    """``text`` with only the allowed markup; text without a ``<`` holds no markup and
    is returned as it is (no entity is re-escaped)."""
    if "<" not in text:
        return text
    tags, attributes = ALLOW_LISTS[markup]
    return nh3.clean(
        text,
        tags=tags,
        attributes=attributes,
        attribute_filter=_safe_url,
        url_schemes=URL_SCHEMES,
        link_rel=None,
        strip_comments=True,
        clean_content_tags={"script", "style"},
    )


def _safe_url(element: str, attribute: str, value: str) -> str | None:
    """Drop a URL attribute whose scheme, read as WordPress reads it (entities decoded,
    white space and control characters removed, any case), is not allowed; nh3's own
    check misses schemes broken by such characters, and ``cite``."""
    if attribute not in URL_ATTRIBUTES:
        return value
    match = SCHEME.match(INVISIBLE.sub("", html.unescape(value)).lower())
    return value if match is None or match.group(1) in URL_SCHEMES else None


def as_written_by(user: User | None, text: str, markup: Markup) -> str:
    """What ``user`` may store of ``text``: all of it with ``unfiltered_html``, else the
    sanitized markup."""
    return text if has_cap(user, "unfiltered_html") else sanitize(text, markup)


#: the fields of each record whose markup is filtered, and with which list
EVENT_FIELDS = {
    "title": Markup.INLINE,
    "description": Markup.POST,
    "excerpt": Markup.POST,
    "event_status_reason": Markup.POST,
}
VENUE_FIELDS = {"venue": Markup.INLINE, "description": Markup.POST}
ORGANIZER_FIELDS = {"organizer": Markup.INLINE, "description": Markup.POST}
TERM_FIELDS = {"name": Markup.INLINE, "description": Markup.POST}


def written_fields(
    args: dict[str, t.Any], user: User | None, fields: t.Mapping[str, Markup]
) -> dict[str, t.Any]:
    """``args`` with the text of ``fields`` as ``user`` may store it (a new dict)."""
    return {
        name: as_written_by(user, value, fields[name])
        if name in fields and isinstance(value, str)
        else value
        for name, value in args.items()
    }
