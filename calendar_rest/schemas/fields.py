"""marshmallow fields that read parameters the way WordPress validates them.

Each field checks shape only (types, formats, enumerations); whether an ID exists is
the web layer's business, because it needs the database.
"""

from __future__ import annotations

import abc
import datetime as dt
import re
import typing as t
from urllib.parse import urlsplit

from marshmallow import ValidationError, fields

from ..dates import DateParseError, is_valid_timezone, parse_datetime
from ..dates.recurrence import RecurrenceError, normalise_lines
from .messages import N_, ParamMessage

TRUE_STRINGS = frozenset({"true", "1"})
FALSE_STRINGS = frozenset({"false", "0"})
INT_RE = re.compile(r"^\s*-?\d{1,10}\s*$")
#: IDs and counters are 32-bit INTEGER columns on every backend
MAX_INT = 2**31 - 1
#: years a DATETIME column holds on every backend (MySQL starts at 1000)
YEARS = range(1000, 9999)
LANGUAGES = ("en", "fr")
MAX_URL = 700
WRITABLE_STATUSES = ("publish", "future", "draft", "pending", "private")


JsonSchema = dict[str, t.Any]


class WPField(fields.Field[t.Any]):
    """Base: raise ``ParamMessage`` errors that name the parameter, like WordPress.

    ``json_schema`` states what the field accepts in JSON Schema terms and ``help``
    what the parameter means; the namespace index and ``/doc`` publish both, so each
    field documents itself.

    ``repeatable`` fields take a list: in a query string or a form, the values of a
    repeated key (``categories=a&categories=b``) are united, not the last one kept.
    """

    repeatable: t.ClassVar[bool] = False

    def __init__(
        self, *, help: str | None = None, max_items: int | None = None, **kwargs: t.Any
    ) -> None:
        if help is not None:
            kwargs["metadata"] = {**kwargs.get("metadata", {}), "description": help}
        super().__init__(**kwargs)
        #: the most items a list value may hold (``schemas.validate`` refuses more
        #: before reading any of them); None: no bound but the body's size
        self.max_items = max_items

    def json_schema(self) -> JsonSchema:
        return {}

    def documented_schema(self) -> JsonSchema:
        """:meth:`json_schema` with the bound on items, as the index and ``/doc`` show it."""
        schema = self.json_schema()
        return schema if self.max_items is None else {**schema, "maxItems": self.max_items}

    def fail(self, key: str, **kwargs: t.Any) -> ValidationError:
        kwargs.setdefault("param", self.data_key or self.name)
        return ValidationError(ParamMessage(key, **kwargs))


class Boolean(WPField):
    """true/false, 1/0 and their string forms (any case); anything else is refused.

    ``words=True`` also reads yes/no and on/off (TEC's truthy flags such as
    ``strict_dates``).
    """

    def __init__(self, *, words: bool = False, **kwargs: t.Any) -> None:
        super().__init__(**kwargs)
        self.true_strings = TRUE_STRINGS | ({"yes", "on"} if words else set())
        self.false_strings = FALSE_STRINGS | ({"no", "off"} if words else set())

    def json_schema(self) -> JsonSchema:
        return {"type": "boolean"}

    def _deserialize(self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str):
            lowered = value.strip().lower()
            if lowered in self.true_strings:
                return True
            if lowered in self.false_strings:
                return False
        raise self.fail("not_boolean")


class Integer(WPField):
    """A 32-bit integer or a string of digits; ``positive`` also refuses zero and
    negatives."""

    def __init__(self, *, positive: bool = False, **kwargs: t.Any) -> None:
        super().__init__(**kwargs)
        self.positive = positive

    def json_schema(self) -> JsonSchema:
        return {"type": "integer", "minimum": 1 if self.positive else -MAX_INT, "maximum": MAX_INT}

    def _deserialize(self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any) -> int:
        number = to_int(value)
        if number is None:
            raise self.fail("not_integer")
        if self.positive and number < 1:
            raise self.fail("not_positive")
        return number


class Number(WPField):
    """A float or a numeric string."""

    def json_schema(self) -> JsonSchema:
        return {"type": "number", "format": "double"}

    def _deserialize(self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any) -> float:
        if isinstance(value, bool):
            raise self.fail("not_number")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise self.fail("not_number") from None
        if number != number or number in (float("inf"), float("-inf")):
            raise self.fail("not_number")
        return number


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


class LooseDate(WPField):
    """Anything ``dates.parse_datetime`` understands; the raw value is kept, because the
    zone it is read in (the event's) is only known once every field is loaded."""

    def json_schema(self) -> JsonSchema:
        return {"type": "string"}

    def _deserialize(
        self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any
    ) -> str | int | float:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.fail("bad_date")
        try:
            parsed = parse_datetime(value, UTC_ZONE)
        except (DateParseError, OverflowError, ValueError):
            raise self.fail("bad_date") from None
        if parsed.year not in YEARS:
            raise self.fail("bad_date")
        return value.strip() if isinstance(value, str) else value


#: WordPress 5.7's ``modified_after``/``modified_before`` (RFC 3339, seconds required),
#: also with a space for ``T`` (a record's ``modified`` passed back unchanged) and a
#: space for an offset's ``+`` (a query string reads an unencoded ``+`` as a space)
MODIFIED_RE = re.compile(
    r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})[Tt ](?P<time>[0-9]{2}:[0-9]{2}:[0-9]{2})"
    r"(?:\.[0-9]+)?(?:(?P<utc>[Zz])|(?P<sign>[-+ ])(?P<hours>[0-9]{2}):(?P<minutes>[0-9]{2}))?"
)


class ModifiedDate(WPField):
    """A modification-time bound: naive for site local time, aware when the value
    names UTC or an offset; fractional seconds are dropped, since ``modified`` is
    compared at whole-second resolution. Strict, unlike ``LooseDate``: a sync client
    must never have a typo read as some other moment."""

    def json_schema(self) -> JsonSchema:
        return {"type": "string", "format": "date-time"}

    def _deserialize(self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any) -> dt.datetime:
        match = MODIFIED_RE.fullmatch(value) if isinstance(value, str) else None
        if match is None:
            raise self.fail("bad_modified_date")
        try:
            moment = dt.datetime.fromisoformat(f"{match['date']}T{match['time']}")
            if match["utc"]:
                moment = moment.replace(tzinfo=dt.timezone.utc)
            elif match["sign"]:
                if int(match["minutes"]) > 59:
                    raise ValueError(match["minutes"])
                offset = dt.timedelta(hours=int(match["hours"]), minutes=int(match["minutes"]))
                sign = -1 if match["sign"] == "-" else 1
                moment = moment.replace(tzinfo=dt.timezone(sign * offset))
        except ValueError:  # a day, hour or offset out of range
            raise self.fail("bad_modified_date") from None
        if moment.year not in YEARS:
            raise self.fail("bad_modified_date")
        return moment


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


class IdList(WPField):
    """IDs as a JSON array, a PHP ``name[]`` array or a comma-separated string."""

    repeatable = True

    def json_schema(self) -> JsonSchema:
        return {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": MAX_INT}}

    def _deserialize(self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any) -> list[int]:
        ids = []
        for item in split_list(value):
            number = to_int(item)
            if number is None or number < 1:
                raise self.fail("invalid")
            ids.append(number)
        return ids


class TermList(WPField):
    """Terms by ID or by name/slug, as an array or CSV; ``[]`` and ``""`` mean none."""

    repeatable = True

    def json_schema(self) -> JsonSchema:
        return {"type": "array", "items": {"type": "string"}}

    def _deserialize(
        self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any
    ) -> list[int | str]:
        terms: list[int | str] = []
        for item in split_list(value):
            if isinstance(item, (dict, list)) or (isinstance(item, str) and "\x00" in item):
                raise self.fail("invalid")
            number = to_int(item)
            if number is not None:
                terms.append(number)
            elif isinstance(item, str) and item.strip():
                terms.append(item.strip())
        return terms


class StringList(WPField):
    """Strings as an array or CSV (``status=publish,draft`` or ``status[]=publish``)."""

    repeatable = True

    def __init__(self, *, choices: t.Sequence[str] | None = None, **kwargs: t.Any) -> None:
        super().__init__(**kwargs)
        #: the only values allowed, when the list names things of a fixed set
        self.choices = tuple(choices) if choices else None

    def json_schema(self) -> JsonSchema:
        items: JsonSchema = {"type": "string"}
        if self.choices:
            items["enum"] = list(self.choices)
        return {"type": "array", "items": items}

    def _deserialize(self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any) -> list[str]:
        items = [item for item in split_list(value) if item != ""]
        if not all(isinstance(item, str) and "\x00" not in item for item in items):
            raise self.fail("invalid")
        stripped = [item.strip() for item in items]
        if self.choices and any(item not in self.choices for item in stripped):
            raise self.fail("invalid")
        return stripped


class Recurrence(WPField):
    """A series' RFC 5545 lines (``RRULE``, ``RDATE``, ``EXDATE``), each checked and
    normalised (calendar.md §4.2); ``null`` and ``[]`` mean "not recurring". The cap
    is checked when the series' dates are known (``repository.series``)."""

    repeatable = True
    #: ``null`` is "not recurring", not an absent parameter
    keeps_null = True

    def __init__(self, **kwargs: t.Any) -> None:
        super().__init__(allow_none=True, **kwargs)

    def json_schema(self) -> JsonSchema:
        return {"type": "array", "items": {"type": "string"}}

    def _deserialize(self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any) -> list[str]:
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self.fail("rec_not_list")
        try:
            return normalise_lines(value)
        except RecurrenceError as exc:
            raise self.fail(exc.key, index=exc.index, line=exc.line, **exc.values) from None

    def deserialize(
        self, value: t.Any, attr: str | None = None, data: t.Any = None, **kw: t.Any
    ) -> t.Any:
        return [] if value is None else super().deserialize(value, attr, data, **kw)


class Raw(WPField):
    """Any JSON value, validated later (e.g. ``cost``: a string, number or list)."""


class Truthy(Raw):
    """TEC's lenient flag (``tribe_is_truthy``): any value is accepted and read later, so
    the document offers both the boolean a generated client sends and the string a
    browser sends."""

    def json_schema(self) -> JsonSchema:
        return {"oneOf": [{"type": "boolean"}, {"type": "string"}]}


class RawList(Raw):
    """Any JSON value, a list when a query or form repeats the key (``organizer``)."""

    repeatable = True

    def _deserialize(self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any) -> t.Any:
        return value


def to_int(value: t.Any) -> int | None:
    """int for an int or a digit string; None for bools, floats and anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and INT_RE.match(value):
        number = int(value)
    else:
        return None
    return number if -MAX_INT <= number <= MAX_INT else None


def split_list(value: t.Any) -> list[t.Any]:
    """A list from a list, or from a CSV string with whitespace around items trimmed."""
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        return [part.strip() for part in value.split(",")] if value.strip() else []
    return [value]


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


def _utc_zone() -> t.Any:
    from ..dates import resolve_timezone

    return resolve_timezone("UTC")


UTC_ZONE = _utc_zone()
