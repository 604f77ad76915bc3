"""The change feed's representations (``sync.md`` §3.2, §3.3)."""

from __future__ import annotations

from marshmallow import fields

from ..messages import N_
from .base import Representation, documented, integer, text

Change = Representation.from_dict(
    {
        "type": documented(
            N_("The record type"),
            required=True,
            type="string",
            enum=["event", "venue", "organizer", "category", "tag"],
        ),
        "id": integer(N_("The record ID"), required=True),
        "action": documented(
            N_("upsert: store the record (fetch rest_url); delete: drop it"),
            required=True,
            type="string",
            enum=["upsert", "delete"],
        ),
        "modified": text(N_("When the change happened, in the site's time zone"), required=True),
        "modified_utc": text(N_("When the change happened, in UTC"), required=True),
        "rest_url": text(N_("The record's REST URL"), required=True),
        "protected": documented(
            N_(
                "Only on upserts of a password-protected event: true (its rest_url answers 403 "
                "without the event's password)"
            ),
            type="boolean",
            enum=[True],
        ),
        "listed_url": text(
            N_(
                "Only with protected: the URL of the event list showing just this event as "
                "the list shows it to the caller (redacted without the password)"
            )
        ),
    },
    name="Change",
)

ChangeList = Representation.from_dict(
    {
        "changes": fields.List(
            fields.Nested(Change),
            required=True,
            metadata={"description": N_("The changes of the page, oldest first")},
        ),
        "rest_url": text(N_("The REST URL of this page"), required=True),
        "next_rest_url": text(N_("The REST URL of the next page, when there is one")),
        "previous_rest_url": text(N_("The REST URL of the previous page, when there is one")),
        "total": integer(N_("The number of changes in the whole walk"), required=True),
        "total_pages": integer(N_("The number of pages"), required=True),
        "sync_token": text(N_("On the last page: the token of the next walk")),
    },
    name="ChangeList",
)
