"""A list total that outlives a write catches up by ranges of event IDs
(``queries.counts``): only the ranges of the events the log says were written are
counted again, and the total stays exactly what a whole count gives, for every
caller, after every kind of event write; when the log cannot name the writes, the
total is counted whole."""

from __future__ import annotations

import datetime as dt
import random
import re
import typing as t

import pytest
from conftest import Api, api_for

from calendar_rest.app import Application
from calendar_rest.models import ChangeEntry, SiteState
from calendar_rest.queries.lists import counts
from calendar_rest.queries.lists.archive import ArchiveFilters, archive_total
from calendar_rest.queries.lists.changes import changed_events
from calendar_rest.queries.lookups.site_state import CHANGES_PRUNED, generation
from calendar_rest.repository.changes import PendingChanges

#: a range's count: the archive's filter, restricted to one range of IDs
RANGED = re.compile(r"SELECT COUNT\(1\) FROM .*BETWEEN", re.IGNORECASE)
#: a whole count: plain (the first), or by ranges (once a total outlives a write)
WHOLE = re.compile(r"SELECT COUNT\(1\) FROM \(|COUNT\(1\) .*GROUP BY 1$", re.IGNORECASE)
TRANSLATIONS_CHECK = re.compile(r"translation_of\W* IS NOT NULL", re.IGNORECASE)
CALLERS = (None, "author", "administrator")
WORDS = ("River walk", "Jazz night", "Quiet river jazz", "Market day", "Talk")


def day(days: int, hour: int = 12) -> str:
    when = dt.datetime.now(dt.timezone.utc).date() + dt.timedelta(days=days)
    return f"{when.isoformat()} {hour:02d}:00:00"


def filters() -> list[str]:
    return [
        "",
        "categories=jazz",
        "search=river",
        f"start_date={day(5)[:10]}&end_date={day(20)[:10]}",
        "categories=jazz&search=quiet",
        "featured=true",
    ]


def total(api: Api, query: str, caller: str | None) -> int:
    response = api.get(f"/events?per_page=2&{query}", caller)
    assert response.status_code == 200, response.get_data(as_text=True)
    body = t.cast(dict[str, t.Any], response.json)
    return int(body["total"])


def sql_of(executed: list[str], pattern: re.Pattern[str]) -> int:
    return sum(1 for sql in executed if pattern.search(sql) and not TRANSLATIONS_CHECK.search(sql))


@pytest.fixture
def narrow_ranges(monkeypatch: pytest.MonkeyPatch) -> None:
    """Four IDs per range, so a few dozen events span many ranges."""
    monkeypatch.setattr(counts, "ID_RANGE", 4)


@pytest.fixture
def whole_counts(api: Api, sibling_app: t.Callable[..., Application]) -> Api:
    """A client of a second app that keeps nothing: every total counted whole."""
    return api_for(sibling_app(cache_entries=0, count_cache_entries=0), api)


def test_caught_up_totals_equal_whole_counts_after_every_kind_of_write(
    api: Api, whole_counts: Api, kept_totals: list[str], narrow_ranges: None
) -> None:
    rng = random.Random(16)
    events: list[int] = []

    def create() -> None:
        created = api.create_event(
            as_=rng.choice(("author", "administrator")),
            title=rng.choice(WORDS),
            start_date=day(rng.randint(1, 30)),
            end_date=day(rng.randint(31, 32), 14),
            categories=rng.sample(["Jazz", "Food"], rng.randint(0, 2)),
            status=rng.choice(("publish", "publish", "draft", "private")),
        )
        events.append(int(created["id"]))

    def edit() -> None:
        event_id = rng.choice(events)
        change = rng.choice(
            [
                {"title": rng.choice(WORDS)},
                {"start_date": day(rng.randint(1, 30)), "end_date": day(31)},
                {"start_date": day(-20), "end_date": day(-19)},  # into the past
                {"categories": rng.sample(["Jazz", "Food"], rng.randint(0, 2))},
                {"status": rng.choice(("publish", "draft", "private", "pending"))},
                {"password": rng.choice(("", "secret"))},
                {"featured": rng.choice((True, False))},
            ]
        )
        response = api.patch(f"/events/{event_id}", "administrator", json=change)
        assert response.status_code == 200, response.get_data(as_text=True)

    def remove() -> None:
        event_id = events.pop(rng.randrange(len(events)))
        force = rng.choice(("", "?force=true"))
        response = api.delete(f"/events/{event_id}{force}", "administrator")
        assert response.status_code == 200, response.get_data(as_text=True)

    for _ in range(12):
        create()
    checked = 0
    for step in range(30):
        for query in filters():
            for caller in CALLERS:
                kept = total(api, query, caller)
                assert kept == total(whole_counts, query, caller), (step, query, caller)
                checked += 1
        if step == 0:
            kept_totals.clear()  # every total is kept now: what follows catches up
        action = rng.choice((create, edit, edit, edit, remove) if len(events) > 4 else (create,))
        action()
    combinations = len(filters()) * len(CALLERS)
    assert sql_of(kept_totals, RANGED) > 30  # ranges were counted again
    # each total was counted whole at most once more: when it first outlived a write
    assert sql_of(kept_totals, WHOLE) <= combinations
    assert checked == 30 * combinations


@pytest.mark.parametrize("shift", range(4))
def test_an_edit_counts_only_its_range_again(
    api: Api, whole_counts: Api, kept_totals: list[str], narrow_ranges: None, shift: int
) -> None:
    """``shift`` events in the past first: the ranges' bounds fall between other IDs."""
    for n in range(shift):
        api.create_event(title=f"Shift {n}", start_date=day(-40), end_date=day(-40, 14))
    ids = [int(api.create_event(title=f"Spread {n}")["id"]) for n in range(16)]
    assert total(api, "", None) == 16
    api.patch(f"/events/{ids[3]}", "administrator", json={"title": "Edited"})
    assert total(api, "", None) == 16  # the first write it outlives: counted by ranges
    kept_totals.clear()
    api.patch(f"/events/{ids[9]}", "administrator", json={"status": "draft"})
    kept = total(api, "", None)
    assert kept == total(whole_counts, "", None)
    assert kept == 15
    assert (sql_of(kept_totals, RANGED), sql_of(kept_totals, WHOLE)) == (1, 0)
    kept_totals.clear()
    # two published events of one range (ids[9] is the draft): 2+ of ids[10:] share
    # the range of ids[12], whatever the IDs' offset
    same_range = [pk for pk in ids[10:] if pk // 4 == ids[12] // 4]
    assert len(same_range) >= 2 and ids[0] // 4 != ids[12] // 4
    api.delete(f"/events/{ids[0]}?force=true", "administrator")
    api.patch(f"/events/{same_range[0]}", "administrator", json={"start_date": day(-9)})
    api.patch(f"/events/{same_range[1]}", "administrator", json={"title": "Same range"})
    kept = total(api, "", None)
    assert kept == total(whole_counts, "", None)
    assert kept == 13
    assert (sql_of(kept_totals, RANGED), sql_of(kept_totals, WHOLE)) == (2, 0)  # two ranges


def test_a_write_to_another_kind_of_record_counts_the_total_whole(
    api: Api, kept_totals: list[str], narrow_ranges: None
) -> None:
    """A venue's or term's write can change which events a filter finds (a venue's
    coordinates, a deleted category), without naming them in the log."""
    for n in range(6):
        api.create_event(title=f"Before {n}", categories=["Jazz"])
    assert total(api, "categories=jazz", None) == 6
    api.create_event(title="Outlived", categories=["Jazz"])
    assert total(api, "categories=jazz", None) == 7  # kept by ranges from now
    jazz = api.get("/categories?slug=jazz").json
    assert isinstance(jazz, dict)
    term_id = jazz["categories"][0]["id"]
    response = api.post(f"/categories/{term_id}", "administrator", json={"name": "Jazz!"})
    assert response.status_code == 200, response.get_data(as_text=True)
    kept_totals.clear()
    assert total(api, "categories=jazz", None) == 7
    assert (sql_of(kept_totals, RANGED), sql_of(kept_totals, WHOLE)) == (0, 1)


def latest_position() -> int:
    return generation()


def test_changed_events_names_the_events_written_or_says_it_cannot(
    app: Application, api: Api
) -> None:
    start = latest_position()
    first = int(api.create_event(title="Logged")["id"])
    second = int(api.create_event(title="Logged too")["id"])
    api.patch(f"/events/{first}", "administrator", json={"title": "Logged again"})
    with app.database.connection_context():
        now = latest_position()
        assert now == start + 3
        assert changed_events(start, now, 10) == {first, second}
        assert changed_events(start + 2, now, 10) == {first}
        assert changed_events(now, now, 10) == set()
        assert changed_events(start, now, 2) is None  # more than two entries
    venue = api.post("/venues", "administrator", json={"venue": "Hall"})
    assert venue.status_code == 201, venue.get_data(as_text=True)
    with app.database.connection_context():
        assert changed_events(now, latest_position(), 10) is None  # a venue was written
        with app.database.atomic():
            PendingChanges().commit()  # a write that logs nothing
        after_silent = latest_position()
        assert ChangeEntry.select().where(ChangeEntry.position == after_silent).count() == 0
        assert changed_events(after_silent - 1, after_silent, 10) is None
    third = int(api.create_event(title="After compaction")["id"])
    with app.database.connection_context():
        head = latest_position()
        assert changed_events(head - 1, head, 10) == {third}
        SiteState.update(value=head).where(SiteState.key == CHANGES_PRUNED).execute()
        assert changed_events(head - 1, head, 10) is None  # compaction dropped entries there


def test_hide_subsequent_recurrences_is_never_kept_by_ranges(app: Application) -> None:
    """Whether a row is its series' first depends on the series' other rows."""
    assert archive_total(ArchiveFilters(language="en"), None)[1] is not None
    assert archive_total(ArchiveFilters(language="en", first_of_series=True), None)[1] is None
