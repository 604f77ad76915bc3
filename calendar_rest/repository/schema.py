"""Creating the database schema: tables, indexes and the counter rows."""

from __future__ import annotations

import peewee as pw

from ..db import login_store
from ..models import MODELS, bind_models
from .search_index import index_is_current, rebuild_search_index
from .site_state import ensure_counters


def create_schema(database: pw.Database) -> None:
    """Create missing tables, indexes and counter rows, and rebuild the word index if
    its format is outdated; safe on an existing database."""
    bind_models(database, login_store(database))
    with database.connection_context():
        with database.atomic():
            database.create_tables(list(MODELS), safe=True)
            ensure_counters()
            if not index_is_current():
                rebuild_search_index(database)
        if isinstance(database, pw.SqliteDatabase):
            # refresh the planner's statistics where they are stale, so that e.g. an
            # ``include`` list is read by primary key rather than by the archive index
            database.execute_sql("PRAGMA optimize")
