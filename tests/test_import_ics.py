"""``calendar-rest import FILE.ics`` (calendar.md §5), on every backend."""

from __future__ import annotations

import datetime as dt
import typing as t
from pathlib import Path

import pytest
from conftest import Api

from calendar_rest import cli

SAMPLE = Path(__file__).parent / "data" / "import-sample.ics"
SUMMARY_FIRST = (
    "created 9 events, 2 venues, 2 organizers, 3 categories; updated 0; unchanged 0; skipped 2"
)
SUMMARY_AGAIN = (
    "created 0 events, 0 venues, 0 organizers, 0 categories; updated 0; unchanged 9; skipped 2"
)
SALSA = "salsa-weekly@example.org"
SKIPS = [
    "line 64: skipped VEVENT \"broken@example.org\": DTSTART: invalid date-time '20261301T100000'"
    " (line 68)",
    "line 102: skipped VEVENT \"mars@example.org\": DTSTART: unknown TZID 'Mars/Olympus' with no"
    " VTIMEZONE (line 105)",
]
WINDOW = {"start_date": "2026-01-01", "end_date": "2027-01-01", "per_page": 50}


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGUAGE", "en")


def run(url: str, *argv: str) -> int:
    return cli.main(["--database", url, "import", *argv])


def events_by_uid_title(api: Api) -> dict[str, dict[str, t.Any]]:
    response = api.get("/events", "administrator", query_string=WINDOW)
    assert response.status_code == 200, response.get_data(as_text=True)
    return {event["title"]: event for event in response.json["events"]}


def test_import_maps_the_file_and_reports_skips_with_line_numbers(
    api: Api, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(database_url, "--quiet", str(SAMPLE)) == 1  # two components skipped
    out, err = capsys.readouterr()
    assert out.strip().splitlines()[-1] == SUMMARY_FIRST
    assert err.strip().splitlines() == SKIPS
    events = events_by_uid_title(api)
    assert set(events) == {
        "Jazz on the quay",
        "Board meeting",
        "Harbor Folk Festival",
        "Late talk",
        "Picnic",
        "Ferry crossing",
        "Salsa night",
        "Salsa night (moved)",
        "Cancelled gathering",  # listed, marked canceled (anchors.md §1)
    }
    assert events["Cancelled gathering"]["event_status"] == "canceled"
    assert {e["event_status"] for t, e in events.items() if t != "Cancelled gathering"} == {
        "scheduled"
    }
    jazz = events["Jazz on the quay"]
    assert (jazz["start_date"], jazz["end_date"], jazz["timezone"]) == (
        "2026-06-12 19:30:00",
        "2026-06-12 22:30:00",
        "Europe/Paris",
    )
    assert jazz["website"] == "https://example.org/jazz"
    assert "Three quartets &amp; one long night." in jazz["description"]
    assert "Bring &lt;your&gt; friends<br" in jazz["description"]
    assert jazz["venue"]["venue"] == "Harbor Hall"
    assert (jazz["venue"]["address"], jazz["venue"]["city"]) == ("12 Wharf Street", "Boston")
    assert float(jazz["venue"]["geo_lat"]) == pytest.approx(42.3601)
    assert [o["organizer"] for o in jazz["organizer"]] == ["City Arts Council"]
    assert sorted(c["name"] for c in jazz["categories"]) == ["Jazz", "Music", "Outdoors"]
    # a Windows TZID is mapped with icalendar's table; CLASS:PRIVATE → private
    board = events["Board meeting"]
    assert (board["timezone"], board["start_date"], board["status"]) == (
        "Europe/Berlin",
        "2026-06-15 09:00:00",
        "private",
    )
    assert "<b>budget</b>" in board["description"]  # X-ALT-DESC, filtered as untrusted
    assert "script" not in board["description"] and "onerror" not in board["description"]
    festival = events["Harbor Folk Festival"]  # VALUE=DATE, DTEND exclusive
    assert festival["all_day"] is True
    assert (festival["start_date"], festival["end_date"]) == (
        "2026-07-03 00:00:00",
        "2026-07-05 23:59:59",
    )
    assert festival["venue"]["id"] == jazz["venue"]["id"]  # matched in any case
    music = [c["id"] for c in jazz["categories"] if c["name"] == "Music"]
    assert [c["id"] for c in festival["categories"]] == music
    late = events["Late talk"]  # UTC → X-WR-TIMEZONE
    assert (late["timezone"], late["start_date"], late["utc_start_date"]) == (
        "America/New_York",
        "2026-06-20 18:00:00",
        "2026-06-20 22:00:00",
    )
    assert late["organizer"][0]["id"] == jazz["organizer"][0]["id"]  # matched by e-mail
    picnic = events["Picnic"]  # floating, DURATION
    assert (picnic["timezone"], picnic["start_date"], picnic["end_date"]) == (
        "America/New_York",
        "2026-06-21 12:00:00",
        "2026-06-21 14:00:00",
    )
    ferry = events["Ferry crossing"]  # a non-IANA TZID through the file's VTIMEZONE
    assert (ferry["timezone"], ferry["start_date"]) == ("UTC", "2026-06-22 05:00:00")


def test_reimport_is_idempotent_and_updates_in_place(
    api: Api, database_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(database_url, "--quiet", str(SAMPLE)) == 1
    before = {title: event["id"] for title, event in events_by_uid_title(api).items()}
    capsys.readouterr()
    assert run(database_url, "--quiet", str(SAMPLE)) == 1
    assert capsys.readouterr().out.strip() == SUMMARY_AGAIN
    changed = tmp_path / "changed.ics"
    changed.write_text(
        SAMPLE.read_text().replace("SUMMARY:Jazz on the quay", "SUMMARY:Jazz by the sea")
    )
    assert run(database_url, "--quiet", str(changed)) == 1
    assert "updated 1; unchanged 8; skipped 2" in capsys.readouterr().out
    after = {title: event["id"] for title, event in events_by_uid_title(api).items()}
    assert after["Jazz by the sea"] == before["Jazz on the quay"]
    assert len(after) == len(before)
    venues = api.get("/venues", "administrator").json["venues"]
    assert sorted(v["venue"] for v in venues) == ["Harbor Hall", "Town Hall"]


def test_dry_run_writes_nothing(
    api: Api, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(database_url, "--dry-run", "--quiet", str(SAMPLE)) == 1
    assert capsys.readouterr().out.strip() == SUMMARY_FIRST
    assert events_by_uid_title(api) == {}
    assert api.get("/venues", "administrator").json["venues"] == []


def test_a_cancelled_component_marks_the_event_canceled(
    api: Api, database_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """anchors.md §1: the event stays, canceled (it was deleted before event status)."""
    assert run(database_url, "--quiet", str(SAMPLE)) == 1
    jazz_id = events_by_uid_title(api)["Jazz on the quay"]["id"]
    cancelled = tmp_path / "cancelled.ics"
    cancelled.write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:jazz-2026@example.org\r\n"
        "DTSTART;TZID=Europe/Paris:20260612T193000\r\nSUMMARY:Jazz on the quay\r\n"
        "STATUS:CANCELLED\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    assert run(database_url, "--quiet", str(cancelled)) == 0
    assert "updated 1" in capsys.readouterr().out
    kept = events_by_uid_title(api)["Jazz on the quay"]
    assert (kept["id"], kept["event_status"]) == (jazz_id, "canceled")
    assert run(database_url, "--quiet", str(cancelled)) == 0
    assert "updated 0" in capsys.readouterr().out


@pytest.mark.parametrize("content", [None, "not a calendar\n"])
def test_unreadable_or_foreign_files_exit_2(
    database_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None
) -> None:
    path = tmp_path / "input.ics"
    if content is not None:
        path.write_text(content)
    assert run(database_url, str(path)) == 2
    assert capsys.readouterr().err.startswith("calendar-rest: error: ")


def test_usage_errors_exit_2(database_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(database_url) == 2
    assert run(database_url, str(SAMPLE), "--from-tec", "http://127.0.0.1:9") == 2
    assert "either FILE.ics or --from-tec" in capsys.readouterr().err


def test_a_running_server_sees_the_import(
    api: Api, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The generation bump of each committed batch drops the server's cached answers."""
    assert api.get("/events", query_string=WINDOW).json["events"] == []  # cached now
    assert run(database_url, "--quiet", str(SAMPLE)) == 1
    titles = {event["title"] for event in api.get("/events", query_string=WINDOW).json["events"]}
    assert "Jazz on the quay" in titles and "Board meeting" not in titles  # private


def test_author_and_status_apply_to_created_records(
    api: Api, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    author = api.users["author"]
    argv = ("--quiet", "--status", "draft", "--author", "author", str(SAMPLE))
    assert run(database_url, *argv) == 1
    events = events_by_uid_title(api)
    assert events["Picnic"]["status"] == "draft"
    assert events["Picnic"]["author"] == str(author.id)
    assert run(database_url, "--author", "nobody", str(SAMPLE)) == 2


# -- recurring series (§5: RRULE/RDATE/EXDATE, RECURRENCE-ID) ---------------------------


def occurrences(api: Api, event_id: int) -> list[dict[str, t.Any]]:
    response = api.get(f"/events/{event_id}/occurrences", "administrator", query_string=WINDOW)
    assert response.status_code == 200, response.get_data(as_text=True)
    return list(response.json["events"])


def salsa_master(api: Api) -> dict[str, t.Any]:
    response = api.get("/events", "administrator", query_string=WINDOW)
    return next(
        event
        for event in response.json["events"]
        if event["title"] == "Salsa night" and event["recurring_event_id"] is None
    )


def expanded(text: str, uid: str) -> list[tuple[str, str]]:
    """(UTC start, title) of each instance an RFC 5545 expander reads in ``text``."""
    import icalendar
    import recurring_ical_events

    calendar = icalendar.Calendar.from_ical(text)
    series = icalendar.Calendar()
    for component in calendar.walk("VEVENT"):
        if str(component.get("UID")) == uid:
            series.add_component(component)
    return [
        (
            instance["DTSTART"].dt.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S"),
            str(instance["SUMMARY"]),
        )
        for instance in recurring_ical_events.of(series).between(
            dt.date(2026, 1, 1), dt.date(2027, 1, 1)
        )
    ]


def test_a_weekly_series_across_dst_with_a_moved_exception_and_an_exdate(
    api: Api, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(database_url, "--quiet", str(SAMPLE)) == 1
    master = salsa_master(api)
    assert master["recurrence"] == [
        "RRULE:FREQ=WEEKLY;COUNT=6",
        "EXDATE;TZID=America/New_York:20261029T180000",
    ]
    listed = occurrences(api, master["id"])
    got = [(event["utc_start_date"], event["title"]) for event in listed]
    assert got == [
        ("2026-10-15 22:00:00", "Salsa night"),  # EDT
        ("2026-10-22 22:00:00", "Salsa night"),  # the 29th is an EXDATE
        ("2026-11-07 00:00:00", "Salsa night (moved)"),  # the 5th, moved to the 6th 19:00
        ("2026-11-12 23:00:00", "Salsa night"),  # EST: 18:00 local stays
        ("2026-11-19 23:00:00", "Salsa night"),
    ]
    assert got == expanded(SAMPLE.read_text(), SALSA)
    moved = listed[2]
    assert (moved["start_date"], moved["end_date"]) == (
        "2026-11-06 19:00:00",
        "2026-11-06 21:00:00",
    )
    assert moved["original_start_date"] == "2026-11-05 18:00:00"
    assert moved["recurring_event_id"] == master["id"]
    assert {event["venue"]["venue"] for event in listed} == {"Harbor Hall"}


def test_series_reimport_is_idempotent_and_reapplies_exceptions_in_place(
    api: Api, database_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(database_url, "--quiet", str(SAMPLE)) == 1
    master_id = salsa_master(api)["id"]
    ids = [event["id"] for event in occurrences(api, master_id)]
    capsys.readouterr()
    assert run(database_url, "--quiet", str(SAMPLE)) == 1
    assert capsys.readouterr().out.strip() == SUMMARY_AGAIN
    # an edit of the exception is applied in place
    edited = tmp_path / "edited.ics"
    text = SAMPLE.read_text().replace("SUMMARY:Salsa night (moved)", "SUMMARY:Salsa on Friday")
    edited.write_text(text.replace("20261106T190000", "20261106T193000"))
    assert run(database_url, "--quiet", str(edited)) == 1
    assert "updated 1; unchanged 8; skipped 2" in capsys.readouterr().out
    listed = occurrences(api, master_id)
    assert [event["id"] for event in listed] == ids
    assert (listed[2]["title"], listed[2]["start_date"]) == (
        "Salsa on Friday",
        "2026-11-06 19:30:00",
    )
    assert [(e["utc_start_date"], e["title"]) for e in listed] == expanded(
        edited.read_text(), SALSA
    )
    # an exception missing from the file goes back to the series values
    without = tmp_path / "without.ics"
    head, _, tail = SAMPLE.read_text().rpartition("BEGIN:VEVENT\nUID:salsa-weekly@example.org")
    without.write_text(head + tail[tail.index("END:VEVENT\n") + len("END:VEVENT\n") :])
    assert run(database_url, "--quiet", str(without)) == 1
    assert "updated 1; unchanged 7; skipped 2" in capsys.readouterr().out
    listed = occurrences(api, master_id)
    assert [event["id"] for event in listed] == ids
    assert (listed[2]["title"], listed[2]["start_date"]) == ("Salsa night", "2026-11-05 18:00:00")
    assert [(e["utc_start_date"], e["title"]) for e in listed] == expanded(
        without.read_text(), SALSA
    )
    assert run(database_url, "--quiet", str(without)) == 1
    assert "updated 0; unchanged 8; skipped 2" in capsys.readouterr().out


SERIES_FILE = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"
    "BEGIN:VEVENT\r\nUID:daily@example.org\r\nDTSTART;TZID=Europe/Paris:20261201T090000\r\n"
    "RRULE:FREQ=DAILY;COUNT=4\r\nSUMMARY:Daily\r\nEND:VEVENT\r\n"
    "BEGIN:VEVENT\r\nUID:daily@example.org\r\n"
    "RECURRENCE-ID;TZID=Europe/Paris:20261202T090000\r\n"
    "DTSTART;TZID=Europe/Paris:20261202T090000\r\nSUMMARY:Daily\r\nSTATUS:CANCELLED\r\n"
    "END:VEVENT\r\nEND:VCALENDAR\r\n"
)


def test_a_cancelled_recurrence_id_deletes_that_occurrence(
    api: Api, database_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "daily.ics"
    path.write_text(SERIES_FILE)
    assert run(database_url, "--quiet", str(path)) == 0
    assert capsys.readouterr().out.strip().endswith("updated 1; unchanged 0; skipped 0")
    window = {"start_date": "2026-01-01", "end_date": "2027-12-31"}
    master = api.get("/events", "administrator", query_string=window).json["events"][0]
    listed = api.get(f"/events/{master['id']}/occurrences", "administrator", query_string=window)
    assert [e["start_date"][:10] for e in listed.json["events"]] == [
        "2026-12-01",
        "2026-12-03",
        "2026-12-04",
    ]
    assert master["recurrence"] == [
        "RRULE:FREQ=DAILY;COUNT=4",
        "EXDATE;TZID=Europe/Paris:20261202T090000",
    ]  # as DELETE with scope this
    trashed = api.get("/events", "administrator", query_string={**window, "status": "trash"})
    assert [e["original_start_date"] for e in trashed.json["events"]] == ["2026-12-02 09:00:00"]
    assert run(database_url, "--quiet", str(path)) == 0
    assert "updated 0; unchanged 2; skipped 0" in capsys.readouterr().out


def test_bad_rules_and_orphan_recurrence_ids_are_skipped_with_line_numbers(
    api: Api, database_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.ics"
    path.write_bytes(
        b"\xef\xbb\xbfBEGIN:VCALENDAR\nVERSION:2.0\n"
        b"BEGIN:VEVENT\nUID:often@example.org\nDTSTART:20260601T180000Z\n"
        b"LOCATION:Nowhere Hall\nRRULE:FREQ=MINUTELY\nSUMMARY:Often\nEND:VEVENT\n"
        b"BEGIN:VEVENT\nUID:odd@example.org\nDTSTART:20260601T180000Z\n"
        b"RRULE:FREQ=SOMETIMES\nSUMMARY:Odd\nEND:VEVENT\n"
        b"BEGIN:VEVENT\nUID:orphan@example.org\nRECURRENCE-ID:20260601T180000Z\n"
        b"DTSTART:20260601T190000Z\nSUMMARY:Orphan\nEND:VEVENT\n"
        b"BEGIN:VEVENT\nUID:once@example.org\nDTSTART:20260602T180000Z\nSUMMARY:Once\n"
        b"END:VEVENT\nEND:VCALENDAR\n"
    )  # UTF-8 with a BOM and LF line ends
    assert run(database_url, str(path)) == 1
    out, err = capsys.readouterr()
    assert out.strip() == (
        "created 1 events, 0 venues, 0 organizers, 0 categories; updated 0; unchanged 0; skipped 3"
    )
    horizon = dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=730)  # site zone: UTC
    assert err.strip().splitlines() == [
        'line 3: skipped VEVENT "often@example.org": recurrence[0] "RRULE:FREQ=MINUTELY": more'
        f" than 2000 occurrences before {horizon:%Y-%m-%d} (line 7)",
        'line 10: skipped VEVENT "odd@example.org": recurrence[0] "RRULE:FREQ=SOMETIMES":'
        " unknown FREQ (line 13)",
        'line 16: skipped VEVENT "orphan@example.org": RECURRENCE-ID: no recurring series has'
        " the UID of this component (line 18)",
    ]
    assert api.get("/venues", "administrator").json["venues"] == []  # nothing of a skip
