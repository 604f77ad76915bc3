"""Building the word index of every searchable record (``search.py``) from scratch.

The index's format has a version (``SiteState`` key ``search_index``): when the way
words are extracted changes, ``schema.create_schema`` rebuilds it once, so existing
records become searchable the new way (e.g. words of every script, version 2; the
rows of a series sharing their series' words instead of each holding a copy,
version 3).
"""

from __future__ import annotations

import peewee as pw

from ..db import backend_name, insert_rows
from ..models import SEARCH_KIND, Event, Organizer, PostModel, SearchWord, SiteState, Venue
from ..queries.lookups.series import series_rows
from ..queries.lookups.site_state import SEARCH_INDEX, read_counter
from .series_rows import save_rows
from .series_values import base_of, exceptions_of
from .series_words import keys_in_use, sharing_key, store_shared_words
from .word_index import words_of

#: 2: letters of every script, code-point order, title/content/protected parts;
#: 3: the rows of a series share their series' words (``series_words``)
SEARCH_INDEX_VERSION = 3
BATCH = 1000
#: the statement that makes ``search_word.word`` compare by code point, per backend
CODE_POINT_COLLATION = {
    "postgresql": 'ALTER TABLE "search_word" ALTER COLUMN "word" TYPE VARCHAR(40) COLLATE "C"',
    "mysql": (
        "ALTER TABLE `search_word` MODIFY `word` VARCHAR(40) "
        "CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL"
    ),
}


def index_is_current() -> bool:
    return read_counter(SEARCH_INDEX) >= SEARCH_INDEX_VERSION


def rebuild_search_index(database: pw.Database) -> int:
    """Recreate the word index table and index every event, venue and organizer again;
    returns the number of words stored. Runs inside the caller's transaction."""
    database.drop_tables([SearchWord], safe=True)
    database.create_tables([SearchWord])
    statement = CODE_POINT_COLLATION.get(backend_name(database))
    if statement:
        database.execute_sql(statement)
    series = _share_series_words()
    stored = sum(_index(model) for model in (Event, Venue, Organizer))
    for master, rows in series:
        store_shared_words(master.id, base_of(master), keys_in_use(rows))
    SiteState.update(value=SEARCH_INDEX_VERSION).where(SiteState.key == SEARCH_INDEX).execute()
    return stored


def _share_series_words() -> list[tuple[Event, list[Event]]]:
    """Give every row of every series the key of the words it shares, before its own
    words are indexed (those of the text it changed alone); returns each series'
    master and rows. Events of no series share nothing."""
    Event.update(words_from=None).where(
        Event.series_master.is_null(True)
        & (Event.recurrence == "")
        & Event.words_from.is_null(False)
    ).execute()
    series = []
    masters = Event.select().where(Event.series_master.is_null(True) & (Event.recurrence != ""))
    for master in masters:
        rows = series_rows(master.id)
        for row in rows:
            row.words_from = sharing_key(master.id, exceptions_of(row))
        save_rows(rows, ("words_from",))
        series.append((master, rows))
    return series


def _index(model: type[PostModel]) -> int:
    kind = SEARCH_KIND[model]
    stored = 0
    last = 0
    while True:
        batch = list(model.select().where(model.id > last).order_by(model.id).limit(BATCH))
        if not batch:
            return stored
        rows = [
            (kind, word, record.id, part)
            for record in batch
            for word, part in sorted(words_of(record).items())
        ]
        insert_rows(SearchWord, ("kind", "word", "record_id", "part"), rows)
        stored += len(rows)
        last = batch[-1].id
