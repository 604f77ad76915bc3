"""Lists as WordPress reads them: a JSON array, a PHP ``name[]`` array, a
comma-separated string, or (in a query or a form) the values of a repeated key.
"""

from __future__ import annotations

import typing as t

from .base import MAX_INT, JsonSchema, WPField
from .numeric import to_int


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


def split_list(value: t.Any) -> list[t.Any]:
    """A list from a list, or from a CSV string with whitespace around items trimmed."""
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        return [part.strip() for part in value.split(",")] if value.strip() else []
    return [value]
