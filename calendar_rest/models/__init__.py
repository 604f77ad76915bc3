"""The stored records: one Peewee model per table, declared without a database.

Every layer speaks of records in these names, so they are imported from here
(``from calendar_rest.models import Event, MODELS``) whatever module declares them.
``bind_models`` attaches the models to an app's database for the calling thread; each
app rebinds at the start of every request it serves. The modules follow the record
families, each on the ones before it:

- ``base`` — ``BaseModel``, the post statuses and user roles, the bounds of an ID
  (``could_exist``) and ``model_of`` (the model of a record or a read-only row).
- ``people`` — users, their application passwords, the failed-login counters.
- ``posts`` — ``PostModel`` and the post-like records: venues, organizers, events,
  and the attachments (featured images) they show.
- ``links`` — the ordered event-to-record link tables (``EventLink``,
  ``EventOrganizer``).
- ``terms`` — categories and tags (``Term``), their links (``EventTerm``), and
  ``Translatable``.
- ``search_words`` — the search index (``SearchWord``) and its record kinds.
- ``sync`` — the shared counters (``SiteState``) and the change log (``ChangeEntry``).
- ``webhooks`` — subscriptions, outbox messages, delivery attempts.
- ``binding`` — ``MODELS`` in schema creation order, and ``bind_models``.
"""

from __future__ import annotations

from .base import (
    MAX_ID,
    POST_STATUSES,
    PUBLISHED_STATUSES,
    ROLES,
    BaseModel,
    could_exist,
    model_of,
)
from .binding import MODELS, bind_models
from .links import EventLink, EventOrganizer
from .people import ApplicationPassword, LoginThrottle, User
from .posts import Attachment, Event, Organizer, PostModel, Venue
from .search_words import SEARCH_KIND, SHARED_KIND, SearchWord
from .sync import ChangeEntry, SiteState
from .terms import EventTerm, Term, Translatable
from .webhooks import PayloadField, WebhookAttempt, WebhookMessage, WebhookSubscription

__all__ = [
    "MAX_ID",
    "MODELS",
    "POST_STATUSES",
    "PUBLISHED_STATUSES",
    "ROLES",
    "SEARCH_KIND",
    "SHARED_KIND",
    "ApplicationPassword",
    "Attachment",
    "BaseModel",
    "ChangeEntry",
    "Event",
    "EventLink",
    "EventOrganizer",
    "EventTerm",
    "LoginThrottle",
    "Organizer",
    "PayloadField",
    "PostModel",
    "SearchWord",
    "SiteState",
    "Term",
    "Translatable",
    "User",
    "Venue",
    "WebhookAttempt",
    "WebhookMessage",
    "WebhookSubscription",
    "bind_models",
    "could_exist",
    "model_of",
]
