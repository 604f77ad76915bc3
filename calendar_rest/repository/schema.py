"""Creating the database schema: tables, indexes and the counter rows."""

from __future__ import annotations

import typing as t
import uuid

import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate

from ..clock import SYSTEM_CLOCK, utc_now
from ..db import login_store
from ..models import MODELS, BaseModel, Event, LoginThrottle, bind_models
from .changes import seed_change_log
from .search_index import index_is_current, rebuild_search_index
from .site_state import ensure_counters


def create_schema(database: pw.Database) -> None:
    """Create missing tables, indexes and counter rows, and rebuild the word index if
    its format is outdated; safe on an existing database."""
    bind_models(database, login_store(database))
    with database.connection_context():
        with database.atomic():
            _add_missing_columns(database)
            # DDL only where something is missing: even ``IF NOT EXISTS`` locks the
            # table on PostgreSQL, and would deadlock with running writes
            missing = [model for model in MODELS if not model.table_exists()]
            database.create_tables(missing)
            _create_missing_indexes([model for model in MODELS if model not in missing])
            _drop_superseded_indexes()
            ensure_counters()
            seed_change_log(utc_now(SYSTEM_CLOCK))
            if not index_is_current():
                rebuild_search_index(database)
        if isinstance(database, pw.SqliteDatabase):
            # refresh the planner's statistics where they are stale, so that e.g. an
            # ``include`` list is read by primary key rather than by the archive index
            database.execute_sql("PRAGMA optimize")


def schema_is_current(database: pw.Database) -> bool:
    """Whether every table and column this version declares exists (what
    :func:`create_schema` would add is missing otherwise): the readiness probe's
    check, on an open connection. The failed-login counters may live apart (a SQLite
    database's sibling file, ``db.login_store``) and are not looked for. Which
    database the models are bound to does not matter: only names are read."""
    tables = set(database.get_tables())
    for model in MODELS:
        if model is LoginThrottle:
            continue
        table = model._meta.table_name
        if table not in tables:
            return False
        present = {column.name for column in database.get_columns(table)}
        if any(field.column_name not in present for field in model._meta.sorted_fields):
            return False
    return True


def _add_missing_columns(database: pw.Database) -> None:
    """Add the columns a newer version declares to tables that already exist (before
    their indexes are created), and give existing events their iCalendar UID."""
    migrator = SchemaMigrator.from_database(database)
    tables = set(database.get_tables())
    for model in MODELS:
        table = model._meta.table_name
        if model._meta.database is not database or table not in tables:
            continue
        present = {column.name for column in database.get_columns(table)}
        missing = [f for f in model._meta.sorted_fields if f.column_name not in present]
        if missing:
            migrate(*(migrator.add_column(table, f.column_name, f) for f in missing))
    if "event" in tables:
        _give_events_uids(database)


#: events given their UID per batch of one prepared statement
UID_BATCH = 5_000


def _give_events_uids(database: pw.Database) -> None:
    """Give every event without an iCalendar UID a random one, a batch of rows per
    prepared statement: one statement per event took about five minutes at 1,000,000
    events, the first start after upgrading from a version without UIDs."""
    rows = Event.select(Event.id).where(Event.uid == "").tuples()
    missing = [pk for (pk,) in t.cast("t.Iterable[tuple[int]]", rows)]
    sql, _ = Event.update(uid="").where(Event.id == 0).sql()  # parameters: uid, id
    for start in range(0, len(missing), UID_BATCH):
        batch = missing[start : start + UID_BATCH]
        cursor = database.cursor()
        try:
            cursor.executemany(sql, [(str(uuid.uuid4()), pk) for pk in batch])
        finally:
            cursor.close()


#: indexes earlier versions made that a newer one now covers, by table
SUPERSEDED_INDEXES = {
    "search_word": ("search_word_kind_record_id",),
    # the archive index without ``words_from`` (a search read the table for it)
    "event": (
        "event_language_hide_from_listings_status_start_utc_id_en_0c298ea",
        # ... and without ``event_status`` (the status filter read the table)
        "event_language_hide_from_listings_status_start_utc_id_en_9c8b865",
    ),
    # each link table's key and reverse index serve both of its columns
    "event_organizer": ("event_organizer_event_id", "event_organizer_organizer_id"),
    "event_term": ("event_term_event_id", "event_term_term_id"),
}


def _drop_superseded_indexes() -> None:
    """Drop indexes a wider one now serves (they would only slow writes down)."""
    for model in MODELS:
        table = model._meta.table_name
        names = SUPERSEDED_INDEXES.get(table, ())
        store = model._meta.database
        if not names or table not in store.get_tables():
            continue
        existing = {index.name for index in store.get_indexes(table)}
        migrator = SchemaMigrator.from_database(store)
        # PostgreSQL keeps 63 characters of a name, Peewee's long names have 64
        found = [name for name in existing if name in names or name in {n[:63] for n in names}]
        migrate(*(migrator.drop_index(table, name) for name in found))


def _create_missing_indexes(models: t.Iterable[type[BaseModel]]) -> None:
    """Add the indexes a newer version declares to tables that already exist."""
    for model in models:
        store = model._meta.database  # the login counters may live apart (``db``)
        existing = {index.name for index in store.get_indexes(model._meta.table_name)}
        for index in model._meta.fields_to_index():
            # PostgreSQL keeps 63 characters of a name, Peewee's long names have 64
            if index._name not in existing and index._name[:63] not in existing:
                store.execute(index.safe(False))
