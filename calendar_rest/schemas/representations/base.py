"""The base of every documented body, and the field builders the components share.

Fields are declared in the order the wire emits the keys; ``required`` marks keys that
are always present; every object refuses unknown keys (``additionalProperties:
false``) so that a response carrying an undocumented key fails the conformance check.
"""

from __future__ import annotations

import typing as t

from marshmallow import RAISE, Schema, fields

from ..messages import N_

COMPONENTS_PATH = "#/components/schemas/"


def ref(name: str) -> dict[str, str]:
    """A reference to one of ``COMPONENTS``."""
    return {"$ref": COMPONENTS_PATH + name}


def empty_array() -> dict[str, t.Any]:
    """An array that is always empty: TEC's PHP ``[]`` standing in for a missing object
    (a fresh dict each time, so the document shares no objects)."""
    return {"type": "array", "items": {}, "maxItems": 0}


def text(description: str, *, required: bool = False, **metadata: t.Any) -> fields.String:
    return fields.String(required=required, metadata={"description": description, **metadata})


def integer(description: str, *, required: bool = False) -> fields.Integer:
    return fields.Integer(required=required, metadata={"description": description})


def flag(description: str, *, required: bool = False, nullable: bool = False) -> fields.Boolean:
    return fields.Boolean(
        required=required, allow_none=nullable, metadata={"description": description}
    )


def strings(description: str, *, required: bool = False) -> fields.List[str]:
    return fields.List(fields.String(), required=required, metadata={"description": description})


def documented(description: str, *, required: bool = False, **schema: t.Any) -> fields.Raw:
    """A key whose JSON Schema is written out by hand: unions and forward ``$ref``s."""
    return fields.Raw(required=required, metadata={"description": description, **schema})


def json_ld(description: str) -> fields.Dict:
    return fields.Dict(metadata={"description": description})


def language() -> fields.String:
    """The additive multilingual keys (``wire.translations``) every record ends with."""
    return text(N_("The language code of the record, such as en"), required=True)


def translations() -> fields.Dict:
    return fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        required=True,
        metadata={
            "description": N_(
                "The IDs of the record's translation group, the record included, by language code"
            )
        },
    )


class Representation(Schema):
    """Base of every documented object: unknown keys are refused, so apispec emits
    ``additionalProperties: false``."""

    class Meta:
        unknown = RAISE


def json_object(
    description: str,
    properties: dict[str, t.Any],
    required: list[str],
    *,
    closed: bool = False,
) -> fields.Dict:
    """A key always present whose object is described in JSON Schema by hand (its
    members depend on the record or the error); ``closed`` refuses other members."""
    schema: dict[str, t.Any] = {
        "description": description,
        "properties": properties,
        "required": required,
    }
    if closed:
        schema["additionalProperties"] = False
    return fields.Dict(required=True, metadata=schema)


def typed(kind: str, description: str) -> dict[str, str]:
    """A JSON Schema property of one type."""
    return {"type": kind, "description": description}


def term_urls() -> fields.Dict:
    """A term's REST links: always ``self`` and ``collection``, ``up`` under a parent."""
    return json_object(
        N_("The links to the term own, archive and parent REST URL"),
        {
            "self": typed("string", N_("The term REST URL")),
            "collection": typed("string", N_("The REST URL of the term archive")),
            "up": typed("string", N_("The parent term REST URL, when the term has a parent")),
        },
        ["self", "collection"],
        closed=True,
    )
