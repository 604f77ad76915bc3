"""Building the word index of every searchable record (``search.py``) from scratch.

The index's format has a version (``SiteState`` key ``search_index``): when the way
words are extracted changes, ``schema.create_schema`` rebuilds it once, so existing
records become searchable the new way (e.g. words of every script, version 2).
"""

from __future__ import annotations

import peewee as pw

from ..db import backend_name
from ..models import SEARCH_KIND, Event, Organizer, PostModel, SearchWord, SiteState, Venue
from ..queries.site_state import SEARCH_INDEX, read_counter
from .word_index import words_of

#: 2: letters of every script, code-point order, title/content/protected parts
SEARCH_INDEX_VERSION = 2
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
    stored = sum(_index(model) for model in (Event, Venue, Organizer))
    SiteState.update(value=SEARCH_INDEX_VERSION).where(SiteState.key == SEARCH_INDEX).execute()
    return stored


def _index(model: type[PostModel]) -> int:
    kind = SEARCH_KIND[model]
    stored = 0
    last = 0
    while True:
        batch = list(model.select().where(model.id > last).order_by(model.id).limit(BATCH))
        if not batch:
            return stored
        rows = [
            {"kind": kind, "word": word, "record_id": record.id, "part": part}
            for record in batch
            for word, part in sorted(words_of(record).items())
        ]
        for start in range(0, len(rows), BATCH):
            SearchWord.insert_many(rows[start : start + BATCH]).execute()
        stored += len(rows)
        last = batch[-1].id
