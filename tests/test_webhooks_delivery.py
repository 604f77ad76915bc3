"""The webhook worker against a real receiver on 127.0.0.1 (``sync.md`` §5).

Every delivery is verified with Standard Webhooks' own library. Time moves on a
``ManualClock`` started at the real time (signatures carry it, and verifiers allow
five minutes), so retries are due without waiting. Deliveries here are of venue and
tag changes, which the change log already records.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import signal
import subprocess
import sys
import threading
import time
import typing as t

import pytest
from conftest import NS, Api, api_for
from standardwebhooks import Webhook
from webhook_helpers import Receiver, Step, attempts, messages, payload, subscribe

from calendar_rest.app import Application
from calendar_rest.cli import main
from calendar_rest.clock import ManualClock
from calendar_rest.delivery.schedule import DELAYS, delay_after, retry_after_seconds
from calendar_rest.delivery.worker import Worker
from calendar_rest.models import WebhookMessage
from calendar_rest.settings import Settings

Build = t.Callable[..., Application]


@pytest.fixture
def receiver() -> t.Iterator[Receiver]:
    endpoint = Receiver()
    yield endpoint
    endpoint.close()


@pytest.fixture
def hooks(api: Api, sibling_app: Build) -> Api:
    return api_for(sibling_app(webhook_allow_private=True), api)


@pytest.fixture
def clock() -> ManualClock:
    """A little ahead of the real time, so what the API just enqueued is due."""
    return ManualClock(dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=2))


def worker_for(app: Application, clock: ManualClock, **settings: t.Any) -> Worker:
    options = {"webhook_allow_private": True, **settings}
    built = Settings.build(app.settings.database_url, environ={}, **options)
    return Worker(app.database, built, clock, rng=random.Random(7))


def verify(secret: str, received: t.Any) -> dict[str, t.Any]:
    return t.cast(dict[str, t.Any], Webhook(secret).verify(received.body, received.headers))


def deliveries(api: Api, subscription_id: int) -> list[dict[str, t.Any]]:
    response = api.get(f"/webhooks/{subscription_id}/deliveries", "administrator")
    assert response.status_code == 200
    return t.cast(list[dict[str, t.Any]], response.json)


def test_a_delivery_is_signed_and_verifies(
    hooks: Api, app: Application, receiver: Receiver, clock: ManualClock
) -> None:
    subscription = subscribe(hooks, receiver.url, ["venue.created"])
    hooks.post("/venues", "editor", json={"venue": "Blue Hall"})
    (message,) = messages(app)
    assert worker_for(app, clock).run_once() == 1
    (got,) = receiver.received
    assert got.path == "/hook"
    assert verify(subscription["secret"], got) == payload(message)
    assert got.body == bytes(message.payload)
    assert got.headers["Content-Type"] == "application/json"
    assert got.headers["User-Agent"] == "calendar-rest/0.1.0"
    assert got.headers["webhook-id"] == message.message_id
    assert int(got.headers["webhook-timestamp"]) == int(clock.now().timestamp())
    assert got.headers["webhook-signature"].startswith("v1,")
    (item,) = deliveries(hooks, subscription["id"])
    assert item["message_id"] == message.message_id and item["type"] == "venue.created"
    assert (item["attempt"], item["status_code"], item["error"]) == (1, 200, None)
    assert item["next_attempt_at"] is None and item["attempted_at"].endswith("Z")
    assert isinstance(item["duration_ms"], int)
    assert [m.state for m in messages(app)] == ["done"]
    assert worker_for(app, clock).run_once() == 0  # nothing left


def test_a_failure_is_retried_within_ten_seconds_and_listed_per_attempt(
    hooks: Api, app: Application, receiver: Receiver, clock: ManualClock
) -> None:
    subscription = subscribe(hooks, receiver.url, ["*"])
    receiver.script = [Step(status=500)]
    hooks.post("/tags", "editor", json={"name": "Jazz"})
    worker = worker_for(app, clock)
    worker.run_once()
    (first,) = deliveries(hooks, subscription["id"])
    assert (first["status_code"], first["attempt"]) == (500, 1)
    retry_at = dt.datetime.fromisoformat(first["next_attempt_at"].replace("Z", "+00:00"))
    assert dt.timedelta(seconds=3) <= retry_at - clock.now() <= dt.timedelta(seconds=10)
    assert worker.run_once() == 0  # not due yet
    clock.advance(seconds=10)
    assert worker.run_once() == 1
    second, again = deliveries(hooks, subscription["id"])  # newest first
    assert (second["attempt"], second["status_code"], second["next_attempt_at"]) == (2, 200, None)
    assert again == first
    one, two = receiver.received
    assert one.headers["webhook-id"] == two.headers["webhook-id"] == second["message_id"]
    assert one.headers["webhook-timestamp"] != two.headers["webhook-timestamp"]
    assert one.headers["webhook-signature"] != two.headers["webhook-signature"]
    assert one.body == two.body
    for got in (one, two):
        verify(subscription["secret"], got)


def test_a_timeout_is_a_failure_without_status(
    hooks: Api, app: Application, receiver: Receiver, clock: ManualClock
) -> None:
    subscription = subscribe(hooks, receiver.url, ["*"])
    receiver.script = [Step(delay=5)]
    hooks.post("/tags", "editor", json={"name": "Slow"})
    started = time.monotonic()
    worker_for(app, clock, webhook_timeout=1).run_once()
    assert time.monotonic() - started < 4
    (item,) = deliveries(hooks, subscription["id"])
    assert (item["status_code"], item["error"]) == (None, "timeout")
    assert item["next_attempt_at"] is not None


def test_a_410_disables_the_subscription_and_drops_its_pending_messages(
    hooks: Api, app: Application, receiver: Receiver, clock: ManualClock
) -> None:
    subscription = subscribe(hooks, receiver.url, ["*"])
    receiver.script = [Step(status=410)]
    for name in ("One", "Two", "Three"):
        hooks.post("/tags", "editor", json={"name": name})
    worker_for(app, clock, webhook_concurrency=1).run_once()
    assert len(receiver.received) == 1
    body = hooks.get(f"/webhooks/{subscription['id']}", "administrator").json
    assert body["active"] is False and body["disabled_reason"] == "endpoint answered 410"
    assert [m.state for m in messages(app)] == ["done", "dropped", "dropped"]
    (item,) = deliveries(hooks, subscription["id"])
    assert (item["status_code"], item["next_attempt_at"]) == (410, None)
    hooks.post("/tags", "editor", json={"name": "Ignored"})
    assert len(messages(app)) == 3
    enabled = hooks.patch(f"/webhooks/{subscription['id']}", "administrator", json={"active": True})
    assert enabled.json["disabled_reason"] is None


@pytest.mark.parametrize(
    ("status", "retry_after", "expected"),
    [
        (503, "120", 120),
        (429, "999999", 86400),
        (502, None, 5),
        (500, "120", 5),  # Retry-After is read on 429, 502, 503 and 504 only
    ],
)
def test_retry_after_is_honoured_capped_at_a_day(
    hooks: Api,
    app: Application,
    receiver: Receiver,
    clock: ManualClock,
    status: int,
    retry_after: str | None,
    expected: int,
) -> None:
    subscribe(hooks, receiver.url, ["*"])
    headers = {"Retry-After": retry_after} if retry_after else {}
    receiver.script = [Step(status=status, headers=headers)]
    hooks.post("/tags", "editor", json={"name": "Busy"})
    worker_for(app, clock).run_once()
    (message,) = messages(app)
    wait = (message.next_attempt_at - clock.now().replace(tzinfo=None)).total_seconds()
    assert abs(wait - expected) <= expected * 0.1 + 2  # MariaDB keeps whole seconds


def test_the_retry_schedule() -> None:
    rng = random.Random(1)
    assert DELAYS == (5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400)
    for _ in range(200):
        first = delay_after(1, rng)
        assert first is not None and 4.5 <= first <= 5.5
        last = delay_after(9, rng)
        assert last is not None and 0.9 * 86400 <= last <= 1.1 * 86400
    assert delay_after(10, rng) is None
    now = dt.datetime(2026, 1, 1, 12, 0, 0)
    assert retry_after_seconds("Thu, 01 Jan 2026 12:01:00 GMT", now) == 60
    assert retry_after_seconds("soon", now) is None


def test_the_last_failure_fails_the_message_and_retry_requeues_it(
    hooks: Api, app: Application, receiver: Receiver, clock: ManualClock
) -> None:
    subscription = subscribe(hooks, receiver.url, ["*"])
    receiver.script = [Step(status=500)]
    hooks.post("/tags", "editor", json={"name": "Doomed"})
    with app.database.connection_context():
        WebhookMessage.update(attempts=9).execute()  # nine attempts already failed
    worker_for(app, clock).run_once()
    (message,) = messages(app)
    assert (message.state, message.attempts) == ("failed", 10)
    url = app.settings.database_url
    assert main(["--database", url, "webhooks", "retry", str(subscription["id"])]) == 0
    (requeued,) = messages(app)
    assert requeued.state == "pending" and requeued.message_id == message.message_id
    worker_for(app, clock).run_once()
    assert receiver.received[-1].headers["webhook-id"] == message.message_id
    assert messages(app)[0].state == "done"


def test_a_blocked_address_fails_the_attempt(
    hooks: Api, app: Application, receiver: Receiver, clock: ManualClock
) -> None:
    """The API accepted the loopback target (private allowed there); a worker that
    does not allow private targets refuses the address it would connect to."""
    subscription = subscribe(hooks, receiver.url, ["*"])
    hooks.post("/tags", "editor", json={"name": "Rebound"})
    worker_for(app, clock, webhook_allow_private=False).run_once()
    assert receiver.received == []
    (item,) = deliveries(hooks, subscription["id"])
    assert (item["status_code"], item["error"]) == (None, "blocked address")


def test_redirects_are_not_followed(
    hooks: Api, app: Application, receiver: Receiver, clock: ManualClock
) -> None:
    subscription = subscribe(hooks, receiver.url, ["*"])
    receiver.script = [Step(status=307, headers={"Location": receiver.url + "/elsewhere"})]
    hooks.post("/tags", "editor", json={"name": "Moved"})
    worker_for(app, clock).run_once()
    assert len(receiver.received) == 1
    (item,) = deliveries(hooks, subscription["id"])
    assert item["status_code"] == 307 and item["next_attempt_at"] is not None


def test_a_connection_error_is_recorded(hooks: Api, app: Application, clock: ManualClock) -> None:
    subscription = subscribe(hooks, "http://127.0.0.1:9/closed", ["*"])
    hooks.post("/tags", "editor", json={"name": "Nobody"})
    worker_for(app, clock).run_once()
    (item,) = deliveries(hooks, subscription["id"])
    assert (item["status_code"], item["error"]) == (None, "connection error")


def test_a_lease_keeps_a_message_from_a_second_worker_until_it_expires(
    hooks: Api, app: Application, receiver: Receiver, clock: ManualClock
) -> None:
    subscribe(hooks, receiver.url, ["*"])
    hooks.post("/tags", "editor", json={"name": "Leased"})
    first, second = worker_for(app, clock), worker_for(app, clock)
    ((message_id, claim),) = first.claim(5)
    assert second.claim(5) == []
    clock.advance(seconds=61)  # the first worker died: its lease expired
    ((taken_id, _),) = second.claim(5)
    assert taken_id == message_id
    first.attempt(message_id, claim)  # the late worker sends, but records nothing
    assert attempts(app) == [] and messages(app)[0].state == "pending"


def test_two_workers_at_once_deliver_each_message_once(
    hooks: Api, app: Application, receiver: Receiver, clock: ManualClock
) -> None:
    subscribe(hooks, receiver.url, ["*"])
    for number in range(12):
        hooks.post("/tags", "editor", json={"name": f"Tag {number}"})
    workers = [worker_for(app, clock, webhook_concurrency=3) for _ in range(2)]
    threads = [threading.Thread(target=worker.run_once) for worker in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    ids = [got.headers["webhook-id"] for got in receiver.received]
    assert len(ids) == len(set(ids)) == 12
    assert {m.state for m in messages(app)} == {"done"}
    assert len(attempts(app)) == 12


def test_the_running_worker_delivers_within_seconds_and_stops(
    hooks: Api, app: Application, receiver: Receiver
) -> None:
    subscription = subscribe(hooks, receiver.url, ["tag.created"])
    settings = Settings.build(app.settings.database_url, environ={}, webhook_allow_private=True)
    worker = Worker(app.database, settings)
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop,))
    thread.start()
    try:
        hooks.post("/tags", "editor", json={"name": "Live"})
        assert receiver.arrived.wait(5)
        verify(subscription["secret"], receiver.received[0])
    finally:
        stop.set()
        thread.join(5)
    assert not thread.is_alive()


def test_the_operator_commands(
    hooks: Api, app: Application, capsys: pytest.CaptureFixture[str]
) -> None:
    subscription = subscribe(hooks, "http://127.0.0.1:9/x", ["tag.created", "*"])
    hooks.post("/tags", "editor", json={"name": "Queued"})
    url = app.settings.database_url
    key = subscription["secret"].removeprefix("whsec_")
    assert main(["--database", url, "webhooks", "list"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.split("\t") == [
        str(subscription["id"]),
        "http://127.0.0.1:9/x",
        "tag.created,*",
        "active",
        "pending=1",
        "failed=0",
    ]
    assert main(["--database", url, "webhooks", "disable", str(subscription["id"])]) == 0
    assert [m.state for m in messages(app)] == ["dropped"]
    assert main(["--database", url, "webhooks", "enable", str(subscription["id"])]) == 0
    assert hooks.get(f"/webhooks/{subscription['id']}", "administrator").json["active"] is True
    out = capsys.readouterr()
    assert key not in out.out + out.err
    for command in (["disable", "999"], ["enable", "999"], ["retry", "999"]):
        assert main(["--database", url, "webhooks", *command]) == 1
        assert "999" in capsys.readouterr().err
    retry = ["retry", str(subscription["id"]), "--message", "msg_nope"]
    assert main(["--database", url, "webhooks", *retry]) == 1
    assert "msg_nope" in capsys.readouterr().err


def _start_worker(url: str, *extra: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "CALENDAR_REST_WEBHOOK_ALLOW_PRIVATE": "1"}
    command = [sys.executable, "-m", "calendar_rest", "--database", url, "webhooks", "run"]
    return subprocess.Popen(
        [*command, *extra], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )


@pytest.mark.slow
def test_a_killed_worker_s_message_is_redelivered_by_another(
    hooks: Api, app: Application, receiver: Receiver
) -> None:
    """SIGKILL while the receiver holds the request; a second worker sends the same
    ``webhook-id`` again, newly signed, once the (shortened) lease expired; SIGTERM
    then stops it with status 0."""
    subscription = subscribe(hooks, receiver.url, ["*"])
    receiver.script = [Step(hold=True)]
    hooks.post("/tags", "editor", json={"name": "Crash"})
    url = app.settings.database_url
    first = _start_worker(url, "--lease", "3")
    try:
        assert receiver.arrived.wait(20)
        first.send_signal(signal.SIGKILL)
    finally:
        first.kill()
        first.communicate(timeout=10)
    receiver.arrived.clear()
    receiver.release.set()
    second = _start_worker(url, "--lease", "3")
    try:
        deadline = time.monotonic() + 20
        while len(receiver.received) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(receiver.received) == 2
        one, two = receiver.received
        assert one.headers["webhook-id"] == two.headers["webhook-id"]
        assert one.headers["webhook-signature"] != two.headers["webhook-signature"]
        verify(subscription["secret"], two)
        deadline = time.monotonic() + 10
        while messages(app)[0].state != "done" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert messages(app)[0].state == "done"
        second.send_signal(signal.SIGTERM)
        _, errors = second.communicate(timeout=10)
        assert second.returncode == 0
        log = errors.decode()
        assert log.count("attempt") == 1 and "Crash" not in log
        assert subscription["secret"].removeprefix("whsec_") not in log
    finally:
        if second.poll() is None:
            second.kill()
            second.communicate(timeout=10)


@pytest.mark.slow
def test_the_worker_command_runs_once_and_exits(
    hooks: Api, app: Application, receiver: Receiver
) -> None:
    subscription = subscribe(hooks, receiver.url, ["*"])
    hooks.post("/tags", "editor", json={"name": "Once"})
    process = _start_worker(app.settings.database_url, "--once")
    process.communicate(timeout=30)
    assert process.returncode == 0
    (got,) = receiver.received
    verify(subscription["secret"], got)
    assert payload(messages(app)[0])["data"]["rest_url"].endswith(
        f"{NS}/tags/{payload(messages(app)[0])['data']['id']}"
    )
