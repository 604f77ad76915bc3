"""What a responder answers: a JSON-ready body, a status and the route's own headers.

Responders never build HTTP responses: the edge serialises a :class:`Reply` once,
adds the headers every response carries, and can reshape or drop the body (HEAD)
in one place.
"""

from __future__ import annotations

import dataclasses
import typing as t


@dataclasses.dataclass
class Reply:
    body: t.Any
    status: int = 200
    headers: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    #: the ``Content-Type`` of a body already serialised (bytes); None: JSON
    content_type: str | None = None
    #: the record a serialised body shows, whose revision its ``ETag`` covers
    about: int | None = None
    #: the revision of the record the body shows, when it was read with the record
    #: (None: the ``ETag`` reads it)
    revision: int | None = None
