"""A real browser on other sites (open-web.md §5): headless Chromium, driven by
puppeteer-core (``tests/clients/browser.js``), loads test pages from three origins and
calls the service, run by its CLI with ``CALENDAR_REST_CORS_ORIGINS`` listing one of them:

- *listed*: a static server on 127.0.0.1:<p1>, in ``cors_origins``;
- *unlisted*: a static server on 127.0.0.1:<p2>, not in it;
- *same origin*: a reverse proxy on 127.0.0.1:<p3> serving the pages and forwarding the
  API with the browser's ``Host``.

FullCalendar (v6, its global bundle) renders a month of the demo data on the listed and
unlisted origins; the screenshot lands in ``.ci/artifacts/``.

Needs Chromium (``apt-get install chromium``) and ``npm ci --prefix tests/clients``;
skipped without them, failed under ``CALENDAR_REST_REQUIRE_CLIENTS=1`` (CI).
"""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import html
import random
import string
import typing as t
import urllib.parse
from pathlib import Path

import pytest
from client_servers import (
    NS,
    Service,
    artifact,
    calendar_service,
    call,
    chromium,
    node,
    run_node,
    same_origin_proxy,
    static_origin,
)

pytestmark = [pytest.mark.clients, pytest.mark.server]

#: every status an administrator may list, to see whatever a write created
ANY_STATUS = "publish,future,draft,pending,private"
#: open-web.md §5 E: the headers a page on another origin can read
EXPOSED = ["x-wp-total", "x-wp-totalpages", "x-tec-total", "x-tec-totalpages", "link"]


@dataclasses.dataclass
class Origins:
    listed: str
    unlisted: str


@pytest.fixture(scope="module")
def browser() -> str:
    """Chromium's path, once Chromium, Node.js and the npm packages are known present."""
    binary = chromium()
    node()
    return binary


@pytest.fixture(scope="module")
def origins(browser: str) -> t.Iterator[Origins]:
    with static_origin() as listed, static_origin() as unlisted:
        yield Origins(listed=listed, unlisted=unlisted)


@pytest.fixture(scope="module")
def service(origins: Origins, tmp_path_factory: pytest.TempPathFactory) -> t.Iterator[Service]:
    directory = tmp_path_factory.mktemp("browser-service")
    with calendar_service(directory, cors_origins=[origins.listed]) as running:
        yield running


@pytest.fixture(scope="module")
def same_origin(service: Service) -> t.Iterator[str]:
    with same_origin_proxy(service) as origin:
        yield origin


def visit(browser: str, url: str, **plan: t.Any) -> dict[str, t.Any]:
    """Open ``url`` in a fresh browser context and run ``plan`` (see browser.js)."""
    report = run_node("browser.js", {"chromium": browser, "visits": [{"url": url, **plan}]})
    return t.cast(dict[str, t.Any], report["visits"][0])


def probe_page(origin: str) -> str:
    return f"{origin}/pages/probe.html"


def unique_word() -> str:
    """A word no demo title has, for finding (or not) what a probe created."""
    return "probe" + "".join(random.choices(string.ascii_lowercase, k=12))


def event_fields(word: str) -> dict[str, str]:
    day = dt.date.today() + dt.timedelta(days=30)
    return {
        "title": f"Browser {word}",
        "start_date": f"{day} 10:00:00",
        "end_date": f"{day} 11:00:00",
        "status": "publish",
    }


def events_with(service: Service, word: str) -> list[dict[str, t.Any]]:
    """Every event (any status, as the administrator sees them) whose text has ``word``."""
    return service.all_events(authenticated=True, search=word, status=ANY_STATUS)


def trash(service: Service, event_id: int) -> None:
    answer = call(
        "DELETE",
        f"{service.api}/events/{event_id}",
        headers={"Authorization": service.authorization},
    )
    assert answer.status == 200, (answer.status, answer.body)


def create_directly(service: Service, word: str) -> dict[str, t.Any]:
    """Create an event without any browser (no ``Origin``), as a server-side tool would."""
    answer = call(
        "POST",
        f"{service.api}/events",
        headers={"Authorization": service.authorization},
        json_body=event_fields(word),
    )
    assert answer.status == 201, (answer.status, answer.body)
    return t.cast(dict[str, t.Any], answer.body)


def explain(report: dict[str, t.Any]) -> str:
    """What the browser saw, for assertion messages."""
    return (
        f"calls={report['calls']}\nconsole={report['console']}\nfailed={report['failed']}\n"
        f"page errors={report['pageErrors']}"
    )


# -- unlisted origin: reads yes, writes no ---------------------------------------------


def test_unlisted_origin_reads_the_list_and_its_totals(
    browser: str, origins: Origins, service: Service
) -> None:
    """§5, unlisted GET row: ``Access-Control-Allow-Origin: *`` and the E headers exposed."""
    expected = service.get("/events", per_page=2)
    assert expected.status == 200
    report = visit(
        browser,
        probe_page(origins.unlisted),
        calls=[{"fn": "get", "args": [f"{service.api}/events?per_page=2", "omit"]}],
    )
    [answer] = report["calls"]
    assert answer["fetched"], explain(report)
    assert answer["status"] == 200
    assert answer["type"] == "cors"
    headers = answer["headers"]
    for name in EXPOSED:
        assert name in headers, f"{name} not readable by the page: {sorted(headers)}"
    assert headers["x-wp-total"] == expected.headers["X-WP-Total"]
    assert int(headers["x-wp-total"]) == answer["body"]["total"] >= 4
    assert [event["id"] for event in answer["body"]["events"]] == [
        event["id"] for event in expected.body["events"]
    ]


def test_unlisted_origin_cannot_write_with_an_authorization_header(
    browser: str, origins: Origins, service: Service
) -> None:
    """§5, unlisted preflight for POST: no ``Access-Control-Allow-*``, so the browser
    never sends the POST; nothing is created."""
    word = unique_word()
    report = visit(
        browser,
        probe_page(origins.unlisted),
        calls=[
            {
                "fn": "postJson",
                "args": [f"{service.api}/events", service.authorization, event_fields(word)],
            }
        ],
    )
    [answer] = report["calls"]
    assert not answer["fetched"], f"the page read the answer to its POST: {answer}"
    assert events_with(service, word) == []


def test_unlisted_origin_cannot_write_with_the_browsers_credentials(
    browser: str, origins: Origins, service: Service
) -> None:
    """§5, unlisted POST row (and why 2. and 3.): a form POST needs no preflight and goes
    out with the credentials the browser holds for the service (stood for here by an
    ``Authorization`` header added to every request to the service); the server must
    refuse it before any side effect, a ``_method=DELETE`` override included."""
    word = unique_word()
    victim = create_directly(service, unique_word())
    credentials = {"prefix": service.origin, "headers": {"Authorization": service.authorization}}
    report = visit(
        browser,
        probe_page(origins.unlisted),
        inject=credentials,
        calls=[
            {"fn": "postForm", "args": [f"{service.api}/events", event_fields(word), "include"]},
            {
                "fn": "postForm",
                "args": [f"{service.api}/events/{victim['id']}?_method=DELETE", {}, "include"],
            },
            {
                "fn": "postForm",
                "args": [
                    f"{service.api}/events/{victim['id']}",
                    {"title": "Defaced"},
                    "include",
                ],
            },
        ],
    )
    for answer in report["calls"]:
        assert not answer["fetched"], f"the page read the answer to its POST: {answer}"
    assert events_with(service, word) == [], "a cross-site form POST created an event"
    after = service.get(f"/events/{victim['id']}", authenticated=True)
    assert after.status == 200, (
        f"a cross-site form POST with _method=DELETE trashed it: {after.body}"
    )
    assert (after.body["status"], after.body["title"]) == (victim["status"], victim["title"]), (
        "a cross-site form POST changed an event"
    )
    trash(service, victim["id"])


# -- listed origin: credentials allowed ------------------------------------------------


def test_listed_origin_writes_with_an_authorization_header(
    browser: str, origins: Origins, service: Service
) -> None:
    """§5, listed row: the preflight is answered with the M and H lists, the POST creates
    the event and the page reads the answer (and credentialed reads work)."""
    word = unique_word()
    fields = event_fields(word)
    report = visit(
        browser,
        probe_page(origins.listed),
        calls=[
            {"fn": "postJson", "args": [f"{service.api}/events", service.authorization, fields]},
            {"fn": "get", "args": [f"{service.api}/events?per_page=2", "include"]},
        ],
    )
    created, listed = report["calls"]
    assert created["fetched"], explain(report)
    assert created["status"] == 201, created
    assert created["body"]["title"] == fields["title"]
    assert listed["fetched"], explain(report)
    assert listed["status"] == 200
    assert "x-wp-total" in listed["headers"], listed["headers"]
    [stored] = events_with(service, word)
    assert stored["id"] == created["body"]["id"]
    trash(service, stored["id"])


def test_listed_origin_form_post_with_the_browsers_credentials_creates(
    browser: str, origins: Origins, service: Service
) -> None:
    """§5 listed row with §10 form bodies: the same credentialed form POST the unlisted
    origin is refused is accepted from a listed origin (and shows that the credentials
    the test stands for do reach the server)."""
    word = unique_word()
    credentials = {"prefix": service.origin, "headers": {"Authorization": service.authorization}}
    report = visit(
        browser,
        probe_page(origins.listed),
        inject=credentials,
        calls=[
            {"fn": "postForm", "args": [f"{service.api}/events", event_fields(word), "include"]}
        ],
    )
    [answer] = report["calls"]
    assert answer["fetched"], explain(report)
    assert answer["status"] == 201, answer
    [stored] = events_with(service, word)
    assert stored["id"] == answer["body"]["id"]
    trash(service, stored["id"])


# -- same origin (reverse proxy forwarding Host) ---------------------------------------


def test_same_origin_page_writes(browser: str, service: Service, same_origin: str) -> None:
    """§5 why 4.: a page on the service's own origin (``Origin`` = ``scheme://Host``) is
    never refused, though not listed; §1: URLs follow the forwarded ``Host``."""
    word = unique_word()
    fields = event_fields(word)
    api = f"{same_origin}{NS}"
    report = visit(
        browser,
        probe_page(same_origin),
        calls=[
            {"fn": "postJson", "args": [f"{api}/events", service.authorization, fields]},
            {"fn": "get", "args": [f"{api}/events?per_page=2"]},
        ],
    )
    created, listed = report["calls"]
    assert created["fetched"], explain(report)
    assert created["status"] == 201, created
    assert created["body"]["title"] == fields["title"]
    assert listed["status"] == 200
    assert listed["body"]["rest_url"].startswith(f"{api}/events"), listed["body"]["rest_url"]
    [stored] = events_with(service, word)
    assert stored["id"] == created["body"]["id"]
    trash(service, stored["id"])


# -- FullCalendar ----------------------------------------------------------------------


def shown_on(event: dict[str, t.Any]) -> tuple[str, str]:
    """The first and last day FullCalendar (time zone UTC) draws the event on."""
    if event["all_day"]:
        return event["start_date"][:10], event["end_date"][:10]
    return event["utc_start_date"][:10], event["utc_end_date"][:10]


@pytest.mark.parametrize("which", ["unlisted", "listed"])
def test_fullcalendar_month_view(
    browser: str, origins: Origins, service: Service, tmp_path: Path, which: str
) -> None:
    """§5 (reads from any origin) and §12: FullCalendar's month view, fed by
    ``GET /events`` (``title``, ``all_day``, ``start_date``/``end_date``, ``utc_*``), shows
    the demo events of the busiest month."""
    events = service.all_events()
    assert 4 <= len(events) <= 99, f"§12: {len(events)} published events in the default window"
    busiest, _ = collections.Counter(shown_on(event)[0][:7] for event in events).most_common(1)[0]
    first = dt.date.fromisoformat(f"{busiest}-01")
    last = (first + dt.timedelta(days=32)).replace(day=1) - dt.timedelta(days=1)
    # a day's margin at both ends: the page asks for whole local days, FullCalendar shows UTC
    expected = {
        html.unescape(event["title"])
        for event in events
        if f"{first}" < shown_on(event)[0] and shown_on(event)[1] < f"{last}"
    }
    assert expected
    screenshot = tmp_path / f"fullcalendar-month-{which}.png"
    origin = getattr(origins, which)
    report = visit(
        browser,
        f"{origin}/pages/fullcalendar.html?"
        + urllib.parse.urlencode({"api": service.api, "initialDate": first.isoformat()}),
        ready="calendarReady",
        fullcalendar=True,
        screenshot=str(screenshot),
    )
    calendar = report["fullcalendar"]
    assert calendar["state"]["errors"] == [], explain(report)
    assert report["pageErrors"] == []
    assert calendar["state"]["totals"] and None not in calendar["state"]["totals"], (
        "X-WP-Total not readable by the page"
    )
    shown = set(calendar["titles"])
    assert expected <= shown, f"missing from the month view: {expected - shown}"
    assert shown <= {html.unescape(event["title"]) for event in events}
    assert screenshot.stat().st_size > 10_000
    artifact(
        screenshot,
        "fullcalendar-month.png" if which == "unlisted" else "fullcalendar-month-listed.png",
    )
