"""Every table in the order the schema creates them, and how an app attaches them to
its database."""

from __future__ import annotations

import peewee as pw

from .base import BaseModel
from .links import EventOrganizer
from .people import ApplicationPassword, LoginThrottle, User
from .posts import Attachment, Event, Organizer, Venue
from .search_words import SearchWord
from .sync import ChangeEntry, SiteState
from .terms import EventTerm, Term
from .webhooks import WebhookAttempt, WebhookMessage, WebhookSubscription

MODELS: tuple[type[BaseModel], ...] = (
    User,
    ApplicationPassword,
    Attachment,
    Venue,
    Organizer,
    Event,
    EventOrganizer,
    Term,
    EventTerm,
    SearchWord,
    SiteState,
    ChangeEntry,
    WebhookSubscription,
    WebhookMessage,
    WebhookAttempt,
    LoginThrottle,
)


def bind_models(database: pw.Database, login_store: pw.Database) -> None:
    """Attach every model to ``database`` but the failed-login counters, attached to
    ``login_store`` (``db.login_store(database)``); cheap when already so."""
    if User._meta.database is not database or LoginThrottle._meta.database is not login_store:
        records = [model for model in MODELS if model is not LoginThrottle]
        database.bind(records, bind_refs=False, bind_backrefs=False)
        login_store.bind([LoginThrottle], bind_refs=False, bind_backrefs=False)
