"""Failed-login throttling (``security.md`` E1-E6): what counts as a failure, the limits
per login and per client address within the window, the 429 with ``Retry-After`` while
locked, the resets and the exemption of addresses that recently logged in, the state
shared by every process on the database, the ``users unlock`` commands and the settings.

Time only moves through a :class:`ManualClock` shared by the apps under test: nothing
sleeps. Client addresses are the WSGI ``REMOTE_ADDR`` the test client sends.
"""

from __future__ import annotations

import datetime as dt
import logging
import typing as t

import pytest
from conftest import Api, api_for, assert_wp_error
from werkzeug.test import TestResponse

from calendar_rest import cli
from calendar_rest.app import Application
from calendar_rest.clock import ManualClock
from calendar_rest.edge import auth
from calendar_rest.edge.auth import basic_header
from calendar_rest.models import LoginThrottle, User, bind_models
from calendar_rest.repository.users import revoke_application_passwords
from calendar_rest.settings import Settings

START = dt.datetime(2026, 3, 2, 12, 0, 0, tzinfo=dt.timezone.utc)
LOCAL = "127.0.0.1"  # what the Werkzeug test client sends
ATTACKER = "10.0.0.9"
OFFICE = "10.0.0.1"
ELSEWHERE = "10.0.0.7"
WINDOW = 60
LOCKOUT = 300
#: small limits, so that a few requests lock; tests override what they exercise
LIMITS: dict[str, t.Any] = {
    "login_max_failures_per_user": 3,
    "login_max_failures_per_address": 5,
    "login_failure_window": WINDOW,
    "login_lockout": LOCKOUT,
}
WRONG = "wrong-password-wrong"
UNDECODABLE = "Basic %%%not-base64%%%"
Build = t.Callable[..., Application]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def make(
    sibling_app: Build, api: Api, clock: ManualClock
) -> t.Callable[..., tuple[Application, Api]]:
    """An app (and its client) on the test database reading ``clock``, with ``LIMITS``
    and then the given settings."""

    def build(**settings: t.Any) -> tuple[Application, Api]:
        other = sibling_app(clock=clock, **{**LIMITS, **settings})
        return other, api_for(other, api)

    return build


@pytest.fixture
def guarded(make: t.Callable[..., tuple[Application, Api]]) -> Api:
    """A client of an app with ``LIMITS``."""
    return make()[1]


# -- helpers -------------------------------------------------------------------------


def attempt(
    api: Api, authorization: str | None, address: str = LOCAL, method: str = "GET", **kw: t.Any
) -> TestResponse:
    """A request to ``/events`` from ``address`` with that ``Authorization`` (if any)."""
    headers = {"Authorization": authorization} if authorization is not None else {}
    return api.request(
        method, "/events", headers=headers, environ_overrides={"REMOTE_ADDR": address}, **kw
    )


def login(api: Api, name: str, address: str = LOCAL) -> TestResponse:
    """``name``'s right credentials from ``address``."""
    return attempt(api, basic_header(name, api.passwords[name]), address)


def guess(api: Api, name: str, address: str = LOCAL, secret: str = WRONG) -> TestResponse:
    """Credentials for ``name`` with a wrong secret, from ``address``."""
    return attempt(api, basic_header(name, secret), address)


def anonymous(api: Api, address: str = LOCAL) -> TestResponse:
    return attempt(api, None, address)


def assert_ok(response: TestResponse) -> None:
    assert response.status_code == 200, response.get_data(as_text=True)


def assert_refused(response: TestResponse, code: str = "incorrect_password") -> None:
    """A counted failure: the 401 of rejected credentials, never a 429."""
    assert_wp_error(response, 401, code)
    assert "Retry-After" not in response.headers


def assert_locked(response: TestResponse, retry_after: int | None = None) -> int:
    """The 429 of a lock (E3); returns its ``Retry-After``."""
    body = assert_wp_error(response, 429, "rest_too_many_login_attempts")
    assert body["data"] == {"status": 429}
    value = response.headers.get("Retry-After", "")
    assert value.isdigit(), response.headers  # whole seconds, no date
    assert int(value) >= 1
    if retry_after is not None:
        assert int(value) == retry_after
    return int(value)


def fail(api: Api, times: int, name: str, address: str = LOCAL) -> None:
    """``times`` wrong passwords for ``name`` (or an unknown login), each a 401 (whether
    another case of a login names its user is the backend's collation: either 401)."""
    for _ in range(times):
        response = guess(api, name, address)
        if name in api.passwords:
            assert_refused(response, "incorrect_password")
        elif name.lower() in api.passwords:
            code = (response.json or {}).get("code")
            assert code in ("incorrect_password", "invalid_username"), response.json
            assert_refused(response, code)
        else:
            assert_refused(response, "invalid_username")


def throttle_rows(app: Application) -> list[LoginThrottle]:
    bind_models(app.database, app.login_store)
    with app.database.connection_context():
        return list(LoginThrottle.select())


def unlock(app: Application, *argv: str) -> int:
    """``calendar-rest users unlock ...`` on the app's database (the command binds the
    models to its own connection; the app binds them back on its next request)."""
    try:
        return cli.main(["--database", app.settings.database_url, "users", "unlock", *argv])
    finally:
        bind_models(app.database, app.login_store)


# -- E1: what counts -------------------------------------------------------------------


FAILURES = {
    # kind: (login it counts against or None, the Authorization header, its 401 code)
    "wrong password": ("editor", lambda api: basic_header("editor", WRONG), "incorrect_password"),
    "revoked password": (
        "editor",
        lambda api: basic_header("editor", api.passwords["editor"]),
        "incorrect_password",
    ),
    "unknown login": ("ghost", lambda api: basic_header("ghost", WRONG), "invalid_username"),
    "undecodable header": (None, lambda api: UNDECODABLE, "invalid_username"),
}


@pytest.mark.parametrize("kind", list(FAILURES))
def test_rejected_credentials_count_against_the_login_and_the_address(
    make: t.Callable[..., tuple[Application, Api]], kind: str
) -> None:
    app, api = make(login_max_failures_per_user=3, login_max_failures_per_address=3)
    name, header, code = FAILURES[kind]
    if kind == "revoked password":
        bind_models(app.database, app.login_store)
        with app.database.connection_context():
            assert revoke_application_passwords(User.get(User.login == "editor")) == 1
    for _ in range(3):
        assert_refused(attempt(api, header(api), ATTACKER), code)
    # the third failure locked the address: any credentials from it are refused
    assert_locked(login(api, "author", ATTACKER), LOCKOUT)
    assert_ok(login(api, "author", ELSEWHERE))
    if name is not None:  # ... and the login, from anywhere
        assert_locked(attempt(api, header(api), ELSEWHERE), LOCKOUT)
        assert_locked(guess(api, name, ELSEWHERE), LOCKOUT)


def test_anonymous_requests_and_forbidden_callers_do_not_count(
    make: t.Callable[..., tuple[Application, Api]],
) -> None:
    app, api = make(login_max_failures_per_user=2, login_max_failures_per_address=2)
    for _ in range(5):
        assert_ok(anonymous(api, ATTACKER))
        refused = attempt(
            api,
            api.headers("subscriber")["Authorization"],
            ATTACKER,
            "POST",
            json={
                "title": "Not allowed",
                "start_date": "2026-04-01 19:00:00",
                "end_date": "2026-04-01 21:00:00",
            },
        )
        assert refused.status_code == 403, refused.get_data(as_text=True)
    assert_ok(login(api, "subscriber", ATTACKER))
    assert_ok(login(api, "editor", ATTACKER))
    assert all(not row.failures and row.locked_until is None for row in throttle_rows(app))


# -- E2: limits ------------------------------------------------------------------------


def test_the_login_locks_at_its_limit_and_the_limiting_attempt_still_answers_401(
    guarded: Api,
) -> None:
    fail(guarded, 2, "editor", ATTACKER)
    assert_ok(login(guarded, "author", ATTACKER))  # not locked yet
    assert_refused(guess(guarded, "editor", ATTACKER))  # the third: still a 401
    assert_locked(guess(guarded, "editor", ATTACKER), LOCKOUT)
    assert_locked(login(guarded, "editor", ELSEWHERE), LOCKOUT)  # the login, everywhere
    # only that login: other logins from the same address keep working
    assert_ok(login(guarded, "author", ATTACKER))
    assert_ok(login(guarded, "administrator", LOCAL))


def test_the_login_is_counted_in_any_case(guarded: Api) -> None:
    for name, address in (("Editor", ATTACKER), ("EDITOR", ELSEWHERE), ("editor", LOCAL)):
        assert guess(guarded, name, address).status_code == 401
    assert_locked(login(guarded, "editor", OFFICE), LOCKOUT)
    assert_locked(guess(guarded, "eDiToR", OFFICE), LOCKOUT)


def test_unknown_logins_are_counted_and_locked_alike(guarded: Api) -> None:
    fail(guarded, 2, "ghost", ATTACKER)
    assert_refused(guess(guarded, "Ghost", ELSEWHERE), "invalid_username")
    locked = assert_locked(guess(guarded, "ghost", ATTACKER), LOCKOUT)
    assert assert_locked(guess(guarded, "GHOST", OFFICE)) == locked
    assert_ok(login(guarded, "editor", ATTACKER))  # other logins unaffected


def test_failures_older_than_the_window_do_not_count(guarded: Api, clock: ManualClock) -> None:
    fail(guarded, 2, "editor", ATTACKER)
    clock.advance(seconds=WINDOW + 1)
    fail(guarded, 2, "editor", ATTACKER)  # two of the last window: no lock
    assert_ok(login(guarded, "editor", ELSEWHERE))


def test_failures_within_the_window_lock_however_they_fall(
    guarded: Api, clock: ManualClock
) -> None:
    fail(guarded, 2, "editor", ATTACKER)
    clock.advance(seconds=WINDOW - 1)
    assert_refused(guess(guarded, "editor", ATTACKER))  # three within the window
    assert_locked(login(guarded, "editor", ELSEWHERE), LOCKOUT)


def test_failures_within_any_window_span_lock_across_the_first_failures_window(
    guarded: Api, clock: ManualClock
) -> None:
    """Three failures within 3 seconds lock, even though they straddle the end of the
    window the first failure opened (the window slides with each failure)."""
    assert_refused(guess(guarded, "editor", ATTACKER))  # t = 0
    clock.advance(seconds=WINDOW - 1)
    assert_refused(guess(guarded, "editor", ATTACKER))  # t = 59
    clock.advance(seconds=2)
    assert_refused(guess(guarded, "editor", ATTACKER))  # t = 61: t = 0 is out of the window
    clock.advance(seconds=1)
    assert_refused(guess(guarded, "editor", ATTACKER))  # t = 62: 59, 61, 62 within 60 s
    assert_locked(login(guarded, "editor", ELSEWHERE))


def test_the_address_locks_at_its_limit_whatever_the_logins(guarded: Api) -> None:
    for name in ("ghost1", "ghost2", "ghost3", "editor"):
        guess(guarded, name, ATTACKER)
    assert_ok(login(guarded, "author", ATTACKER))  # four failures: not yet
    assert_refused(guess(guarded, "ghost5", ATTACKER), "invalid_username")  # the fifth
    for name in ("author", "administrator", "editor"):
        assert_locked(login(guarded, name, ATTACKER), LOCKOUT)
    assert_locked(guess(guarded, "ghost6", ATTACKER), LOCKOUT)
    # other addresses are not affected, nor these logins (one failure each)
    assert_ok(login(guarded, "author", ELSEWHERE))
    assert_ok(login(guarded, "editor", LOCAL))


def test_address_failures_older_than_the_window_do_not_count(
    guarded: Api, clock: ManualClock
) -> None:
    for index in range(4):
        guess(guarded, f"ghost{index}", ATTACKER)
    clock.advance(seconds=WINDOW + 1)
    for index in range(4):
        guess(guarded, f"phantom{index}", ATTACKER)
    assert_ok(login(guarded, "author", ATTACKER))
    guess(guarded, "phantom4", ATTACKER)  # five within the window
    assert_locked(login(guarded, "author", ATTACKER), LOCKOUT)


def test_a_repeated_lock_within_a_day_doubles(guarded: Api, clock: ManualClock) -> None:
    expected = LOCKOUT
    for _ in range(3):
        fail(guarded, 3, "editor", ATTACKER)
        assert_locked(login(guarded, "editor", ELSEWHERE), expected)
        clock.advance(seconds=expected + 1)
        assert_ok(login(guarded, "author", ELSEWHERE))
        expected *= 2
    # a day after the last lock, a lock lasts the base duration again
    clock.advance(days=1)
    fail(guarded, 3, "editor", ATTACKER)
    assert_locked(login(guarded, "editor", ELSEWHERE), LOCKOUT)


def test_a_repeated_address_lock_doubles_too(
    make: t.Callable[..., tuple[Application, Api]], clock: ManualClock
) -> None:
    _, api = make(login_max_failures_per_address=2)
    for expected in (LOCKOUT, 2 * LOCKOUT, 4 * LOCKOUT):
        guess(api, "ghost1", ATTACKER)
        guess(api, "ghost2", ATTACKER)
        assert_locked(login(api, "author", ATTACKER), expected)
        clock.advance(seconds=expected + 1)


def test_a_doubled_lock_is_capped_at_a_day(
    make: t.Callable[..., tuple[Application, Api]], clock: ManualClock
) -> None:
    _, api = make(login_lockout=50_000, login_max_failures_per_address=100)
    fail(api, 3, "editor", ATTACKER)
    assert_locked(login(api, "editor", ELSEWHERE), 50_000)
    clock.advance(seconds=50_001)
    fail(api, 3, "editor", ATTACKER)  # 23 h 53 min after the first lock
    assert_locked(login(api, "editor", ELSEWHERE), 86_400)


# -- E3: while locked ------------------------------------------------------------------


def test_retry_after_counts_down_and_the_lock_ends_with_it(
    guarded: Api, clock: ManualClock
) -> None:
    fail(guarded, 3, "editor", ATTACKER)
    assert_locked(login(guarded, "editor"), LOCKOUT)
    clock.advance(seconds=0.6)
    assert_locked(login(guarded, "editor"), LOCKOUT)
    clock.advance(seconds=120)
    assert_locked(login(guarded, "editor"), LOCKOUT - 120)
    clock.advance(seconds=LOCKOUT - 121)
    assert_locked(login(guarded, "editor"), 1)  # never 0
    clock.advance(seconds=2)
    assert_ok(login(guarded, "editor"))
    # the lock is over and the counter starts afresh
    fail(guarded, 2, "editor", ATTACKER)
    assert_ok(login(guarded, "editor", ELSEWHERE))


def sent_headers(response: TestResponse) -> dict[str, str]:
    """A response's headers but ``Date`` (the wall-clock second it was sent, which two
    answers in a row may see change, whatever they say) and ``X-Request-ID`` (each
    request's own)."""
    return {
        name: value
        for name, value in response.headers.items()
        if name not in ("Date", "X-Request-ID")
    }


def test_the_answer_while_locked_does_not_tell_right_from_wrong_or_known_from_unknown(
    make: t.Callable[..., tuple[Application, Api]],
) -> None:
    _, api = make(login_max_failures_per_address=100)
    fail(api, 3, "editor", ATTACKER)
    fail(api, 3, "ghost", ATTACKER)
    answers = [
        login(api, "editor", OFFICE),
        guess(api, "editor", OFFICE),
        guess(api, "ghost", OFFICE),
        guess(api, "ghost", OFFICE, secret=api.passwords["editor"]),
    ]
    for answer in answers:
        assert_locked(answer, LOCKOUT)
    first = answers[0]
    for answer in answers[1:]:
        assert answer.get_data() == first.get_data()
        assert sent_headers(answer) == sent_headers(first)


def test_the_answer_of_a_locked_address_is_the_same_for_every_caller(
    make: t.Callable[..., tuple[Application, Api]],
) -> None:
    _, api = make(login_max_failures_per_address=3)
    for name in ("ghost1", "ghost2", "ghost3"):
        guess(api, name, ATTACKER)
    answers = [
        login(api, "editor", ATTACKER),
        guess(api, "editor", ATTACKER),
        guess(api, "nobody", ATTACKER),
    ]
    for answer in answers:
        assert_locked(answer, LOCKOUT)
    for answer in answers[1:]:
        assert answer.get_data() == answers[0].get_data()
        assert sent_headers(answer) == sent_headers(answers[0])


def test_no_hash_is_computed_while_locked(guarded: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    computed: list[str] = []
    original = auth.matches

    def counting(secret: str, *args: t.Any) -> bool:
        computed.append(secret)
        return original(secret, *args)

    monkeypatch.setattr(auth, "matches", counting)
    fail(guarded, 3, "editor", ATTACKER)
    assert len(computed) == 3
    computed.clear()
    assert_locked(login(guarded, "editor", ELSEWHERE))
    assert_locked(guess(guarded, "editor", ELSEWHERE))
    assert computed == []


def test_an_unknown_login_costs_a_hash_like_a_known_one(
    guarded: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    computed: list[str] = []
    original = auth.matches

    def counting(secret: str, *args: t.Any) -> bool:
        computed.append(secret)
        return original(secret, *args)

    monkeypatch.setattr(auth, "matches", counting)
    guess(guarded, "editor", ATTACKER)
    known = len(computed)
    computed.clear()
    guess(guarded, "ghost", ATTACKER)
    assert known == 1 and len(computed) == known


def test_a_locked_address_gets_the_429_for_malformed_credentials_too(guarded: Api) -> None:
    """Every authentication attempt from a locked address is answered the same 429,
    whether its Basic credentials decode or not."""
    for index in range(5):
        guess(guarded, f"ghost{index}", ATTACKER)
    expected = login(guarded, "editor", ATTACKER)
    assert_locked(expected, LOCKOUT)
    for header in (UNDECODABLE, "Basic " + "ZWRpdG9y"):  # "editor", no colon
        answer = attempt(guarded, header, ATTACKER)
        assert_locked(answer, LOCKOUT)
        assert answer.get_data() == expected.get_data()


def test_anonymous_requests_from_a_locked_address_are_served(guarded: Api) -> None:
    for index in range(5):
        guess(guarded, f"ghost{index}", ATTACKER)
    assert_locked(login(guarded, "author", ATTACKER))
    response = anonymous(guarded, ATTACKER)
    assert_ok(response)
    assert "Retry-After" not in response.headers
    assert guarded.get("/venues", environ_overrides={"REMOTE_ADDR": ATTACKER}).status_code == 200


# -- E4: resets and the exemption ------------------------------------------------------


def test_a_success_clears_the_logins_counter(guarded: Api) -> None:
    fail(guarded, 2, "editor", ATTACKER)
    assert_ok(login(guarded, "editor", OFFICE))
    fail(guarded, 2, "editor", ATTACKER)  # two after the success: not three
    assert_ok(login(guarded, "editor", ELSEWHERE))


def test_a_success_does_not_clear_the_address_counter(guarded: Api) -> None:
    for name in ("ghost1", "ghost2", "ghost3", "ghost4"):
        guess(guarded, name, ATTACKER)
    assert_ok(login(guarded, "editor", ATTACKER))
    guess(guarded, "ghost5", ATTACKER)  # the fifth within the window
    assert_locked(login(guarded, "editor", ATTACKER))


def test_an_address_that_logged_in_is_exempt_from_the_logins_lock(
    make: t.Callable[..., tuple[Application, Api]], clock: ManualClock
) -> None:
    _, guarded = make(login_max_failures_per_address=100)
    assert_ok(login(guarded, "editor", OFFICE))
    clock.advance(seconds=5)
    fail(guarded, 3, "editor", ATTACKER)
    assert_locked(login(guarded, "editor", ATTACKER), LOCKOUT)
    assert_locked(login(guarded, "editor", ELSEWHERE), LOCKOUT)
    assert_ok(login(guarded, "editor", OFFICE))  # the running client keeps working
    # the exemption is that login's only: the office's other logins never logged in there
    fail(guarded, 3, "author", ATTACKER)
    assert_locked(login(guarded, "author", OFFICE))


def test_the_exemption_lasts_the_window_from_the_last_success(
    make: t.Callable[..., tuple[Application, Api]], clock: ManualClock
) -> None:
    _, api = make(login_max_failures_per_address=100)
    assert_ok(login(api, "editor", OFFICE))
    clock.advance(seconds=5)
    fail(api, 3, "editor", ATTACKER)
    clock.advance(seconds=WINDOW)  # 65 s after the office's success; locked for 240 s more
    assert_locked(login(api, "editor", OFFICE), LOCKOUT - WINDOW)


def test_the_logins_lock_outlasts_the_exempt_clients_later_successes(
    make: t.Callable[..., tuple[Application, Api]], clock: ManualClock
) -> None:
    """A running client polling now and then keeps working, and the guesser stays
    locked: a success clears the counter, not the lock."""
    _, api = make(login_max_failures_per_address=100)
    assert_ok(login(api, "editor", OFFICE))
    clock.advance(seconds=20)
    fail(api, 3, "editor", ATTACKER)
    for _ in range(4):  # the office polls every 20 s, within the window of its last success
        assert_ok(login(api, "editor", OFFICE))
        assert_locked(guess(api, "editor", ATTACKER))
        assert_locked(login(api, "editor", ELSEWHERE))
        clock.advance(seconds=20)


def test_the_address_lock_applies_to_an_exempt_address(
    make: t.Callable[..., tuple[Application, Api]],
) -> None:
    _, api = make(login_max_failures_per_address=3)
    assert_ok(login(api, "editor", OFFICE))
    for name in ("ghost1", "ghost2", "ghost3"):
        guess(api, name, OFFICE)
    assert_locked(login(api, "editor", OFFICE), LOCKOUT)
    assert_ok(login(api, "editor", ELSEWHERE))


# -- E5: shared state, logging ---------------------------------------------------------


def test_failures_through_one_process_lock_the_login_for_another(
    make: t.Callable[..., tuple[Application, Api]],
) -> None:
    _, first = make()
    _, second = make()
    fail(first, 2, "editor", ATTACKER)
    assert_refused(guess(second, "editor", ELSEWHERE))  # the third, through the other one
    assert_locked(login(first, "editor", LOCAL), LOCKOUT)
    assert_locked(login(second, "editor", LOCAL), LOCKOUT)
    for index in range(4):
        guess(second if index % 2 else first, f"ghost{index}", ATTACKER)
    assert_locked(login(second, "author", ATTACKER))  # five address failures, two processes
    assert_locked(login(first, "author", ATTACKER))


def test_a_success_through_one_process_clears_the_counter_for_another(
    make: t.Callable[..., tuple[Application, Api]],
) -> None:
    _, first = make()
    _, second = make()
    fail(first, 2, "editor", ATTACKER)
    assert_ok(login(second, "editor", OFFICE))
    fail(first, 2, "editor", ATTACKER)
    assert_ok(login(first, "editor", ELSEWHERE))


def test_each_lock_is_logged_with_the_login_the_address_and_its_end(
    make: t.Callable[..., tuple[Application, Api]], caplog: pytest.LogCaptureFixture
) -> None:
    _, api = make(login_max_failures_per_address=3)
    end = (START + dt.timedelta(seconds=LOCKOUT)).replace(tzinfo=None).isoformat()
    with caplog.at_level(logging.WARNING, logger="calendar_rest"):
        fail(api, 2, "Editor", ATTACKER)
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
        fail(api, 1, "Editor", ATTACKER)  # locks the login and the address at once
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2, warnings
    login_lock = [message for message in warnings if "failed logins: login" in message]
    assert len(login_lock) == 1, warnings
    assert ATTACKER in login_lock[0] and end in login_lock[0]
    assert all(ATTACKER in message and end in message for message in warnings)
    assert all(
        r.name.startswith("calendar_rest") for r in caplog.records if r.levelno == logging.WARNING
    )


def test_no_secret_is_stored(guarded: Api, app: Application) -> None:
    secret = "s3cret-guess-" + "x" * 12
    guess(guarded, "editor", ATTACKER, secret=secret)
    assert_ok(login(guarded, "editor", OFFICE))
    rows = throttle_rows(app)
    assert rows
    for row in rows:
        assert secret not in row.key
        assert guarded.passwords["editor"] not in row.key


# -- E6: operation, settings -----------------------------------------------------------


def test_users_unlock_clears_a_logins_lock_and_counter_at_once(
    make: t.Callable[..., tuple[Application, Api]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LANGUAGE", "en")
    app, api = make(login_max_failures_per_address=100)
    fail(api, 3, "editor", ATTACKER)
    fail(api, 2, "author", ATTACKER)
    assert_locked(login(api, "editor", ELSEWHERE))
    assert unlock(app, "Editor") == 0
    assert "Unlocked" in capsys.readouterr().out
    assert_ok(login(api, "editor", ATTACKER))  # no clock moved
    fail(api, 2, "editor", ATTACKER)  # the counter is cleared too
    assert_ok(login(api, "editor", ELSEWHERE))
    # the other login keeps its counter: one more failure locks it
    assert_refused(guess(api, "author", ATTACKER))
    assert_locked(login(api, "author", ELSEWHERE))
    # an unknown login's lock is cleared the same way
    fail(api, 3, "ghost", ATTACKER)
    assert_locked(guess(api, "ghost", ELSEWHERE))
    assert unlock(app, "ghost") == 0
    assert_refused(guess(api, "ghost", ELSEWHERE), "invalid_username")


def test_users_unlock_address_clears_an_addresss_lock_at_once(
    make: t.Callable[..., tuple[Application, Api]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LANGUAGE", "en")
    app, api = make(login_max_failures_per_address=3)
    for locked in (ATTACKER, ELSEWHERE):
        for name in ("ghost1", "ghost2", "ghost3"):
            guess(api, name, locked)
    assert_locked(login(api, "author", ATTACKER))
    assert unlock(app, "--address", ATTACKER) == 0
    assert "Unlocked" in capsys.readouterr().out
    assert_ok(login(api, "author", ATTACKER))
    assert_locked(login(api, "author", ELSEWHERE))  # only that address
    guess(api, "ghost4", ATTACKER)
    guess(api, "ghost5", ATTACKER)
    assert_ok(login(api, "author", ATTACKER))  # its counter restarted


def test_users_unlock_of_what_is_not_locked_says_so(
    make: t.Callable[..., tuple[Application, Api]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LANGUAGE", "en")
    app, api = make()
    assert unlock(app, "editor") == 0
    assert "no failed login to clear" in capsys.readouterr().out
    assert unlock(app, "--address", ATTACKER) == 0
    assert "no failed login to clear" in capsys.readouterr().out
    assert_ok(login(api, "editor", ATTACKER))


def test_users_unlock_needs_a_login_or_an_address_not_both(
    app: Application, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in ((), ("editor", "--address", ATTACKER)):
        assert unlock(app, *argv) == 2
        assert "usage:" in capsys.readouterr().err


def test_throttling_can_be_switched_off(
    make: t.Callable[..., tuple[Application, Api]], app: Application
) -> None:
    _, api = make(login_throttling=False)
    fail(api, 10, "editor", ATTACKER)
    fail(api, 10, "ghost", ATTACKER)
    for _ in range(3):
        assert_refused(attempt(api, UNDECODABLE, ATTACKER), "invalid_username")
    assert_ok(login(api, "editor", ATTACKER))
    assert throttle_rows(app) == []


def test_the_settings_and_their_defaults() -> None:
    settings = Settings.build(environ={})
    assert settings.login_throttling is True
    assert settings.login_max_failures_per_user == 5
    assert settings.login_max_failures_per_address == 20
    assert settings.login_failure_window == 900
    assert settings.login_lockout == 900


def test_the_settings_are_read_from_the_environment() -> None:
    settings = Settings.build(
        environ={
            "CALENDAR_REST_LOGIN_THROTTLING": "false",
            "CALENDAR_REST_LOGIN_MAX_FAILURES_PER_USER": "7",
            "CALENDAR_REST_LOGIN_MAX_FAILURES_PER_ADDRESS": "40",
            "CALENDAR_REST_LOGIN_FAILURE_WINDOW": "120",
            "CALENDAR_REST_LOGIN_LOCKOUT": "3600",
        }
    )
    assert settings.login_throttling is False
    assert settings.login_max_failures_per_user == 7
    assert settings.login_max_failures_per_address == 40
    assert settings.login_failure_window == 120
    assert settings.login_lockout == 3600
    # a keyword argument wins over the environment
    assert (
        Settings.build(
            environ={"CALENDAR_REST_LOGIN_LOCKOUT": "3600"}, login_lockout=60
        ).login_lockout
        == 60
    )


POSITIVE = (
    "login_max_failures_per_user",
    "login_max_failures_per_address",
    "login_failure_window",
    "login_lockout",
)


@pytest.mark.parametrize("name", POSITIVE)
@pytest.mark.parametrize("value", [0, -1])
def test_non_positive_limits_are_refused(name: str, value: int) -> None:
    with pytest.raises(ValueError, match=name):
        Settings.build(environ={}, **{name: value})
    with pytest.raises(ValueError, match=name):
        Settings.build(environ={f"CALENDAR_REST_{name.upper()}": str(value)})


@pytest.mark.parametrize(
    ("variable", "text"),
    [
        ("CALENDAR_REST_LOGIN_MAX_FAILURES_PER_USER", "five"),
        ("CALENDAR_REST_LOGIN_LOCKOUT", "15m"),
        ("CALENDAR_REST_LOGIN_THROTTLING", "maybe"),
    ],
)
def test_malformed_environment_values_are_refused_naming_the_variable(
    variable: str, text: str
) -> None:
    with pytest.raises(ValueError, match=variable):
        Settings.build(environ={variable: text})


def test_an_app_takes_its_limits_from_the_environment(
    sibling_app: Build, api: Api, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CALENDAR_REST_LOGIN_MAX_FAILURES_PER_USER", "2")
    monkeypatch.setenv("CALENDAR_REST_LOGIN_LOCKOUT", "42")
    client = api_for(sibling_app(clock=clock), api)
    fail(client, 2, "editor", ATTACKER)
    assert_locked(login(client, "editor", ELSEWHERE), 42)
