"""``calendar-rest import --from-tec URL`` (calendar.md §6): a second running instance
of this service is the source; also real TEC bodies served from ``tests/data/tec-live``."""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
import typing as t
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from conftest import Api, _ensure_database
from live_server import running

from calendar_rest import cli, create_app
from calendar_rest.app import Application
from calendar_rest.db import connect_database, login_store
from calendar_rest.importing import tec_client
from calendar_rest.models import MODELS, bind_models
from calendar_rest.repository.schema import create_schema

WINDOW = {"start_date": "2020-01-01", "end_date": "2030-01-01", "per_page": 50}
CAPTURES = Path(__file__).parent / "data" / "tec-live"


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGUAGE", "en")


@pytest.fixture
def source(app: Application, database_url: str, tmp_path: Path) -> t.Iterator[Application]:
    """Another instance of the service on a database of its own."""
    if database_url.startswith("sqlite"):
        url = f"sqlite:///{tmp_path / 'source.db'}"
    else:
        parts = urlsplit(database_url)
        url = urlunsplit(parts._replace(path=parts.path + "_src"))
        _ensure_database("postgresql" if url.startswith("postgres") else "mysql", url)
    database = connect_database(url)
    bind_models(database, login_store(database))
    with database.connection_context():
        database.drop_tables(list(MODELS), safe=True)
    create_schema(database)
    database.close()
    other = create_app(url)
    yield other
    other.database.close_all()
    bind_models(app.database, app.login_store)


def fill(source: Api) -> None:
    """Terms, linked records and events written through the source's API."""
    admin = "administrator"
    music = source.post("/categories", admin, json={"name": "Music"}).json
    source.post("/categories", admin, json={"name": "Jazz", "parent": music["id"]})
    source.post("/tags", admin, json={"name": "Free", "description": "No ticket"})
    venue = source.post(
        "/venues",
        admin,
        json={"venue": "Harbor Hall", "address": "12 Wharf St", "city": "Boston", "geo_lat": 42.36,
              "geo_lng": -71.05},
    ).json  # fmt: skip
    one = source.post("/organizers", admin, json={"organizer": "Arts Council"}).json
    two = source.post(
        "/organizers", admin, json={"organizer": "Blue Note", "email": "b@x.org"}
    ).json
    source.create_event(
        title="Jazz night",
        slug="jazz-night",
        timezone="Europe/Paris",
        start_date="2026-12-05 19:00:00",
        end_date="2026-12-05 22:00:00",
        venue=venue["id"],
        organizer=[two["id"], one["id"]],
        categories=["Jazz"],
        tags=["Free"],
        cost="$15",
        website="https://jazz.example",
        featured=True,
    )
    source.create_event(
        title="Folk festival",
        all_day=True,
        start_date="2027-07-03",
        end_date="2027-07-05",
        categories=["Music"],
        venue={"venue": "Beach Stage", "city": "Nice"},
    )
    source.create_event(
        title="Secret rehearsal",
        status="draft",
        timezone="America/New_York",
        start_date="2026-12-10 18:00:00",
        end_date="2026-12-10 20:00:00",
    )


def projection(api: Api) -> dict[str, dict[str, t.Any]]:
    """What a copy must keep, event by event (by slug)."""
    events = api.get(
        "/events", "administrator", query_string={**WINDOW, "status": "publish,draft,private"}
    ).json
    result = {}
    for event in events["events"]:
        venue = event["venue"]
        result[event["slug"]] = {
            "title": event["title"],
            "status": event["status"],
            "dates": (event["start_date"], event["end_date"], event["utc_start_date"]),
            "timezone": event["timezone"],
            "all_day": event["all_day"],
            "venue": (venue["slug"], venue.get("city"), venue.get("geo_lat")) if venue else None,
            "organizers": [o["slug"] for o in event["organizer"]],
            "categories": sorted(
                (c["slug"], c["parent"] and _slug_of(event, c["parent"]))
                for c in event["categories"]
            ),
            "tags": sorted(tag["slug"] for tag in event["tags"]),
            "cost": event["cost"],
            "website": event["website"] if event["website"] != event["url"] else None,
            "featured": event["featured"],
        }
    return result


def _slug_of(event: dict[str, t.Any], term_id: int) -> str | None:
    return next((c["slug"] for c in event["categories"] if c["id"] == term_id), "other")


def run(database_url: str, port: int, *argv: str) -> int:
    url = f"http://127.0.0.1:{port}"
    return cli.main(["--database", database_url, "import", "--from-tec", url, "--quiet", *argv])


def test_copy_from_a_running_instance_is_faithful_and_idempotent(
    api: Api, source: Application, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    origin = Api(source)
    origin.add_user("administrator", "administrator")
    fill(origin)
    expected = projection(origin)
    credentials = ("--user", "administrator", "--password", origin.passwords["administrator"])
    with running(source) as port:
        assert run(database_url, port, *credentials) == 0
        assert capsys.readouterr().out.strip() == (
            "created 3 events, 2 venues, 2 organizers, 2 categories, 1 tags;"
            " updated 0; unchanged 0; failed 0"
        )
        got = projection(api)
        for slug in expected:
            for key in expected[slug]:
                assert (slug, key, got[slug][key]) == (slug, key, expected[slug][key])
        assert got == expected
        organizers = api.get("/organizers", "administrator").json["organizers"]
        assert {len(o["global_id_lineage"]) for o in organizers} == {2}
        for organizer in organizers:  # the source's global_id, then the copy's own
            assert organizer["global_id_lineage"][0].startswith("127.0.0.1")
            assert organizer["global_id_lineage"][1] == organizer["global_id"]
        ids = {slug: event["id"] for slug, event in _events(api).items()}
        assert run(database_url, port, *credentials) == 0
        assert capsys.readouterr().out.strip() == (
            "created 0 events, 0 venues, 0 organizers, 0 categories, 0 tags;"
            " updated 0; unchanged 10; failed 0"
        )
        assert {slug: event["id"] for slug, event in _events(api).items()} == ids
        # anonymously only the published records are read; nothing is duplicated
        assert run(database_url, port) == 0
        assert "created 0 events" in capsys.readouterr().out
    assert len(_events(api)) == 3


def _events(api: Api) -> dict[str, dict[str, t.Any]]:
    events = api.get(
        "/events", "administrator", query_string={**WINDOW, "status": "publish,draft,private"}
    ).json
    return {event["slug"]: event for event in events["events"]}


def test_a_taken_slug_gets_the_suffix_and_is_reported(
    api: Api, source: Application, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    origin = Api(source)
    origin.add_user("administrator", "administrator")
    fill(origin)
    api.create_event(title="Local jazz", slug="jazz-night")  # unrelated, same slug
    with running(source) as port:
        assert run(database_url, port) == 0
    err = capsys.readouterr().err
    assert "slug “jazz-night” is taken here, copied as “jazz-night-2”" in err
    assert {"jazz-night", "jazz-night-2"} <= set(_events(api))


def test_unusable_sources_exit_2(
    api: Api,
    source: Application,
    database_url: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    slept: list[float] = []

    class Recording(tec_client.TecClient):
        """Records the waits between retries instead of sleeping them (3.5 s)."""

        def __init__(self, *args: t.Any, **kwargs: t.Any) -> None:
            super().__init__(*args, sleep=slept.append, **kwargs)

    monkeypatch.setattr(tec_client, "TecClient", Recording)
    origin = Api(source)
    origin.add_user("administrator", "administrator")
    with running(source) as port:
        assert run(database_url, port, "--user", "administrator", "--password", "wrong") == 2
        assert "401" in capsys.readouterr().err
    assert slept == []  # a refusal is not retried
    assert run(database_url, port) == 2  # nobody listens any more
    assert "cannot reach" in capsys.readouterr().err
    # retried, each wait twice the one before
    backoff, retries = tec_client.BACKOFF, tec_client.RETRIES
    assert slept == [backoff * 2**attempt for attempt in range(retries)]


class _Captures(http.server.BaseHTTPRequestHandler):
    """Serves captured TEC bodies as a WordPress site would (``/wp-json/tribe/…``)."""

    bodies: t.ClassVar[dict[str, t.Any]] = {}

    def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
        path = urlsplit(self.path).path
        body = self.bodies.get(path)
        data = json.dumps(body if body is not None else {"code": "rest_no_route"}).encode()
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: t.Any) -> None:
        pass


@contextlib.contextmanager
def serving_captures() -> t.Iterator[int]:
    events = json.loads((CAPTURES / "17-get-events.json").read_text())["body"]
    root = "/wp-json/tribe/events/v1"
    _Captures.bodies = {
        f"{root}/events": events,
        f"{root}/categories": json.loads((CAPTURES / "52-get-categories.json").read_text())["body"],
        f"{root}/tags": json.loads((CAPTURES / "55-get-tags.json").read_text())["body"],
        f"{root}/venues": {"venues": [], "total": 0, "total_pages": 0},
        f"{root}/organizers": {"organizers": [], "total": 0, "total_pages": 0},
    }
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Captures)
    # a short poll: ``shutdown`` waits for the loop's next look (0.5 s by default)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_real_tec_bodies_are_understood(
    api: Api, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """TEC's own shapes: ``venue: []`` for none, embedded linked records, WordPress
    offsets as zones, ``global_id`` of the ``host?id=N`` form."""
    with serving_captures() as port:
        assert run(database_url, port) == 0
        first = capsys.readouterr().out
        assert run(database_url, port) == 0
        again = capsys.readouterr().out
    source = json.loads((CAPTURES / "17-get-events.json").read_text())["body"]["events"]
    assert f"created {len(source)} events" in first
    assert "created 0 events" in again and "failed 0" in again
    copies = _events(api)
    for event in source:
        copy = copies[event["slug"]]
        assert (copy["start_date"], copy["end_date"]) == (event["start_date"], event["end_date"])
        assert copy["timezone"] == event["timezone"]
        assert bool(copy["venue"]) == bool(event["venue"])
        assert [o["organizer"] for o in copy["organizer"]] == [
            o["organizer"] for o in event["organizer"]
        ]


def test_a_series_is_copied_with_its_exceptions_and_lineage(
    api: Api, source: Application, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A calendar_rest source's series: its rule, its moved and edited occurrence, a
    deleted date; ``global_id_lineage`` is the source's, then the copy's own."""
    origin = Api(source)
    origin.add_user("administrator", "administrator")
    master = origin.create_event(
        title="Choir",
        slug="choir",
        timezone="Europe/Paris",
        start_date="2026-12-07 19:00:00",
        end_date="2026-12-07 21:00:00",
        recurrence=["RRULE:FREQ=WEEKLY;COUNT=4"],
        venue={"venue": "Chapel"},
    )
    listed = origin.get(f"/events/{master['id']}/occurrences", query_string=WINDOW).json["events"]
    moved = origin.patch(
        f"/events/{listed[1]['id']}",
        "administrator",
        json={"title": "Choir (guest)", "start_date": "2026-12-15 20:00:00",
              "end_date": "2026-12-15 22:00:00"},
    )  # fmt: skip
    assert moved.status_code == 200, moved.get_data(as_text=True)
    gone = origin.delete(f"/events/{listed[2]['id']}", "administrator")
    assert gone.status_code == 200, gone.get_data(as_text=True)

    def series(api: Api, slug: str = "choir") -> tuple[list[str], list[tuple[t.Any, ...]]]:
        head = _events(api)[slug]
        rows = api.get(f"/events/{head['id']}/occurrences", query_string=WINDOW).json["events"]
        return head["recurrence"], [
            (e["title"], e["start_date"], e["end_date"], e["original_start_date"]) for e in rows
        ]

    expected = series(origin)
    assert [row[0] for row in expected[1]] == ["Choir", "Choir (guest)", "Choir"]
    with running(source) as port:
        assert run(database_url, port) == 0
        assert capsys.readouterr().out.strip() == (
            "created 3 events, 1 venues, 0 organizers, 0 categories, 0 tags;"
            " updated 0; unchanged 0; failed 0"
        )
        assert series(api) == expected
        ids = [event["id"] for event in _events(api).values()]
        assert run(database_url, port) == 0
        assert "updated 0; unchanged 4; failed 0" in capsys.readouterr().out
        # an exception edited at the source is applied in place
        origin.patch(f"/events/{listed[1]['id']}", "administrator", json={"title": "Guests"})
        assert run(database_url, port) == 0
        assert "updated 1; unchanged 3; failed 0" in capsys.readouterr().out
        root = f"http://127.0.0.1:{port}/calendar/events/v1/events/{master['id']}"
        with urllib.request.urlopen(root) as response:  # as the import read it
            original = json.loads(response.read())
    assert series(api)[1][1][0] == "Guests"
    assert sorted(event["id"] for event in _events(api).values()) == sorted(ids)
    # global_id_lineage: the source's lineage, then the copy's own global_id
    copy = _events(api)["choir"]
    assert copy["global_id_lineage"] == [original["global_id"], copy["global_id"]]
    assert original["global_id_lineage"] == [original["global_id"]]
    assert copy["global_id"] != original["global_id"]
    venue = copy["venue"]
    assert venue["global_id_lineage"] == [original["venue"]["global_id"], venue["global_id"]]
