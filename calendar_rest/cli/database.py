"""Reaching the database a command works on, and naming it safely in messages."""

from __future__ import annotations

import contextlib
import typing as t
from urllib.parse import urlsplit, urlunsplit

import peewee

from ..db import connect_database, login_store
from ..models import bind_models
from ..settings import Settings
from .parsing import CliError


def command_settings(database_url: str | None) -> Settings:
    """The settings of a command: ``--database``, then the environment, then the default."""
    try:
        return Settings.build(database_url)
    except ValueError as exc:
        raise CliError(str(exc)) from None


@contextlib.contextmanager
def open_database(url: str) -> t.Iterator[peewee.Database]:
    """The models bound to ``url``'s database, closed again on the way out."""
    try:
        database = connect_database(url)
    except ValueError as exc:  # unsupported scheme or malformed URL
        raise CliError(str(exc)) from None
    store = login_store(database)
    bind_models(database, store)
    try:
        yield database
    finally:
        database.close()
        store.close()


def display_url(url: str) -> str:
    """``url`` without its password, fit for printing."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))
