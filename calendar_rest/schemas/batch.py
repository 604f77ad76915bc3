"""The argument set of ``POST /batch/v1`` (anchors.md §2, WordPress 5.6's batch route).

Only the batch's shape is checked here: each request an object with a ``path``, and
optionally a ``method``, a ``body`` object and ``headers``. Whether its method and
route may be batched is answered per item, in the batch's answer, as the single
request would be answered (``edge/batch.py``).
"""

from __future__ import annotations

import typing as t

from . import fields as f
from .fields import JsonSchema, WPField
from .messages import N_
from .shared import Args

VALIDATION_MODES = ("normal", "require-all-validate")
#: an item's method when it names none (WordPress's)
DEFAULT_METHOD = "POST"


class BatchRequests(WPField):
    """The list of requests: each ``{"method", "path", "body", "headers"}``, read into
    a plain dict with every key present (``method`` upper-cased, ``POST`` by default;
    a header's list of values joined with commas)."""

    def json_schema(self) -> JsonSchema:
        header_value = {
            "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
        }
        return {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "method": {"type": "string", "default": DEFAULT_METHOD},
                    "path": {"type": "string"},
                    "body": {"type": "object", "additionalProperties": True},
                    "headers": {"type": "object", "additionalProperties": header_value},
                },
                "required": ["path"],
            },
        }

    def _deserialize(
        self, value: t.Any, attr: str | None, data: t.Any, **kw: t.Any
    ) -> list[dict[str, t.Any]]:
        if not isinstance(value, list):
            raise self.fail("not_array")
        return [self.item(entry) for entry in value]

    def item(self, entry: t.Any) -> dict[str, t.Any]:
        if not isinstance(entry, dict):
            raise self.fail("not_object")
        method, path = entry.get("method", DEFAULT_METHOD), entry.get("path")
        body, headers = entry.get("body") or {}, entry.get("headers") or {}
        if not isinstance(method, str) or not isinstance(path, str) or "\x00" in path:
            raise self.fail("invalid")
        if not isinstance(body, dict) or not isinstance(headers, dict):
            raise self.fail("invalid")
        return {
            "method": method.strip().upper() or DEFAULT_METHOD,
            "path": path,
            "body": body,
            "headers": {str(name): header_text(value, self) for name, value in headers.items()},
        }


def header_text(value: t.Any, field: WPField) -> str:
    """A header's value as sent: a string, or a list of strings joined with commas."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return ", ".join(value)
    raise field.fail("invalid")


class BatchArgs(Args):
    """WordPress's batch arguments, and ``atomic`` (all or nothing, beyond WordPress)."""

    validation = f.Choice(
        VALIDATION_MODES,
        load_default="normal",
        help=N_(
            "normal: every request runs on its own; require-all-validate: nothing runs"
            " unless every request passes its checks"
        ),
    )
    requests = BatchRequests(
        required=True,
        help=N_("The requests to run, in order: each a method, a path, a body and headers"),
    )
    atomic = f.Boolean(
        load_default=False,
        help=N_(
            "Run every request in one transaction: all are written, or none is (the first"
            " failure rolls the batch back)"
        ),
    )
