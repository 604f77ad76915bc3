"""node-wpapi, the WordPress REST client for JavaScript, against the service run by its
CLI (``tests/clients/wpapi.js``): discovery from the site root (open-web.md §8), route
handlers built from the REST index, paging with ``_paging.next`` (the ``Link`` header,
§9) anonymously and as an administrator, and create/read/update/delete.

Needs Node.js and ``npm ci --prefix tests/clients``; skipped without them, failed under
``CALENDAR_REST_REQUIRE_CLIENTS=1`` (CI).
"""

from __future__ import annotations

import datetime as dt
import typing as t

import pytest
from client_servers import Service, calendar_service, node, run_node

pytestmark = [pytest.mark.clients, pytest.mark.server]

NAMESPACE = "calendar/events/v1"
PER_PAGE = 2
DAY = dt.date.today() + dt.timedelta(days=20)
EVENT = {
    "title": "Written by node-wpapi",
    "start_date": f"{DAY} 18:00:00",
    "end_date": f"{DAY} 20:00:00",
}
UPDATE = {"title": "Updated by node-wpapi"}


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> t.Iterator[Service]:
    node()  # skip (or fail in CI) before starting anything
    with calendar_service(tmp_path_factory.mktemp("wpapi-service")) as running:
        yield running


@pytest.fixture(scope="module")
def totals(service: Service) -> dict[str, int]:
    """X-WP-Total of the default listing, anonymous and authenticated, before any write."""
    anonymous = service.get("/events")
    authenticated = service.get("/events", authenticated=True)
    assert anonymous.status == authenticated.status == 200
    return {
        "anonymous": int(anonymous.headers["X-WP-Total"]),
        "authenticated": int(authenticated.headers["X-WP-Total"]),
    }


@pytest.fixture(scope="module")
def report(service: Service, totals: dict[str, int]) -> dict[str, t.Any]:
    """One run of wpapi.js: discovery, both walks, then the writes."""
    plan = {
        "root": service.root,
        "namespace": NAMESPACE,
        "username": service.login,
        "password": service.password,
        "perPage": PER_PAGE,
        "event": EVENT,
        "update": UPDATE,
    }
    return t.cast(dict[str, t.Any], run_node("wpapi.js", plan, timeout=60))


def test_discovery_from_the_site_root(report: dict[str, t.Any], service: Service) -> None:
    """§8: ``WPAPI.discover`` finds ``Link: <root>; rel="https://api.w.org/"`` on the site
    root, reads the REST index there and binds the namespace's routes."""
    assert report["discover"]["ok"], report["discover"]
    assert report["logged"] == [], "discovery fell back to default WordPress routes"
    assert report["bootstrap"] == "discovery"
    assert report["discover"]["value"]["endpoint"] == service.root
    assert NAMESPACE in report["discover"]["value"]["namespaces"]
    assert report["namespace"]["ok"], report["namespace"]
    handlers = set(report["namespace"]["value"])
    assert {"events", "venues", "organizers", "categories", "tags"} <= handlers


def part(report: dict[str, t.Any], name: str) -> dict[str, t.Any]:
    """One step of the run; missing when the namespace's route handlers could not be
    built even from the namespace index."""
    if name not in report:
        pytest.fail(f"wpapi.js did not get to {name!r}: namespace={report.get('namespace')}")
    return t.cast(dict[str, t.Any], report[name])


def assert_complete_walk(walked: dict[str, t.Any], total: int) -> None:
    """Every page reached by ``_paging.next``, each event once, as many as X-WP-Total."""
    assert "error" not in walked, f"the walk stopped: {walked.get('error')}"
    assert not walked.get("noPaging"), "no X-WP-TotalPages: wpapi found no paging"
    pages = -(-total // PER_PAGE)
    assert walked["pages"] == pages, walked
    assert set(walked["totals"]) == set(walked["bodyTotals"]) == {total}, walked
    assert set(walked["totalPages"]) == {pages}, walked
    assert walked["links"][-1] is None, "the last page still has a next link"
    assert len(walked["ids"]) == len(set(walked["ids"])) == total, walked["ids"]


def test_paging_anonymously(report: dict[str, t.Any], totals: dict[str, int]) -> None:
    """§9 and §12: ``per_page=2`` pages through the 4 to 99 demo events with the
    ``Link`` next URLs, to exactly X-WP-Total events."""
    walked = part(report, "anonymous")
    assert walked["ok"], walked
    assert 4 <= totals["anonymous"] <= 99
    assert_complete_walk(walked["value"], totals["anonymous"])


def test_paging_as_an_administrator(report: dict[str, t.Any], totals: dict[str, int]) -> None:
    """§9: next URLs replayed with the same credentials answer 200, so an authenticated
    walk reaches the last page (``.auth()`` carries over to ``_paging.next``)."""
    walked = part(report, "authenticated")
    assert walked["ok"], walked
    assert_complete_walk(walked["value"], totals["authenticated"])


def test_the_demo_window_is_the_same_for_an_administrator(
    report: dict[str, t.Any], totals: dict[str, int]
) -> None:
    """§12: the published demo events of the default window are "the same set for an
    administrator"."""
    assert totals["authenticated"] == totals["anonymous"], totals
    anonymous, authenticated = part(report, "anonymous"), part(report, "authenticated")
    if anonymous["ok"] and authenticated["ok"] and "error" not in authenticated["value"]:
        assert sorted(authenticated["value"]["ids"]) == sorted(anonymous["value"]["ids"])


def test_create_read_update_delete(report: dict[str, t.Any]) -> None:
    """``.create()`` (POST), ``.id().get()``, ``.update()`` (PUT), ``.delete()`` (trash),
    and a second delete: 410 ``event-is-in-trash``."""
    created = part(report, "create")
    assert created["ok"], created
    event_id = created["value"]["id"]
    assert created["value"]["title"] == EVENT["title"]
    assert created["value"]["start_date"] == EVENT["start_date"]
    assert report["read"]["ok"] and report["read"]["value"]["id"] == event_id, report["read"]
    assert report["read"]["value"]["title"] == EVENT["title"]
    assert report["update"]["ok"], report["update"]
    assert report["update"]["value"]["title"] == UPDATE["title"]
    assert report["reread"]["ok"] and report["reread"]["value"]["title"] == UPDATE["title"]
    assert report["delete"]["ok"], report["delete"]
    assert report["delete"]["value"]["status"] == "trash"
    again = report["deleteAgain"]
    assert not again["ok"] and again["status"] == 410, again
    assert again["code"] == "event-is-in-trash"
