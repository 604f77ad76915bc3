"""The site's pages as third-party clients meet them (site.md §8, issue 32's "Done when").

The service runs as an operator runs it (``calendar-rest serve`` on the demo data), and
each page type is opened in headless Chromium at 1280 and 375 px with JavaScript on and
off: it must show the events the API returns for the same filter (in the API's order
where the page keeps it), with no axe-core WCAG 2.1 A/AA violation, no sideways scroll
at 320 px, no Nu Html Checker error and no error in the JSON-LD Event validator;
Lighthouse (mobile) scores at least 95 in its four categories on the list, month and
event pages. Screenshots land in ``.ci/artifacts/screenshots/``.

The tools are proved first on pages of ``tests/clients/site_fixture/``: each one passes a
sound page and fails one fault of its kind (an image without alt text, an unclosed
element, an Event without a start date, a block wider than a phone).

Needs Chromium, Node.js, ``npm ci --prefix tests/clients`` and Java; skipped without
them, failed under ``CALENDAR_REST_REQUIRE_CLIENTS=1`` (CI). Slow: minutes of Chromium.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import typing as t
import urllib.parse
from pathlib import Path

import pytest
from client_servers import CLIENTS, Service, calendar_service, call, static_origin
from site_checks import (
    LIGHTHOUSE_REPORTS,
    SCREENSHOTS,
    WIDTHS,
    Load,
    axe_summary,
    browse,
    lighthouse,
    nu_messages,
    png,
    site_tools,
    structured_data,
)

pytestmark = [pytest.mark.clients, pytest.mark.server, pytest.mark.slow]

FIXTURE = CLIENTS / "site_fixture"
PAGE_TYPES = (
    "list", "list-2", "month", "day", "event", "venue", "organizer", "category", "tag", "search",
)  # fmt: skip
#: every page type answers; these sets stay for the next page type, which starts out
#: expected to fail (strict xfail) until it lands
BUILT = frozenset(PAGE_TYPES)
#: what a built page still fails, expected to fail until it is fixed
KNOWN_AXE: dict[str, str] = {}
#: the page types whose JSON-LD is there (the 404 page past the last lists none)
JSONLD_BUILT = frozenset(PAGE_TYPES)
LIGHTHOUSE_PAGES = ("list", "month", "event")
LIGHTHOUSE_MINIMUM = 95
#: Lighthouse runs of a page's timed category (performance), the best one counting
PERFORMANCE_RUNS = 3
#: site.md §2: a list page holds 10 events (default_per_page)
PER_PAGE = 10
#: the Settings default of start_of_week (WordPress: 0 is Sunday, 1 Monday)
START_OF_WEEK = 1
#: the Settings default of site_month_events_per_day
MONTH_EVENTS_PER_DAY = 3


@pytest.fixture(scope="module")
def browser() -> str:
    return site_tools()


# -- the tools themselves: each passes a sound page and fails a faulty one -------------


@pytest.fixture(scope="module")
def fixture_origin(browser: str) -> t.Iterator[str]:
    with static_origin(FIXTURE) as origin:
        yield origin


@pytest.fixture(scope="module")
def fixture_loads(
    browser: str, fixture_origin: str, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, list[Load]]:
    pages = {name: f"{fixture_origin}/{name}.html" for name in ("good", "bad")}
    return browse(browser, pages, tmp_path_factory.mktemp("fixture-screenshots"))


def test_the_browser_reads_events_links_and_screenshots(
    fixture_loads: dict[str, list[Load]],
) -> None:
    loads = fixture_loads["good"]
    assert [(load["width"], load["javascript"]) for load in loads] == [
        (width, javascript) for width in WIDTHS for javascript in (True, False)
    ]
    for load in loads:
        assert load["status"] == 200
        assert load["ids"] == ["12", "7"]
        assert load["next"] == [load["url"].replace("good.html", "page2.html")]
        assert load["axe"] == [], axe_summary([load])
        assert load["overflow320"] is None
        assert load["pageErrors"] == []
        assert png(Path(load["screenshot"]))
    (followed,) = loads[0]["followed"]
    assert (followed["rel"], followed["status"], followed["ids"]) == ("next", 200, ["30"])
    assert followed["prev"] == [loads[0]["url"]]


def test_axe_and_the_reflow_check_fail_on_faults(fixture_loads: dict[str, list[Load]]) -> None:
    for load in fixture_loads["bad"]:
        assert [violation["id"] for violation in load["axe"]] == ["image-alt"]
        assert load["overflow320"]["scrollWidth"] > 320


def test_the_nu_html_checker_passes_valid_html_and_fails_an_unclosed_element() -> None:
    errors = nu_messages({name: FIXTURE / f"{name}.html" for name in ("good", "page2", "bad")})
    assert errors["good"] == [] and errors["page2"] == []
    found = [message["message"] for message in errors["bad"]]
    assert any("Unclosed element" in message for message in found), found
    assert any("alt" in message for message in found), found


def test_the_event_validator_passes_a_full_event_and_fails_one_without_start() -> None:
    checked = structured_data({name: FIXTURE / f"{name}.html" for name in ("good", "bad")})
    assert checked["good"]["types"] == ["Event", "Event"]
    assert (checked["good"]["errors"], checked["good"]["warnings"]) == ([], [])
    assert checked["bad"]["types"] == ["Event"]
    assert any("startDate is required" in error for error in checked["bad"]["errors"])


def test_lighthouse_scores_a_sound_page_high_and_a_faulty_one_low(
    browser: str, fixture_origin: str
) -> None:
    pages = {name: f"{fixture_origin}/{name}.html" for name in ("good", "bad")}
    scored = lighthouse(browser, pages, categories={"bad": ["accessibility", "seo"]})
    good, bad = scored["good"], scored["bad"]
    assert good["version"] == "12.2.3" and good["formFactor"] == "mobile"
    assert good["runtimeError"] is None
    assert min(good["scores"].values()) >= LIGHTHOUSE_MINIMUM, good["failing"]
    assert set(good["scores"]) == {"performance", "accessibility", "best-practices", "seo"}
    assert max(bad["scores"].values()) < LIGHTHOUSE_MINIMUM, bad["failing"]


# -- the site's pages ------------------------------------------------------------------


@dataclasses.dataclass
class Case:
    """One page type: its URL, and the API query that returns what it must show."""

    name: str
    url: str
    #: the API's ids for the same filter, in its order
    expected: list[str]
    #: the page keeps the API's order (list views); otherwise compared as sets
    ordered: bool = True
    #: ids the page may show besides ``expected`` (the month grid's "+ N more" leaves some out)
    allowed: list[str] = dataclasses.field(default_factory=list)
    #: the page must answer 404 (a list page past the last)
    absent: bool = False


@dataclasses.dataclass
class Fetched:
    status: int
    content_type: str
    file: Path


@dataclasses.dataclass
class Site:
    service: Service
    cases: dict[str, Case]
    fetched: dict[str, Fetched]
    loads: dict[str, list[Load]]
    nu: dict[str, list[dict[str, t.Any]]]
    jsonld: dict[str, dict[str, t.Any]]


def _ids(events: t.Iterable[dict[str, t.Any]]) -> list[str]:
    return [str(event["id"]) for event in events]


def _first_page(service: Service, **params: t.Any) -> list[str]:
    answer = service.get("/events", per_page=PER_PAGE, page=1, **params)
    assert answer.status == 200, answer.body
    return _ids(answer.body["events"])


def _site_day(event: dict[str, t.Any], end: str = "start") -> dt.date:
    """The day an event starts (or ends) in the site's time zone: UTC, the default of
    the service under test (an event's own ``start_date`` is in its own zone)."""
    return dt.date.fromisoformat(event[f"utc_{end}_date"][:10])


def _month_case(service: Service, month: dt.date) -> Case:
    """The month grid: 6 weeks from ``start_of_week``; a day shows at most
    ``site_month_events_per_day`` events, so an event must appear when one of its days
    has no more than that, and may appear when it is in the grid at all."""
    first = month.replace(day=1)
    week_start = (START_OF_WEEK - 1) % 7  # WordPress counts from Sunday, Python from Monday
    grid_start = first - dt.timedelta(days=(first.weekday() - week_start) % 7)
    grid_end = grid_start + dt.timedelta(days=41)
    events = service.all_events(
        start_date=f"{grid_start} 00:00:00", end_date=f"{grid_end} 23:59:59"
    )
    per_day: dict[dt.date, list[str]] = {}
    for event in events:
        day = max(_site_day(event), grid_start)
        while day <= min(_site_day(event, "end"), grid_end):
            per_day.setdefault(day, []).append(str(event["id"]))
            day += dt.timedelta(days=1)
    sure = {
        event_id for ids in per_day.values() if len(ids) <= MONTH_EVENTS_PER_DAY for event_id in ids
    }
    return Case(
        "month",
        f"{service.origin}/events/month/{first:%Y-%m}/",
        expected=sorted(sure, key=int),
        ordered=False,
        allowed=_ids(events),
    )


def _cases(service: Service) -> dict[str, Case]:
    """Every page type's URL and expected events, from what the API says of the demo data."""
    origin = service.origin
    upcoming = service.all_events()
    assert upcoming, "the demo data has no upcoming event"
    first = upcoming[0]
    day = _site_day(first)
    listing = service.get("/events", per_page=PER_PAGE, page=1)
    pages = int(listing.body["total_pages"])
    venue = first["venue"]
    organizer = first["organizer"][0]
    categories = service.get("/categories", per_page=100).body["categories"]
    parent = next(term for term in categories if any(c["parent"] == term["id"] for c in categories))
    tags = service.get("/tags", per_page=100).body["tags"]
    tag = next(term for term in tags if term["id"] == first["tags"][0]["id"])
    word = first["title"].split()[-1]
    cases = [
        Case("list", f"{origin}/events/list/", _first_page(service)),
        # the demo data may fit on one page: then page 2 is past the last, a 404 page
        Case(
            "list-2",
            f"{origin}/events/list/page/2/",
            _first_page(service, page=2) if pages >= 2 else [],
            absent=pages < 2,
        ),
        _month_case(service, day),
        Case(
            "day",
            f"{origin}/events/{day}/",
            _ids(service.all_events(start_date=f"{day} 00:00:00", end_date=f"{day} 23:59:59")),
        ),
        Case("event", first["url"], [str(first["id"])]),
        Case("venue", venue["url"], _first_page(service, venue=venue["id"])),
        Case("organizer", organizer["url"], _first_page(service, organizer=organizer["id"])),
        Case("category", parent["url"], _first_page(service, categories=parent["id"])),
        Case("tag", tag["url"], _first_page(service, tags=tag["id"])),
        Case(
            "search",
            f"{origin}/events/list/?" + urllib.parse.urlencode({"search": word}),
            _first_page(service, search=word),
        ),
    ]
    for case in cases:
        # a comparison of two empty lists would prove nothing
        assert case.absent or case.expected, f"the API returns no event for {case.url}"
    return {case.name: case for case in cases}


@pytest.fixture(scope="module")
def site(browser: str, tmp_path_factory: pytest.TempPathFactory) -> t.Iterator[Site]:
    """The demo site served, each page type fetched, opened in Chromium and checked by
    the Nu Html Checker and the Event validator, once for all the tests below."""
    directory = tmp_path_factory.mktemp("site-service")
    with calendar_service(directory) as service:
        cases = _cases(service)
        saved = directory / "pages"
        saved.mkdir()
        fetched: dict[str, Fetched] = {}
        for name, case in cases.items():
            answer = call("GET", case.url, headers={"Accept": "text/html"})
            body = answer.body if isinstance(answer.body, str) else str(answer.body)
            (saved / f"{name}.html").write_text(body)
            fetched[name] = Fetched(
                answer.status, answer.headers.get("Content-Type", ""), saved / f"{name}.html"
            )
        html = {
            name: page
            for name, page in fetched.items()
            if page.content_type.startswith("text/html")
        }
        loads = (
            browse(browser, {name: cases[name].url for name in html}, SCREENSHOTS) if html else {}
        )
        nu = nu_messages({name: page.file for name, page in html.items()}) if html else {}
        jsonld = structured_data({name: page.file for name, page in html.items()}) if html else {}
        yield Site(service, cases, fetched, loads, nu, jsonld)


def _page_types(
    names: t.Iterable[str],
    built: frozenset[str] = BUILT,
    known: t.Mapping[str, str] | None = None,
) -> list[t.Any]:
    """``names`` as parameters: strict xfails where the page is not built yet, or fails a
    known way (``known``: page → why), so that each flips when it lands."""

    def marks(name: str) -> t.Any:
        if name not in built:
            return pytest.mark.xfail(strict=True, reason="page not built yet")
        if known and name in known:
            return pytest.mark.xfail(strict=True, reason=known[name])
        return ()

    return [pytest.param(name, marks=marks(name)) for name in names]


def _html(site: Site, name: str) -> list[Load]:
    """The page's loads, once it is known to answer HTML with the status its case wants."""
    page = site.fetched[name]
    status = 404 if site.cases[name].absent else 200
    assert (page.status, page.content_type) == (status, "text/html; charset=utf-8"), (
        f"{site.cases[name].url} answered {page.status} {page.content_type}"
    )
    return site.loads[name]


@pytest.mark.parametrize("name", _page_types(PAGE_TYPES))
def test_a_page_shows_what_the_api_returns(site: Site, name: str) -> None:
    case = site.cases[name]
    for load in _html(site, name):
        where = f"{case.url} at {load['width']} px, js {load['javascript']}"
        assert load["pageErrors"] == [], where
        if case.ordered:
            assert load["ids"] == case.expected, where
        else:
            shown = set(load["ids"])
            assert set(case.expected) <= shown <= set(case.allowed), where
    if case.absent:
        return
    # the next and previous pages answer; the list's next page is the API's page 2
    followed = site.loads[name][0]["followed"]
    assert [link["status"] for link in followed] == [200] * len(followed), followed
    if name == "list":
        following = [link["ids"] for link in followed if link["rel"] == "next"]
        assert following == ([] if site.cases["list-2"].absent else [site.cases["list-2"].expected])


@pytest.mark.parametrize("name", _page_types(PAGE_TYPES, known=KNOWN_AXE))
def test_axe_finds_no_violation(site: Site, name: str) -> None:
    loads = _html(site, name)
    assert axe_summary(loads) == []


@pytest.mark.parametrize("name", _page_types(PAGE_TYPES))
def test_a_page_reflows_at_320_px(site: Site, name: str) -> None:
    for load in _html(site, name):
        assert load["overflow320"] is None, (load["width"], load["javascript"])


@pytest.mark.parametrize("name", _page_types(PAGE_TYPES))
def test_screenshots_are_saved(site: Site, name: str) -> None:
    shots = [Path(load["screenshot"]) for load in _html(site, name)]
    assert len(shots) == 2 * len(WIDTHS)
    assert all(png(shot) for shot in shots)


@pytest.mark.parametrize("name", _page_types(PAGE_TYPES))
def test_the_nu_html_checker_finds_no_error(site: Site, name: str) -> None:
    _html(site, name)
    assert [f"{message.get('lastLine')}: {message['message']}" for message in site.nu[name]] == []


@pytest.mark.parametrize("name", _page_types(PAGE_TYPES, JSONLD_BUILT))
def test_the_event_validator_finds_no_error(site: Site, name: str) -> None:
    loads = _html(site, name)
    checked = site.jsonld[name]
    assert checked["errors"] == [], checked["warnings"]
    # one schema.org Event per listed event (the event page: its own)
    assert checked["types"] == ["Event"] * len(set(loads[0]["ids"])), checked


@pytest.mark.parametrize("name", _page_types(LIGHTHOUSE_PAGES))
def test_lighthouse_scores_95_on_mobile(site: Site, browser: str, name: str) -> None:
    _html(site, name)
    scored = lighthouse(browser, {name: site.cases[name].url}, reports=LIGHTHOUSE_REPORTS)[name]
    assert scored["runtimeError"] is None, scored
    # Performance is timed, so it moves with the load of the machine (the rest of the
    # suite runs beside it); Lighthouse's guide on variability advises several runs: the
    # best of three is taken for it alone, the other categories count from the first.
    for _ in range(PERFORMANCE_RUNS - 1):
        if (scored["scores"].get("performance") or 0) >= LIGHTHOUSE_MINIMUM:
            break
        again = lighthouse(browser, {name: site.cases[name].url})[name]
        if (again["scores"].get("performance") or 0) > (scored["scores"]["performance"] or 0):
            scored["scores"]["performance"] = again["scores"]["performance"]
            scored["failing"]["performance"] = again["failing"]["performance"]
    low = {
        category: (score, scored["failing"][category])
        for category, score in scored["scores"].items()
        if score is None or score < LIGHTHOUSE_MINIMUM
    }
    assert low == {}
