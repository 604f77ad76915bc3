"""The base of every field: errors that name the parameter as WordPress does, and
the JSON Schema and help text that the namespace index and ``/doc`` publish; and the
fields that take any value, read later by the web layer (``cost``, ``venue``).
"""

from __future__ import annotations

import typing as t

from marshmallow import ValidationError, fields

from ..messages import ParamMessage

#: IDs and counters are 32-bit INTEGER columns on every backend
MAX_INT = 2**31 - 1

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
