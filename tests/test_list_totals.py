"""List totals are counted once per filter and write generation (``queries.counts``),
and stay exact: after a write here or in another process, for every caller's own
visibility; a search page walks the archive or gathers its matches first, with the
same answer either way (``queries.word_search``)."""

from __future__ import annotations

import datetime as dt
import re
import threading
import time
import typing as t

import pytest
from conftest import Api, api_for

from calendar_rest.app import Application
from calendar_rest.caching.memo import Memo
from calendar_rest.queries.lists import archive, counts
from calendar_rest.queries.sql import statements
from calendar_rest.queries.sql.word_search import walks_words
from calendar_rest.repository.schema import create_schema

COUNTING = re.compile(r"SELECT COUNT\(1\) FROM \(|COUNT\(1\) .*GROUP BY 1$", re.IGNORECASE)
#: whether a page's tables hold translations is counted the same way (once per write
#: generation, ``queries.translations``): not a list's total
TRANSLATIONS_CHECK = re.compile(r"translation_of\W* IS NOT NULL", re.IGNORECASE)
PER_PAGE = 3


def at(days: int) -> str:
    start = dt.datetime.now(dt.timezone.utc).date() + dt.timedelta(days=days)
    return f"{start.isoformat()} 12:00:00"


def add(api: Api, title: str, days: int, as_: str = "administrator", **fields: t.Any) -> int:
    created = api.create_event(
        as_=as_, title=title, start_date=at(days), end_date=at(days).replace("12:", "13:"), **fields
    )
    return int(created["id"])


def page(api: Api, query: str, as_: str | None = None) -> tuple[int, list[int]]:
    response = api.get(f"/events?{query}", as_)
    assert response.status_code == 200, response.get_data(as_text=True)
    body = t.cast(dict[str, t.Any], response.json)
    assert response.headers["X-WP-Total"] == str(body["total"])
    return body["total"], [event["id"] for event in body["events"]]


def counts_in(executed: list[str]) -> int:
    return sum(1 for sql in executed if COUNTING.search(sql) and not TRANSLATIONS_CHECK.search(sql))


def test_every_page_of_a_filter_shares_one_count_until_a_write(
    api: Api, kept_totals: list[str]
) -> None:
    for n in range(7):
        add(api, f"Concert {n}", n + 1)
    api.get("/")  # the first read after writes also catches up on publication
    kept_totals.clear()
    assert page(api, f"per_page={PER_PAGE}") == (7, page(api, f"per_page={PER_PAGE}")[1])
    assert counts_in(kept_totals) == 1
    kept_totals.clear()
    total, second = page(api, f"per_page={PER_PAGE}&page=2")
    assert (total, len(second)) == (7, PER_PAGE)
    assert counts_in(kept_totals) == 0  # the first page's total
    add(api, "One more", 30)
    kept_totals.clear()
    assert page(api, f"per_page={PER_PAGE}&page=2")[0] == 8
    assert counts_in(kept_totals) == 1  # the write made the kept total stale
    # (later writes catch it up by ranges of IDs: ``test_totals_by_ranges``)
    kept_totals.clear()
    assert page(api, f"per_page={PER_PAGE}&search=concert")[0] == 7
    assert counts_in(kept_totals) >= 1  # another filter, another count


def test_a_write_through_another_process_is_counted(
    api: Api, sibling_app: t.Callable[..., Application]
) -> None:
    for n in range(4):
        add(api, f"Talk {n}", n + 1)
    other = api_for(sibling_app(), api)
    assert page(api, "per_page=2")[0] == 4
    assert page(other, "per_page=2")[0] == 4
    add(other, "Talk via the other process", 9)
    assert page(api, "per_page=2&page=2")[0] == 5
    other.delete(f"/events/{page(api, 'per_page=1')[1][0]}?force=true", "administrator")
    assert page(api, "per_page=2")[0] == 4


@pytest.mark.parametrize(
    ("caller", "expected"),
    [
        (None, {"public"}),
        ("subscriber", {"public"}),
        ("author", {"public", "author private", "author draft"}),
        ("author2", {"public", "author2 private"}),
        ("administrator", {"public", "author private", "author draft", "author2 private"}),
    ],
)
def test_a_kept_total_is_never_another_callers(
    api: Api, caller: str | None, expected: set[str]
) -> None:
    add(api, "public", 1)
    add(api, "author private", 2, as_="author", status="private")
    add(api, "author draft", 3, as_="author", status="draft")
    add(api, "author2 private", 4, as_="author2", status="private")
    for warm in (None, "subscriber", "author", "author2", "administrator"):
        page(api, "per_page=1", warm)  # every caller's total is kept before the read
    response = api.get("/events?per_page=10", caller)
    body = t.cast(dict[str, t.Any], response.json)
    titles = {event["title"] for event in body["events"]}
    assert (body["total"], titles) == (len(expected), expected)


def test_a_filter_is_built_into_sql_once_per_reader(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Statements are kept by what decides them (``statements.built``): a repeated page
    builds nothing, even after a write; another reader's page is built for them."""
    add(api, "Kept statement", 3)
    add(api, "Drafted statement", 4, status="draft")
    built: list[str] = []
    original = archive.archive_query

    def spied(*args: t.Any, **kwargs: t.Any) -> t.Any:
        built.append("counting" if kwargs.get("counting") else "page")
        return original(*args, **kwargs)

    monkeypatch.setattr(archive, "archive_query", spied)
    monkeypatch.setattr(statements, "_statements", Memo(16))  # none kept by other tests
    query = "per_page=1"
    assert page(api, query) == (1, page(api, query)[1])
    assert built == ["counting", "page"]  # the total by ranges is built once needed
    add(api, "Another statement", 5)
    built.clear()
    assert page(api, query)[0] == 2
    # the total outlived a write: from now it is kept by ranges, counted whole by
    # range ("counting") and caught up one range at a time (a page's forms)
    assert built == ["counting", "page"]
    add(api, "A third statement", 6)
    built.clear()
    assert page(api, query)[0] == 3
    assert built == []  # every statement was built already
    assert page(api, query, as_="editor")[0] == 4  # the draft, for its own reader
    assert built.count("page") == 1


STATEMENT = ("SELECT 1 FROM event WHERE status = ?", ("publish",))
WAIT = 10.0  # bounds every wait below; none is reached when the code is right


class BlockedCount:
    """``count_rows`` that blocks until released, recording each call."""

    def __init__(self, fail_first: bool = False) -> None:
        self.calls = 0
        self.fail_first = fail_first
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, database: t.Any, statement: counts.Statement) -> int:
        self.calls += 1
        first = self.calls == 1
        self.entered.set()
        assert self.release.wait(WAIT)
        if first and self.fail_first:
            raise RuntimeError("the first count fails")
        return 42


def in_threads(cache: counts.CountCache, number: int) -> tuple[list[threading.Thread], list[t.Any]]:
    """``number`` started threads counting STATEMENT at generation 7, and the list
    their totals (or errors) are added to as they finish."""
    results: list[t.Any] = []
    threads = []

    def count() -> None:
        try:
            results.append(cache.count(None, STATEMENT, 7))  # type: ignore[arg-type]
        except RuntimeError as exc:
            results.append(exc)

    for _ in range(number):
        thread = threading.Thread(target=count, daemon=True)
        thread.start()
        threads.append(thread)
    return threads, results


def test_threads_that_miss_one_total_at_once_count_it_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    blocked = BlockedCount()
    monkeypatch.setattr(counts, "count_rows", blocked)
    cache = counts.CountCache()
    leader, results = in_threads(cache, 1)
    assert blocked.entered.wait(WAIT)
    followers, follower_results = in_threads(cache, 5)
    time.sleep(0.2)  # the followers reach the flight and wait on it
    blocked.release.set()
    for thread in leader + followers:
        thread.join(WAIT)
    assert results + follower_results == [42] * 6
    assert blocked.calls == 1
    assert cache.count(None, STATEMENT, 7) == 42  # type: ignore[arg-type]
    assert blocked.calls == 1  # kept
    assert cache.count(None, STATEMENT, 8) == 42  # type: ignore[arg-type]
    assert blocked.calls == 2  # another generation: counted again


def test_when_the_first_count_fails_the_waiting_threads_count_themselves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    blocked = BlockedCount(fail_first=True)
    monkeypatch.setattr(counts, "count_rows", blocked)
    cache = counts.CountCache()
    leader, results = in_threads(cache, 1)
    assert blocked.entered.wait(WAIT)
    followers, follower_results = in_threads(cache, 3)
    time.sleep(0.2)
    blocked.release.set()
    for thread in leader + followers:
        thread.join(WAIT)
    assert [type(result) for result in results] == [RuntimeError]
    assert follower_results == [42] * 3
    assert cache._flights == {}


def test_walking_and_gathering_a_search_find_the_same_pages(api: Api) -> None:
    """ "common" is in most events (a page walks the archive), "rare" in two (it
    gathers): every page of both searches lists exactly the matching events in
    order, also past where a walk stops paying off."""
    expected = {"common": [], "rare": []}
    for n in range(24):
        words = ["common"] if n % 4 else []
        if n in (5, 17):
            words.append("rare")
        event_id = add(api, f"Evening {' '.join(words)} {n}", n + 1)
        for word in words:
            expected[word].append(event_id)
    for word, ids in expected.items():
        for per_page in (2, 5, 50):
            listed: list[int] = []
            number = 1
            while True:
                total, found = page(api, f"search={word}&per_page={per_page}&page={number}")
                assert total == len(ids)
                listed += found
                if number * per_page >= total:
                    break
                number += 1
            assert listed == ids, (word, per_page)


def test_walks_words_weighs_a_walk_against_gathering() -> None:
    assert walks_words(matches=3_000, scope=60_000, wanted=10)  # common word, first page
    assert not walks_words(matches=3_000, scope=60_000, wanted=1_000)  # deep page
    assert not walks_words(matches=20, scope=60_000, wanted=10)  # rare word
    assert not walks_words(matches=0, scope=60_000, wanted=10)  # nothing to find


def test_init_replaces_the_narrower_word_index(app: Application, backend: str) -> None:
    """A database made before the walk has the ``(kind, record_id)`` word index;
    ``init`` adds ``(kind, record_id, word, part)`` and drops the one it covers."""
    database = app.database
    on_table = " ON search_word" if backend == "mysql" else ""
    with database.connection_context():
        database.execute_sql(f"DROP INDEX search_word_kind_record_id_word_part{on_table}")
        database.execute_sql(
            "CREATE INDEX search_word_kind_record_id ON search_word (kind, record_id)"
        )
    create_schema(database)
    create_schema(database)  # safe to repeat
    with database.connection_context():
        names = {index.name for index in database.get_indexes("search_word")}
    assert "search_word_kind_record_id_word_part" in names
    assert "search_word_kind_record_id" not in names
