"""The search words of recurring series (``repository.series_words``): the rows of a
series share one copy of the words of their series' text, instead of each holding
its own; an occurrence that changed some of its text alone (an exception) is found by
its own words for that text and no longer by the series' old ones, and a reset gives
it the series' words back. Every series edit keeps search answering as before: a
series-wide edit of the text, a split, the master's date deleted, a new rule, the end
of the series, a password (security.md A1), and an index of copied words rebuilt.

Found when tried as an attacker would: the words of a 700 KB description were copied
into each of a series' 2,000 occurrences, 40 million rows written in one request.
"""

from __future__ import annotations

import datetime as dt
import typing as t

import pytest
from conftest import Api, api_for

import calendar_rest
from calendar_rest.app import Application
from calendar_rest.clock import ManualClock
from calendar_rest.db import write_transaction
from calendar_rest.models import SHARED_KIND, Event, SearchWord, SiteState, User, bind_models
from calendar_rest.queries.lookups.site_state import SEARCH_INDEX
from calendar_rest.repository.changes import collecting_changes
from calendar_rest.repository.posts import WriteContext
from calendar_rest.repository.series_edits import reset_exceptions
from calendar_rest.rules.search import indexed_words, replace_words

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.timezone.utc)
WINDOW = {"start_date": "2020-01-01", "end_date": "2030-12-31", "per_page": 50}
Json = dict[str, t.Any]


@pytest.fixture
def cal(api: Api, sibling_app: t.Callable[..., Application]) -> Api:
    """A client whose app's clock stands still at ``NOW``."""
    return api_for(sibling_app(clock=ManualClock(NOW)), api)


def create(cal: Api, count: int = 4, **fields: t.Any) -> list[int]:
    """A daily series of ``count`` ("Jazz Night", a saxophone quartet); its rows' IDs in
    date order, the master first."""
    body = {
        "title": "Jazz Night",
        "description": "<p>Saxophone quartet</p>",
        "start_date": "2026-03-02 18:00:00",
        "end_date": "2026-03-02 20:00:00",
        "recurrence": [f"RRULE:FREQ=DAILY;COUNT={count}"],
        **fields,
    }
    response = cal.post("/events", "administrator", json=body)
    assert response.status_code == 201, response.get_data(as_text=True)
    return rows_of(cal, int(response.json["id"]))


def rows_of(cal: Api, master: int) -> list[int]:
    response = cal.get(f"/events/{master}/occurrences", "administrator", query_string=WINDOW)
    assert response.status_code == 200, response.get_data(as_text=True)
    return [event["id"] for event in response.json["events"]]


def found(cal: Api, search: str, as_: str | None = None) -> list[int]:
    """The IDs a search of the archive lists, in date order."""
    response = cal.get("/events", as_, query_string={**WINDOW, "search": search})
    assert response.status_code == 200, response.get_data(as_text=True)
    return [event["id"] for event in response.json["events"]]


def patch(cal: Api, event_id: int, **body: t.Any) -> Json:
    response = cal.patch(f"/events/{event_id}", "administrator", json=body)
    assert response.status_code == 200, response.get_data(as_text=True)
    return t.cast(Json, response.json)


def own_words(app: Application, ids: t.Sequence[int]) -> list[str]:
    """The words stored as the rows' own (not shared with their series)."""
    with app.database.connection_context():
        query = SearchWord.select(SearchWord.word).where(
            (SearchWord.kind == "e") & SearchWord.record_id.in_(list(ids))
        )
        return sorted(row.word for row in query)


def copies_of(app: Application, word: str) -> int:
    """How many times ``word`` is stored, shared or as a record's own."""
    with app.database.connection_context():
        return int(SearchWord.select().where(SearchWord.word == word).count())


# -- sharing -----------------------------------------------------------------------------


def test_occurrences_are_found_by_the_words_of_their_series_stored_once(cal: Api) -> None:
    rows = create(cal, count=30)
    assert found(cal, "jazz")[:30] == rows and found(cal, "saxo quartet") == rows
    assert found(cal, "jazz night saxophone") == rows
    assert own_words(cal.app, rows) == []
    assert copies_of(cal.app, "saxophone") == 1 and copies_of(cal.app, "jazz") == 1


def test_an_exception_is_found_by_its_own_words_and_not_by_the_series_old_ones(
    cal: Api,
) -> None:
    rows = create(cal)
    third = rows[2]
    others = [row for row in rows if row != third]
    patch(cal, third, title="Blues evening")  # an occurrence: scope "this"
    assert found(cal, "blues") == [third]
    assert found(cal, "jazz") == others
    assert found(cal, "saxophone") == rows  # the text it did not change: still shared
    assert own_words(cal.app, others) == [] and own_words(cal.app, [third]) == ["blues", "evening"]
    patch(cal, rows[0], scope="all", title="Swing Night", description="Trumpet duo")
    assert found(cal, "swing") == others and found(cal, "jazz") == []
    assert found(cal, "trumpet") == rows and found(cal, "saxophone") == []
    assert found(cal, "blues") == [third]
    # once per set of fields rows share: all (the others), all but the title (``third``)
    assert copies_of(cal.app, "trumpet") == 2


def test_the_master_changed_alone_keeps_its_own_words_through_series_edits(cal: Api) -> None:
    rows = create(cal)
    master = rows[0]
    patch(cal, master, scope="this", title="Opening night")
    assert found(cal, "opening") == [master] and found(cal, "jazz") == rows[1:]
    patch(cal, master, scope="all", title="Closing night", description="Organ solo")
    assert found(cal, "opening") == [master] and found(cal, "closing") == rows[1:]
    assert found(cal, "organ") == rows and found(cal, "night") == rows


def test_a_reset_gives_the_series_words_back(cal: Api) -> None:
    rows = create(cal)
    third = rows[2]
    patch(cal, third, title="Blues evening", description="Harmonica")
    assert found(cal, "blues harmonica") == [third] and found(cal, "jazz") != rows
    database = cal.app.database
    bind_models(database, cal.app.login_store)
    with database.connection_context(), write_transaction(database):
        with collecting_changes() as changes:
            row = Event.get_by_id(third)
            reset_exceptions(row, WriteContext(User(login=""), "UTC", ManualClock(NOW)))
            changes.commit()
    assert found(cal, "blues") == [] and found(cal, "harmonica") == []
    assert found(cal, "jazz saxophone") == rows
    assert own_words(cal.app, rows) == []


# -- every series edit -------------------------------------------------------------------


def test_a_split_series_is_found_by_the_words_of_each_part(cal: Api) -> None:
    rows = create(cal)
    patch(cal, rows[2], scope="following", title="Late jazz")
    assert found(cal, "late") == rows[2:] and found(cal, "night") == rows[:2]
    assert found(cal, "jazz saxophone") == rows
    patch(cal, rows[2], scope="all", description="Piano trio")
    assert found(cal, "piano") == rows[2:] and found(cal, "saxophone") == rows[:2]


def test_deleting_the_masters_date_keeps_the_series_words(cal: Api) -> None:
    rows = create(cal)
    response = cal.delete(f"/events/{rows[0]}", "administrator", query_string={"scope": "this"})
    assert response.status_code == 200, response.get_data(as_text=True)
    assert found(cal, "jazz saxophone") == rows[1:]
    patch(cal, rows[1], scope="all", title="Heir night")
    assert found(cal, "heir") == rows[1:] and found(cal, "jazz") == []
    assert found(cal, "heir", "administrator") == rows[1:]


def test_a_new_rule_gives_new_occurrences_the_series_words(cal: Api) -> None:
    rows = create(cal)
    patch(cal, rows[0], scope="all", recurrence=["RRULE:FREQ=DAILY;COUNT=6"])
    after = rows_of(cal, rows[0])
    assert len(after) == 6 and after[:4] == rows
    assert found(cal, "jazz saxophone") == after
    patch(cal, rows[0], scope="all", start_date="2026-03-02 19:30:00")  # moved: kept rows
    assert found(cal, "jazz saxophone") == rows_of(cal, rows[0]) == after
    assert own_words(cal.app, after) == []


def test_the_end_of_a_series_gives_the_master_its_own_words(cal: Api) -> None:
    rows = create(cal)
    patch(cal, rows[0], scope="all", recurrence=[])
    assert found(cal, "jazz saxophone") == [rows[0]]
    assert own_words(cal.app, [rows[0]]) == ["jazz", "night", "quartet", "saxophone"]
    with cal.app.database.connection_context():
        assert SearchWord.select().where(SearchWord.kind == SHARED_KIND).count() == 0
    assert copies_of(cal.app, "saxophone") == 1


def test_the_end_of_a_series_whose_master_changed_its_title_alone(cal: Api) -> None:
    rows = create(cal)
    patch(cal, rows[0], scope="this", title="Opening night")
    patch(cal, rows[0], scope="all", recurrence=[])
    assert found(cal, "opening saxophone") == [rows[0]] and found(cal, "jazz") == []
    assert own_words(cal.app, [rows[0]]) == ["night", "opening", "quartet", "saxophone"]
    with cal.app.database.connection_context():
        assert SearchWord.select().where(SearchWord.kind == SHARED_KIND).count() == 0


def test_a_trashed_series_is_found_by_who_may_list_the_trash(cal: Api) -> None:
    rows = create(cal)
    response = cal.delete(f"/events/{rows[0]}", "administrator", query_string={"scope": "all"})
    assert response.status_code == 200, response.get_data(as_text=True)
    assert found(cal, "jazz") == []
    listed = cal.get(
        "/events", "administrator", query_string={**WINDOW, "search": "jazz", "status": "trash"}
    )
    assert [event["id"] for event in listed.json["events"]] == rows


# -- password-protected series (security.md A1) -----------------------------------------


def test_the_content_words_of_a_protected_series_are_searched_by_who_may_read_them(
    cal: Api,
) -> None:
    rows = create(cal, title="Locked gala", description="Hidden treasure", password="s3cret")
    third = rows[2]
    assert found(cal, "gala") == rows  # title words: everybody
    assert found(cal, "treasure") == [] and found(cal, "treasure", "subscriber") == []
    assert found(cal, "treasure", "administrator") == rows
    patch(cal, third, description="Secret map")  # its own content: protected as well
    assert found(cal, "secret map") == [] and found(cal, "secret", "administrator") == [third]
    patch(cal, rows[0], scope="all", password="")
    assert found(cal, "treasure") == [row for row in rows if row != third]
    assert found(cal, "secret map") == [third]
    patch(cal, rows[0], scope="all", password="again")
    assert found(cal, "treasure") == [] and found(cal, "secret") == []
    assert found(cal, "gala") == rows


# -- the index of an earlier version -----------------------------------------------------


def test_an_index_of_copied_words_is_rebuilt_shared(cal: Api, app: Application) -> None:
    rows = create(cal, count=5)
    patch(cal, rows[1], title="Blues evening")
    with app.database.connection_context():
        # as version 2 stored them: every row its own copy of every word
        Event.update(words_from=None).execute()
        SearchWord.delete().execute()
        for row in Event.select().where(Event.id.in_(rows)):
            words = indexed_words(row.title, row.excerpt, row.description)
            replace_words(SearchWord, "e", row.id, words)
        SiteState.update(value=2).where(SiteState.key == SEARCH_INDEX).execute()
        assert copies_of(app, "saxophone") == 5

    calendar_rest.create_schema(app.database)

    assert copies_of(app, "saxophone") == 2  # shared by four rows, and by the exception
    assert own_words(app, rows) == ["blues", "evening"]
    assert found(cal, "saxophone") == rows and found(cal, "blues") == [rows[1]]
    assert found(cal, "jazz") == [row for row in rows if row != rows[1]]
    patch(cal, rows[0], scope="all", title="Swing Night")
    assert found(cal, "swing") == [row for row in rows if row != rows[1]]
