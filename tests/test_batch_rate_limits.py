"""A batch counts as many requests as it holds items (``anchors.md`` §2-3, as Google
and Microsoft Graph count each item of a batch against quotas).

The batch takes one token when admitted, before any database work, like any request;
its other items take theirs from the same buckets (the user's and its writes', or the
address's), all or none, before any item runs. Refused, the batch is a 429
``rest_too_many_requests`` with ``Retry-After`` (until the whole batch fits again) and
nothing is written; a batch larger than a bucket's whole quota is refused as such
(``rest_batch_over_rate_limit``). The buckets take ``count`` tokens at once, in memory
and in the real Redis (its tests skip without one, and fail under
``CALENDAR_REST_REQUIRE_REDIS``, as ``test_rate_limits.py``'s).
"""

from __future__ import annotations

import typing as t

import pytest
import test_rate_limits as rate_tests
from conftest import Api, api_for, assert_wp_error
from test_batch import count, create, statuses
from test_rate_limits import LOCAL, Ticks, assert_refused
from werkzeug.test import TestResponse

from calendar_rest import cli
from calendar_rest.app import Application
from calendar_rest.edge.rate_buckets import MemoryBuckets, Policy, RedisBuckets
from calendar_rest.models import ChangeEntry, Event

Build = t.Callable[..., Application]
Limited = t.Callable[..., Api]
#: ``test_rate_limits.py``'s fixtures: apps with limits on a still clock, the real Redis
limited, ticks, redis_url = rate_tests.limited, rate_tests.ticks, rate_tests.redis_url


def batch(
    api: Api, size: int, as_: str | None = "editor", address: str = LOCAL, **extra: t.Any
) -> TestResponse:
    """``POST /batch/v1`` of ``size`` creates from ``address`` (``validation``, ``atomic``)."""
    body = {"requests": [create(f"Item {n}") for n in range(size)], **extra}
    return api.client.open(
        "/batch/v1",
        method="POST",
        headers=api.headers(as_),
        json=body,
        environ_overrides={"REMOTE_ADDR": address},
    )


def verified(api: Api, login: str = "editor") -> None:
    """One read, so the process knows whom the credentials name (``rate_limits.py``)."""
    response = api.get("/tags", login, environ_overrides={"REMOTE_ADDR": LOCAL})
    assert response.status_code == 200


# -- through the app, in memory ----------------------------------------------------------


def test_a_batch_counts_each_item_and_its_headers_show_the_tokens_spent(
    limited: Limited, app: Application
) -> None:
    api = limited(rate_limit_authenticated=50, rate_limit_writes=10)
    verified(api)  # not counted: anonymous requests are not limited here
    response = batch(api, 4)
    assert statuses(response) == [201] * 4
    assert response.headers["RateLimit-Policy"] == '"user";q=50;w=60, "writes";q=10;w=60'
    assert response.headers["RateLimit"] == '"user";r=46;t=5, "writes";r=6;t=24'
    assert count(app, Event) == 4
    single = api.post("/tags", "editor", json={"name": "one more"})  # the next write sees it
    assert single.headers["RateLimit"] == '"user";r=45;t=6, "writes";r=5;t=30'


@pytest.mark.parametrize(
    "extra",
    [{}, {"atomic": True}, {"validation": "require-all-validate"}],
    ids=["independent", "atomic", "require-all-validate"],
)
def test_a_batch_over_what_is_left_is_refused_whole_and_retry_after_is_when_it_fits(
    limited: Limited, app: Application, ticks: Ticks, extra: dict[str, t.Any]
) -> None:
    api = limited(rate_limit_authenticated=50, rate_limit_writes=10)
    verified(api)
    assert statuses(batch(api, 5, **extra)) == [201] * 5  # 5 writes left
    changes = count(app, ChangeEntry)
    refused = batch(api, 7, **extra)  # its admission takes 1: 4 left, 6 more wanted
    # until the bucket holds the whole batch again, 7 tokens: 3 more, 6 s each
    assert_refused(refused, 18)
    assert refused.headers["RateLimit"] == '"user";r=44;t=8, "writes";r=4;t=36'
    assert count(app, Event) == 5 and count(app, ChangeEntry) == changes  # nothing ran
    ticks.now += 18
    again = batch(api, 7, **extra)
    assert statuses(again) == [201] * 7
    assert again.headers["RateLimit"].endswith('"writes";r=0;t=60')
    assert count(app, Event) == 12


def test_a_refused_batch_runs_no_item(
    limited: Limited, app: Application, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = limited(rate_limit_authenticated=50, rate_limit_writes=3)
    verified(api)
    ran: list[str] = []
    writes = api.app.dispatcher.writes
    original = writes.check  # every item's checks, written or not

    def spy(*args: t.Any, **kw: t.Any) -> t.Any:
        ran.append("item")
        return original(*args, **kw)

    monkeypatch.setattr(writes, "check", spy)
    assert statuses(batch(api, 2)) == [201, 201]
    assert len(ran) == 2
    assert_refused(batch(api, 2, validation="require-all-validate"), 40)
    assert len(ran) == 2 and count(app, Event) == 2


def test_an_anonymous_batch_counts_each_item_for_its_address(limited: Limited) -> None:
    api = limited(rate_limit_anonymous=5)
    response = batch(api, 3, as_=None, address="10.0.0.1")
    assert statuses(response) == [401] * 3  # counted though refused, as alone
    assert response.headers["RateLimit"] == '"anon";r=2;t=36'
    assert_refused(batch(api, 3, as_=None, address="10.0.0.1"), 24)  # 1 left, 3 wanted
    assert statuses(batch(api, 3, as_=None, address="10.0.0.2")) == [401] * 3


def test_credentials_not_verified_yet_count_the_batch_for_the_address_its_items_for_the_user(
    limited: Limited,
) -> None:
    api = limited(rate_limit_anonymous=100, rate_limit_authenticated=20, rate_limit_writes=5)
    response = batch(api, 3)  # the first request with these credentials
    assert statuses(response) == [201] * 3
    assert response.headers["RateLimit"] == '"user";r=18;t=6, "writes";r=3;t=24'
    assert batch(api, 4).status_code == 429  # 1 + 3 wanted of 3


def test_a_batch_larger_than_the_whole_quota_is_refused_as_such(
    limited: Limited, app: Application, ticks: Ticks
) -> None:
    api = limited(rate_limit_authenticated=50, rate_limit_writes=3)
    verified(api)
    refused = batch(api, 4)  # never fits, full bucket or not
    body = assert_wp_error(refused, 429, "rest_batch_over_rate_limit")
    assert body["data"]["max_requests"] == 3
    assert "at most 3 requests per batch" in body["message"]
    assert "Retry-After" not in refused.headers  # no wait would help
    assert refused.headers["RateLimit"] == '"user";r=49;t=2, "writes";r=2;t=20'
    assert count(app, Event) == 0
    ticks.now += 60  # full again: a batch of the whole quota passes
    assert statuses(batch(api, 3)) == [201] * 3
    over = limited(rate_limit_anonymous=2)
    body = assert_wp_error(batch(over, 3, as_=None), 429, "rest_batch_over_rate_limit")
    assert body["data"]["max_requests"] == 2


def test_a_batch_of_one_costs_one_token_and_a_malformed_batch_too(limited: Limited) -> None:
    api = limited(rate_limit_authenticated=50, rate_limit_writes=10)
    verified(api)
    assert batch(api, 1).headers["RateLimit"].endswith('"writes";r=9;t=6')
    malformed = api.client.open(
        "/batch/v1", method="POST", headers=api.headers("editor"), json={"requests": "no"}
    )
    assert malformed.status_code == 400
    assert malformed.headers["RateLimit"].endswith('"writes";r=8;t=12')


def test_an_exempt_user_batches_uncounted(limited: Limited, app: Application) -> None:
    api = limited(rate_limit_anonymous=2, rate_limit_authenticated=2, rate_limit_writes=1)
    url = app.settings.database_url
    assert cli.main(["--database", url, "users", "set", "editor", "--rate-limit-exempt"]) == 0
    verified(api)
    for _ in range(2):
        response = batch(api, 5)
        assert statuses(response) == [201] * 5
        assert "RateLimit" not in response.headers
    assert count(app, Event) == 10


def test_with_every_limit_off_a_batch_is_not_counted(api: Api, app: Application) -> None:
    assert app.rate_limits is None and app.dispatcher.rate_limits is None
    response = batch(api, 25)
    assert statuses(response) == [201] * 25
    assert "RateLimit" not in response.headers and "Retry-After" not in response.headers


# -- the buckets -------------------------------------------------------------------------


@pytest.fixture(params=["memory", "redis"])
def buckets(request: pytest.FixtureRequest) -> MemoryBuckets | RedisBuckets:
    """Memory buckets on a clock that stays still, or the real Redis (a key prefix of
    its own; skipped without Redis unless it is required)."""
    if request.param == "memory":
        return MemoryBuckets(now=lambda: 0.0)
    return RedisBuckets(request.getfixturevalue("redis_url"), timeout=2.0)


def test_the_buckets_take_a_count_all_or_none(buckets: MemoryBuckets | RedisBuckets) -> None:
    user, writes = Policy("user", 100, 3600), Policy("writes", 10, 3600)
    admitted, levels = buckets.take([user, writes], "u1", 7)
    assert admitted and [(p.name, round(n)) for p, n in levels] == [("user", 93), ("writes", 3)]
    admitted, levels = buckets.take([user, writes], "u1", 4)  # writes has 3: nothing taken
    assert not admitted and [round(n) for _, n in levels] == [93, 3]
    assert buckets.take([user, writes], "u1", 3)[0]
    admitted, levels = buckets.take([user], "u1")  # one token, one policy: as before
    assert admitted and round(levels[0][1]) == 89
    assert not buckets.take([writes], "u1")[0]
    admitted, levels = buckets.take([writes], "u2", 11)  # more than it ever holds
    assert not admitted and round(levels[0][1]) == 10
    admitted, levels = buckets.take([writes], "u2", 10)  # the whole quota at once
    assert admitted and round(levels[0][1]) == 0


def test_wait_is_until_the_bucket_holds_the_count() -> None:
    policy = Policy("writes", 10, 60)  # a token every 6 s
    assert policy.wait(0.0) == 6 and policy.wait(0.5) == 3 and policy.wait(3.0) == 1
    assert policy.wait(4.0, 7) == 18 and policy.wait(7.0, 7) == 1


def test_processes_sharing_redis_count_a_batch_on_each_other(
    sibling_app: Build, api: Api, redis_url: str
) -> None:
    settings = {"rate_limit_authenticated": 50, "rate_limit_writes": 6}
    first = api_for(sibling_app(rate_limit_redis_url=redis_url, **settings), api)
    second = api_for(sibling_app(rate_limit_redis_url=redis_url, **settings), api)
    for client in (first, second):
        verified(client)
    assert statuses(batch(first, 4)) == [201] * 4
    refused = batch(second, 3)  # 2 left; the admission takes 1
    assert_refused(refused, 20)  # 3 tokens wanted, 10 s each
    assert refused.headers["RateLimit"] == '"user";r=45;t=6, "writes";r=1;t=50'
    response = batch(second, 1)
    assert statuses(response) == [201]
    assert response.headers["RateLimit"].endswith('"writes";r=0;t=60')
