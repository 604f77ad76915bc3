"""Text parameters: strings, choices out of a fixed set (the language, a post
status), and strings that ``""`` clears or that must be a time zone or a URL.
"""

from __future__ import annotations

import abc
import typing as t
from urllib.parse import urlsplit

from ...dates import is_valid_timezone
from ..messages import N_
from .base import JsonSchema, WPField

LANGUAGES = ("en", "fr")
MAX_URL = 700
WRITABLE_STATUSES = ("publish", "future", "draft", "pending", "private")


class String(WPField):
    """A real string (a JSON number is not one). ``allow_empty=False`` refuses "" and,
    unless ``allow_blank``, white space only."""

    def __init__(
        self,
        *,
        allow_empty: bool = False,
        allow_blank: bool = False,
        max_length: int = 0,
        **kw: t.Any,
    ) -> None:
        super().__init__(**kw)
        self.allow_empty = allow_empty
        self.allow_blank = allow_blank
        self.max_length = max_length

    def json_schema(self) -> JsonSchema:
        schema: JsonSchema = {"type": "string"}
        if not self.allow_empty:
            schema["minLength"] = 1
        if self.max_length:
            schema["maxLength"] = self.max_length
        return schema

    def _deserialize(self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any) -> str:
        if not isinstance(value, str):
            raise self.fail("not_string")
        if not self.allow_empty and not (value if self.allow_blank else value.strip()):
            raise self.fail("empty")
        if (self.max_length and len(value) > self.max_length) or "\x00" in value:
            raise self.fail("invalid")  # no database stores NUL; columns have limits
        return value


class Choice(String):
    """One string out of a fixed set."""

    def __init__(self, choices: t.Sequence[str], **kwargs: t.Any) -> None:
        super().__init__(**kwargs)
        self.choices = tuple(choices)

    def json_schema(self) -> JsonSchema:
        return {"type": "string", "enum": list(self.choices)}

    def _deserialize(self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any) -> str:
        text = super()._deserialize(value, attr, data, **kw)
        if text not in self.choices:
            raise self.fail("not_one_of", choices=" and ".join(self.choices))
        return text


class Language(Choice):
    """``i18n_language``, the language selector every route takes."""

    def __init__(self, **kwargs: t.Any) -> None:
        kwargs.setdefault("help", N_("The language of the request"))
        super().__init__(LANGUAGES, **kwargs)


class Status(WPField):
    """A post status a client may set (``trash`` only through DELETE)."""

    def json_schema(self) -> JsonSchema:
        return {"type": "string", "enum": list(WRITABLE_STATUSES)}

    def _deserialize(self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any) -> str:
        if not isinstance(value, str) or value.strip() not in WRITABLE_STATUSES:
            raise self.fail("bad_status")
        return value.strip()


class OptionalText(WPField):
    """A string that ``""`` clears, or else must be ``acceptable`` (surrounding white
    space is ignored)."""

    #: the message key of a string that is not acceptable
    refusal = "invalid"

    @abc.abstractmethod
    def acceptable(self, text: str) -> bool:
        """Whether a non-empty ``text`` is a valid value."""

    def _deserialize(self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any) -> str:
        if not isinstance(value, str):
            raise self.fail("not_string")
        text = value.strip()
        if text and not self.acceptable(text):
            raise self.fail(self.refusal)
        return text


class Timezone(OptionalText):
    """An IANA zone, a ``UTC+N`` offset string, or "" (meaning the site zone)."""

    refusal = "bad_timezone"

    def json_schema(self) -> JsonSchema:
        return {"type": "string"}

    def acceptable(self, text: str) -> bool:
        return is_valid_timezone(text)


class Url(OptionalText):
    """An absolute http(s) URL, or "" to clear the field."""

    refusal = "bad_url"

    def json_schema(self) -> JsonSchema:
        return {"type": "string", "format": "uri"}

    def acceptable(self, text: str) -> bool:
        return is_url(text) and len(text) <= MAX_URL


def is_url(value: str) -> bool:
    """True for an absolute http(s) URL with a host (PHP's FILTER_VALIDATE_URL, roughly)."""
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return (
        parts.scheme in ("http", "https")
        and bool(parts.hostname)
        and not any(char.isspace() or char == "\x00" for char in value)
    )
