"""Flags and numbers as WordPress reads them: ``true``/``1``/``"yes"`` flags, 32-bit
integers from JSON numbers or digit strings, and finite floats.
"""

from __future__ import annotations

import re
import typing as t

from .base import MAX_INT, JsonSchema, WPField

TRUE_STRINGS = frozenset({"true", "1"})
FALSE_STRINGS = frozenset({"false", "0"})
INT_RE = re.compile(r"^\s*-?\d{1,10}\s*$")


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
