"""Rate limits (``anchors.md`` §3): the IETF ``RateLimit-Policy``/``RateLimit`` headers,
the 429 ``rest_too_many_requests`` with ``Retry-After`` before any database work,
token buckets that allow a burst of the whole limit and refill over the window, the
anonymous limit per client address and the authenticated one per user (writes on
top), the exempt users, and the counts shared through a real Redis server (failing
open when it does not answer), up to two ``serve --workers 2`` under load.

Time moves through a fake monotonic clock given to the memory buckets; Redis counts on
its own clock, so its tests use a window short enough to watch. Redis is the one on
127.0.0.1:6379 (``.ci/run`` starts it); each test keeps to keys of its own prefix.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import logging
import os
import socket
import threading
import time
import typing as t
import uuid
from pathlib import Path

import pytest
from conftest import NS, Api, api_for, assert_wp_error
from werkzeug.test import TestResponse

from calendar_rest import cli
from calendar_rest.app import Application
from calendar_rest.edge import rate_buckets
from calendar_rest.edge.rate_buckets import MemoryBuckets, RedisBuckets
from calendar_rest.settings import Settings

REDIS_HOST, REDIS_PORT = "127.0.0.1", 6379
LOCAL = "127.0.0.1"
FROM_LOCAL = {"REMOTE_ADDR": LOCAL}  # the Werkzeug test client sends none
Build = t.Callable[..., Application]


class Ticks:
    """A monotonic clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def ticks() -> Ticks:
    return Ticks()


@pytest.fixture
def limited(sibling_app: Build, api: Api, ticks: Ticks) -> t.Callable[..., Api]:
    """A client of an app with the given rate limit settings, its buckets on ``ticks``."""

    def build(**settings: t.Any) -> Api:
        other = sibling_app(**settings)
        if settings.get("rate_limit_redis_url") is None:
            assert other.rate_limits is not None
            other.rate_limits.buckets = MemoryBuckets(now=ticks)
        return api_for(other, api)

    return build


def redis_up() -> bool:
    try:
        with socket.create_connection((REDIS_HOST, REDIS_PORT), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@pytest.fixture
def redis_url() -> t.Iterator[str]:
    """The local Redis with a key prefix of this test's own (its keys deleted after)."""
    if not redis_up():
        if os.environ.get("CALENDAR_REST_REQUIRE_REDIS"):
            pytest.fail(f"no Redis answers on {REDIS_HOST}:{REDIS_PORT}")
        pytest.skip(f"no Redis on {REDIS_HOST}:{REDIS_PORT}")
    prefix = f"crt-test:{uuid.uuid4().hex}:"
    yield f"redis://{REDIS_HOST}:{REDIS_PORT}/0?prefix={prefix}"
    forget_keys(prefix)


def forget_keys(prefix: str) -> None:
    import redis

    client = redis.Redis(host=REDIS_HOST, port=REDIS_PORT)
    keys = list(client.scan_iter(match=prefix + "*"))
    if keys:
        client.delete(*keys)
    client.close()


def get(api: Api, path: str = "/events", address: str = LOCAL, **kw: t.Any) -> TestResponse:
    return api.get(path, environ_overrides={"REMOTE_ADDR": address}, **kw)


def assert_refused(response: TestResponse, retry_after: int) -> None:
    assert_wp_error(response, 429, "rest_too_many_requests")
    assert response.headers["Retry-After"] == str(retry_after)


# -- off by default --------------------------------------------------------------------


def test_every_limit_is_off_by_default_and_no_header_is_sent(app: Application, api: Api) -> None:
    assert app.rate_limits is None
    settings = Settings()
    assert (settings.rate_limit_anonymous, settings.rate_limit_authenticated) == (0, 0)
    assert (settings.rate_limit_writes, settings.rate_limit_window) == (0, 60)
    assert settings.rate_limit_redis_url is None and settings.trusted_proxies == ()
    for _ in range(3):
        response = api.get("/events")
        assert response.status_code == 200
        assert "RateLimit" not in response.headers
        assert "RateLimit-Policy" not in response.headers


# -- headers, burst, refill ------------------------------------------------------------


def test_an_anonymous_burst_of_the_whole_limit_then_429_with_retry_after(
    limited: t.Callable[..., Api],
) -> None:
    api = limited(rate_limit_anonymous=5)
    for left in (4, 3, 2, 1, 0):
        response = get(api)
        assert response.status_code == 200
        assert response.headers["RateLimit-Policy"] == '"anon";q=5;w=60'
        assert response.headers["RateLimit"] == f'"anon";r={left};t={(5 - left) * 12}'
    refused = get(api)
    assert_refused(refused, 12)  # one token every 60 / 5 seconds
    assert refused.headers["RateLimit"] == '"anon";r=0;t=60'
    assert refused.json["message"] == "Too many requests. Please try again later."
    french = api.client.get("/fr/calendar/events/v1/events", environ_overrides=FROM_LOCAL)
    assert_wp_error(french, 429, "rest_too_many_requests")
    assert french.json["message"] != refused.json["message"]


def test_the_bucket_refills_over_the_window(limited: t.Callable[..., Api], ticks: Ticks) -> None:
    api = limited(rate_limit_anonymous=6, rate_limit_window=60)
    for _ in range(6):
        assert get(api).status_code == 200
    assert_refused(get(api), 10)
    ticks.now += 9
    assert_refused(get(api), 1)
    ticks.now += 1  # one token back
    assert get(api).headers["RateLimit"] == '"anon";r=0;t=60'
    assert get(api).status_code == 429
    ticks.now += 600  # long idle: full, never more
    response = get(api)
    assert response.headers["RateLimit"] == '"anon";r=5;t=10'


def test_every_answer_is_counted_errors_options_and_cache_hits_included(
    limited: t.Callable[..., Api],
) -> None:
    api = limited(rate_limit_anonymous=10)
    assert get(api).headers.get("X-Calendar-Cache") == "miss"
    hit = get(api)
    assert hit.headers.get("X-Calendar-Cache") == "hit"
    assert hit.headers["RateLimit"].startswith('"anon";r=8;')
    assert get(api, "/no-such-route").headers["RateLimit"].startswith('"anon";r=7;')
    options = api.request("OPTIONS", "/events", environ_overrides=FROM_LOCAL)
    assert options.headers["RateLimit"].startswith('"anon";r=6;')
    not_modified = get(api, headers={"If-None-Match": hit.headers["ETag"]})
    assert not_modified.status_code == 304
    assert not_modified.headers["RateLimit"].startswith('"anon";r=5;')


def test_a_refused_request_runs_no_query(
    limited: t.Callable[..., Api], monkeypatch: pytest.MonkeyPatch
) -> None:
    api = limited(rate_limit_anonymous=1)
    assert get(api).status_code == 200
    application = api.app
    statements: list[str] = []
    for database in {application.database, application.login_store}:
        original = database.execute_sql

        def counting(sql: str, *a: t.Any, _original: t.Any = original, **k: t.Any) -> t.Any:
            statements.append(sql)
            return _original(sql, *a, **k)

        monkeypatch.setattr(database, "execute_sql", counting)
    assert_refused(get(api), 60)
    unverified = api.post("/events", "administrator", json={}, environ_overrides=FROM_LOCAL)
    assert_refused(unverified, 60)
    assert statements == []


def test_the_headers_are_exposed_to_cross_origin_pages(limited: t.Callable[..., Api]) -> None:
    api = limited(rate_limit_anonymous=3)
    response = get(api, headers={"Origin": "https://elsewhere.example"})
    exposed = [
        name.strip() for name in response.headers["Access-Control-Expose-Headers"].split(",")
    ]
    assert {"RateLimit", "RateLimit-Policy", "Retry-After"} <= set(exposed)


def test_pages_are_counted_per_address_like_any_request(limited: t.Callable[..., Api]) -> None:
    api = limited(rate_limit_anonymous=2)
    page = api.client.get("/events/", environ_overrides={"REMOTE_ADDR": "10.1.1.1"})
    assert page.status_code == 200 and page.headers["RateLimit"].startswith('"anon";r=1;')
    assert get(api, address="10.1.1.1").headers["RateLimit"].startswith('"anon";r=0;')
    refused = api.client.get(
        "/events/", headers={"Accept": "text/html"}, environ_overrides={"REMOTE_ADDR": "10.1.1.1"}
    )
    # a page's refusal is a page (site.md §1: HTML errors for browsers), Retry-After kept
    assert refused.status_code == 429 and refused.content_type.startswith("text/html")
    assert int(refused.headers["Retry-After"]) > 0
    assert "Too many requests" in refused.get_data(as_text=True)
    root = api.client.get(
        "/", headers={"Accept": "text/html"}, environ_overrides={"REMOTE_ADDR": "10.1.1.1"}
    )
    assert root.status_code == 429 and root.content_type.startswith("text/html")
    assert_wp_error(get(api, address="10.1.1.1"), 429, "rest_too_many_requests")  # the API: JSON


# -- who is counted --------------------------------------------------------------------


def test_anonymous_clients_are_counted_per_address(limited: t.Callable[..., Api]) -> None:
    api = limited(rate_limit_anonymous=2)
    for _ in range(2):
        assert get(api, address="10.0.0.1").status_code == 200
    assert get(api, address="10.0.0.1").status_code == 429
    assert get(api, address="10.0.0.2").status_code == 200


def test_authenticated_callers_are_counted_per_user_whatever_their_address(
    limited: t.Callable[..., Api],
) -> None:
    api = limited(rate_limit_anonymous=100, rate_limit_authenticated=3)
    # credentials the process has not verified yet count for their address, once
    first = get(api, address="10.0.0.1", headers=api.headers("editor"))
    assert first.headers["RateLimit"].startswith('"anon";r=99;')
    for left, address in ((2, "10.0.0.2"), (1, "10.0.0.3"), (0, "10.0.0.1")):
        response = get(api, address=address, headers=api.headers("editor"))
        assert response.headers["RateLimit-Policy"] == '"user";q=3;w=60'
        assert response.headers["RateLimit"] == f'"user";r={left};t={(3 - left) * 20}'
    assert_refused(get(api, address="10.0.0.4", headers=api.headers("editor")), 20)
    # the same addresses, anonymous or as someone else: other buckets
    assert get(api, address="10.0.0.1").status_code == 200
    assert get(api, address="10.0.0.1", headers=api.headers("author")).status_code == 200


def test_administrators_are_limited_too(limited: t.Callable[..., Api]) -> None:
    api = limited(rate_limit_authenticated=2)
    statuses = [get(api, headers=api.headers("administrator")).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]  # the first one verified the credentials


def test_failed_credentials_are_not_remembered(limited: t.Callable[..., Api]) -> None:
    api = limited(rate_limit_anonymous=3, rate_limit_authenticated=100)
    wrong = {"Authorization": "Basic " + "ZWRpdG9yOndyb25n"}  # editor:wrong
    assert get(api, headers=wrong).status_code == 401
    assert get(api, headers=wrong).headers["RateLimit"].startswith('"anon";r=1;')


def test_writes_are_limited_per_user_on_top(limited: t.Callable[..., Api]) -> None:
    api = limited(rate_limit_authenticated=50, rate_limit_writes=2)
    assert get(api, headers=api.headers("editor")).status_code == 200  # verified
    for left in (1, 0):
        created = api.post("/tags", "editor", json={"name": f"tag {left}"})
        assert created.status_code == 201
        assert created.headers["RateLimit-Policy"] == '"user";q=50;w=60, "writes";q=2;w=60'
        assert created.headers["RateLimit"].endswith(f'"writes";r={left};t={(2 - left) * 30}')
    refused = api.post("/tags", "editor", json={"name": "one too many"})
    assert_refused(refused, 30)
    assert refused.headers["RateLimit"].startswith('"user";r=48;')  # refused: nothing spent
    assert get(api, headers=api.headers("editor")).status_code == 200  # reads go on


def test_an_exempt_user_is_not_counted(limited: t.Callable[..., Api], app: Application) -> None:
    api = limited(rate_limit_anonymous=2, rate_limit_authenticated=2)
    url = app.settings.database_url
    assert cli.main(["--database", url, "users", "set", "editor", "--rate-limit-exempt"]) == 0
    for _ in range(6):
        response = get(api, headers=api.headers("editor"))
        assert response.status_code == 200
    assert "RateLimit" not in response.headers
    assert cli.main(["--database", url, "users", "set", "editor", "--no-rate-limit-exempt"]) == 0
    statuses = [get(api, headers=api.headers("editor")).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]  # counted again from its next request on


def test_users_set_needs_an_option(app: Application, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--database", app.settings.database_url, "users", "set", "editor"]) == 1
    assert "--rate-limit-exempt" in capsys.readouterr().err


def test_each_worker_process_enforces_its_share(limited: t.Callable[..., Api]) -> None:
    api = limited(rate_limit_anonymous=10, worker_processes=2)
    assert get(api).headers["RateLimit-Policy"] == '"anon";q=5;w=60'


# -- settings --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("rate_limit_anonymous", -1),
        ("rate_limit_writes", -5),
        ("rate_limit_window", 0),
        ("worker_processes", 0),
        ("rate_limit_redis_url", "http://127.0.0.1:6379"),
        ("trusted_proxies", ("10.0.0.0/33",)),
    ],
)
def test_invalid_settings_are_refused(name: str, value: t.Any) -> None:
    with pytest.raises(ValueError, match=name):
        Settings.build(**{name: value})


def test_the_settings_are_read_from_the_environment() -> None:
    settings = Settings.build(
        environ={
            "CALENDAR_REST_RATE_LIMIT_ANONYMOUS": "600",
            "CALENDAR_REST_RATE_LIMIT_AUTHENTICATED": "1200",
            "CALENDAR_REST_RATE_LIMIT_WRITES": "120",
            "CALENDAR_REST_RATE_LIMIT_WINDOW": "30",
            "CALENDAR_REST_RATE_LIMIT_REDIS_URL": "redis://127.0.0.1:6379/2",
            "CALENDAR_REST_TRUSTED_PROXIES": "10.0.0.0/8, 192.0.2.1",
        }
    )
    assert settings.rate_limit_anonymous == 600 and settings.rate_limit_authenticated == 1200
    assert settings.rate_limit_writes == 120 and settings.rate_limit_window == 30
    assert settings.rate_limit_redis_url == "redis://127.0.0.1:6379/2"
    assert settings.trusted_proxies == ("10.0.0.0/8", "192.0.2.1")


def test_demo_prints_how_to_switch_the_limits_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["--database", f"sqlite:///{tmp_path / 'demo.db'}", "demo"]) == 0
    out = capsys.readouterr().out
    assert "CALENDAR_REST_RATE_LIMIT_ANONYMOUS=600" in out
    assert "CALENDAR_REST_RATE_LIMIT_AUTHENTICATED=1200" in out
    assert "CALENDAR_REST_RATE_LIMIT_WRITES=120" in out


# -- Redis -----------------------------------------------------------------------------


def test_processes_sharing_redis_share_exact_counts(
    sibling_app: Build, api: Api, redis_url: str
) -> None:
    first = api_for(sibling_app(rate_limit_anonymous=4, rate_limit_redis_url=redis_url), api)
    second = api_for(sibling_app(rate_limit_anonymous=4, rate_limit_redis_url=redis_url), api)
    statuses = [get(client).status_code for client in (first, second, first, second, first)]
    assert statuses == [200, 200, 200, 200, 429]
    refused = get(second)
    assert_refused(refused, 15)
    assert refused.headers["RateLimit-Policy"] == '"anon";q=4;w=60'
    assert get(first, address="10.9.9.9").status_code == 200  # another address


def test_redis_counts_users_and_writes_too(sibling_app: Build, api: Api, redis_url: str) -> None:
    settings = {"rate_limit_authenticated": 3, "rate_limit_writes": 1}
    first = api_for(sibling_app(rate_limit_redis_url=redis_url, **settings), api)
    second = api_for(sibling_app(rate_limit_redis_url=redis_url, **settings), api)
    for client in (first, second):
        assert get(client, headers=client.headers("editor")).status_code == 200  # verified
    assert first.post("/tags", "editor", json={"name": "shared"}).status_code == 201
    refused = second.post("/tags", "editor", json={"name": "over"})
    assert_refused(refused, 60)
    assert refused.headers["RateLimit"] == '"user";r=2;t=20, "writes";r=0;t=60'


def test_redis_buckets_refill_on_redis_time(sibling_app: Build, api: Api, redis_url: str) -> None:
    client = api_for(
        sibling_app(rate_limit_anonymous=2, rate_limit_window=2, rate_limit_redis_url=redis_url),
        api,
    )
    assert [get(client).status_code for _ in range(3)] == [200, 200, 429]
    time.sleep(1.1)  # a token a second: one back
    assert get(client).status_code == 200


@pytest.fixture
def silent_server() -> t.Iterator[int]:
    """A port that accepts connections and never answers a byte."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind((LOCAL, 0))
    listener.listen(16)
    yield listener.getsockname()[1]
    listener.close()


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOCAL, 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("server", ["silent", "closed"])
def test_a_redis_that_does_not_answer_lets_requests_through_and_logs_once_a_minute(
    server: str,
    sibling_app: Build,
    api: Api,
    request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
) -> None:
    port = request.getfixturevalue("silent_server") if server == "silent" else closed_port()
    application = sibling_app(
        rate_limit_anonymous=1, rate_limit_redis_url=f"redis://{LOCAL}:{port}/0"
    )
    client = api_for(application, api)
    with caplog.at_level(logging.WARNING, logger="calendar_rest"):
        for _ in range(3):
            began = time.monotonic()
            response = get(client)
            assert response.status_code == 200
            assert "RateLimit" not in response.headers  # nothing counted, nothing told
            assert time.monotonic() - began < 2.0
    warnings = [r for r in caplog.records if "Redis did not answer" in r.getMessage()]
    assert len(warnings) == 1


def test_the_redis_timeout_is_50_ms(silent_server: int) -> None:
    assert rate_buckets.REDIS_TIMEOUT == 0.05
    buckets = RedisBuckets(f"redis://{LOCAL}:{silent_server}/0")
    began = time.monotonic()
    assert buckets.take([rate_buckets.Policy("anon", 5, 60)], "x") == (True, ())
    assert time.monotonic() - began < 0.5


def test_the_key_prefix_is_taken_out_of_the_redis_url() -> None:
    url, prefix = rate_buckets.split_prefix("redis://h:6379/3?prefix=site1:&ssl_cert_reqs=none")
    assert (url, prefix) == ("redis://h:6379/3?ssl_cert_reqs=none", "site1:")
    assert rate_buckets.split_prefix("redis://h/0") == ("redis://h/0", "calendar_rest:rate:")


# -- the Done-when load test -----------------------------------------------------------


@pytest.mark.slow
def test_two_servers_of_two_workers_sharing_redis_admit_no_more_than_the_limit(
    tmp_path: Path, redis_url: str
) -> None:
    from serve_process import serving

    limit, window, total = 40, 600, 120
    settings = {
        "rate_limit_anonymous": str(limit),
        "rate_limit_window": str(window),
        "rate_limit_redis_url": redis_url,
    }
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    prefix = redis_url.partition("prefix=")[2]
    with serving(tmp_path / "a", 2, settings) as one, serving(tmp_path / "b", 2, settings) as two:
        forget_keys(prefix)  # the readiness probes' requests
        ports = [one.port, two.port] * (total // 2)
        began = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            statuses = list(pool.map(status_of, ports))
        elapsed = time.monotonic() - began
    admitted = statuses.count(200)
    assert statuses.count(200) + statuses.count(429) == total, statuses
    refill = int(elapsed * limit / window)  # what the window gave back meanwhile
    assert limit <= admitted <= limit + refill, (admitted, elapsed)


def status_of(port: int) -> int:
    connection = http.client.HTTPConnection(LOCAL, port, timeout=10)
    try:
        connection.request("GET", f"{NS}/events")
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def test_the_memory_buckets_are_thread_safe() -> None:
    buckets = MemoryBuckets(now=lambda: 0.0)
    policy = rate_buckets.Policy("anon", 1000, 60)
    admitted: list[bool] = []

    def spend() -> None:
        for _ in range(300):
            admitted.append(buckets.take([policy], "x")[0])

    threads = [threading.Thread(target=spend) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert admitted.count(True) == 1000
