"""The search words of a recurring series, stored once per series instead of once per
row (``search.py``, ``word_index``).

Every row of a series is an event of its own, and its title, excerpt and description
are its series' unless it changed them alone (an exception). The words of the series'
text are stored under ``SearchWord(kind="s", record_id=key)``, where the key is the
master's ID times 8 plus the bits of the fields shared (``word_index.SHARED_BITS``);
each row names the key of the fields it shares in ``Event.words_from`` and holds as its
own words (kind ``e``) only those of the fields it changed alone. A row with a password
of its own shares nothing. So a series of 2,000 rows stores its text's words once (at
most once per combination of fields its exceptions kept, seven), a series-wide edit of
its text rewrites those copies and no row's, and a new occurrence writes no word.
"""

from __future__ import annotations

import typing as t

from ..models import SHARED_KIND, Event, SearchWord
from ..queries.lookups.series import stored_keys
from ..rules.search import indexed_words, replace_words
from .word_index import SHARED_BITS, SHARED_KEYS

#: the series' values a row's shared words are made of (its base, ``repository.series``)
Base = t.Mapping[str, t.Any]
#: every text field shared: the key of a row that changed none alone
ALL_SHARED = sum(SHARED_BITS.values())


def sharing_key(master_id: int, exceptions: t.Collection[str]) -> int | None:
    """``Event.words_from`` of a row of the series ``master_id`` whose exception fields
    are ``exceptions``: None when it shares no word."""
    if "password" in exceptions:
        return None
    bits = sum(bit for field, bit in SHARED_BITS.items() if field not in exceptions)
    return master_id * SHARED_KEYS + bits if bits else None


def key_range(master_id: int) -> tuple[int, int]:
    """The keys of a series' shared words, lowest and highest."""
    return master_id * SHARED_KEYS + 1, master_id * SHARED_KEYS + ALL_SHARED


def shared_words(base: Base, key: int) -> dict[str, str]:
    """The words the fields of ``key`` have in the series' ``base`` values (a title word
    that is also a content word is a title word, as a record's own are)."""
    bits = key % SHARED_KEYS
    protected = bool(base.get("password"))
    words: dict[str, str] = {}
    for field in ("excerpt", "description"):
        if bits & SHARED_BITS[field]:
            words.update(indexed_words("", base.get(field) or "", protected=protected))
    if bits & SHARED_BITS["title"]:
        words.update(indexed_words(base.get("title") or ""))
    return words


def store_shared_words(
    master_id: int,
    base: Base,
    keys: t.Collection[int | None],
    *,
    rewrite: bool = False,
    prune: bool = True,
) -> None:
    """Make the series' stored words match the ``keys`` its rows use: words for each
    (made from ``base`` where none are stored, or for every key with ``rewrite``: the
    series' text or password changed), and with ``prune`` none for the keys no row
    uses any more (so the words stored under a key are always the series' current
    ones: a key dropped when unused is made afresh when a row uses it again)."""
    low, high = key_range(master_id)
    stored = stored_keys(SHARED_KIND, low, high)
    for key in range(low, high + 1):
        if key in keys and (rewrite or key not in stored):
            replace_words(SearchWord, SHARED_KIND, key, shared_words(base, key))
        elif key not in keys and key in stored and prune:
            replace_words(SearchWord, SHARED_KIND, key, {})


def rekey(row: Event, master_id: int, exceptions: t.Collection[str]) -> bool:
    """Give the row the key its exception fields call for; True if it changed (its own
    words are then to be made again, ``word_index.index_record``)."""
    key = sharing_key(master_id, exceptions)
    changed = key != row.words_from
    row.words_from = key
    return changed


def adopt_words(event: Event, key: int) -> None:
    """A new series' master (its text and password the series' own) hands its words to
    the series: they become the shared words of ``key``, without being made again."""
    SearchWord.update(kind=SHARED_KIND, record_id=key).where(
        (SearchWord.kind == "e") & (SearchWord.record_id == event.id)
    ).execute()
    event.words_from = key


def reclaim_words(event: Event) -> bool:
    """The master of a series that ends takes the series' words back as its own, where
    it shared them all (they are its text's): True; False where it has words of its
    own, to be made again whole (``word_index.index_record``)."""
    key = event.words_from
    event.words_from = None
    if key is None or key % SHARED_KEYS != ALL_SHARED:
        return False
    SearchWord.update(kind="e", record_id=event.id).where(
        (SearchWord.kind == SHARED_KIND) & (SearchWord.record_id == key)
    ).execute()
    return True


def move_shared_words(old_master_id: int, new_master_id: int) -> None:
    """The series' words follow its master to another row (the master's date was
    deleted, ``series_edits``); the rows' keys move with :func:`moved_key`."""
    low, high = key_range(old_master_id)
    shift = (new_master_id - old_master_id) * SHARED_KEYS
    SearchWord.update(record_id=SearchWord.record_id + shift).where(
        (SearchWord.kind == SHARED_KIND) & SearchWord.record_id.between(low, high)
    ).execute()


def moved_key(words_from: int | None, new_master_id: int) -> int | None:
    """A row's key once its series' master is ``new_master_id``."""
    if words_from is None:
        return None
    return new_master_id * SHARED_KEYS + words_from % SHARED_KEYS


def keys_in_use(rows: t.Iterable[Event]) -> set[int]:
    return {row.words_from for row in rows if row.words_from is not None}


def has_own_text(row: Event) -> bool:
    """Whether the row holds words of its own text (it changed some alone)."""
    return row.words_from is None or row.words_from % SHARED_KEYS != ALL_SHARED
