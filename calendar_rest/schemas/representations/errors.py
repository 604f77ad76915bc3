"""WordPress's error body, as every failure answers it."""

from __future__ import annotations

import typing as t

from ..messages import N_
from .base import Representation, empty_array, json_object, text, typed

#: ``data.details`` members of ``rest_invalid_param``: a WordPress error per parameter
PARAM_DETAIL: dict[str, t.Any] = {
    "type": "object",
    "properties": {
        "code": typed("string", N_("The error code")),
        "message": typed("string", N_("The error message")),
        "data": typed("object", N_("The error data")),
    },
}


class Error(Representation):
    """WordPress's error body; the HTTP status is ``data.status``."""

    code = text(N_("The error code"), required=True)
    message = text(N_("The error message, in the language of the request"), required=True)
    data = json_object(
        N_("The error data"),
        {
            "status": typed("integer", N_("The HTTP status")),
            "params": {
                "description": N_(
                    "The failing parameters: their messages by name (invalid "
                    "parameters) or their names (missing parameters)"
                ),
                "oneOf": [
                    {"type": "object", "additionalProperties": {"type": "string"}},
                    {"type": "array", "items": {"type": "string"}},
                ],
            },
            "details": {
                "description": N_(
                    "The type errors by parameter name, an empty array when there is none"
                ),
                "oneOf": [
                    {"type": "object", "additionalProperties": PARAM_DETAIL},
                    empty_array(),
                ],
            },
            "term_id": typed("integer", N_("The ID of the term that already exists (term_exists)")),
        },
        ["status"],
    )
