"""HTTP Basic authentication with WordPress-style application passwords, and the
failed-login throttle that guards it (``security.md`` E).

Failures are counted per login (any case; unknown logins count alike) and per client
address (``REMOTE_ADDR``, or what a trusted proxy forwarded: ``client_address.py``;
never a header an untrusted peer wrote). Past a limit within the window, the login
or the address is locked: its attempts are answered 429 with ``Retry-After``,
without verifying the credentials. An address that recently
authenticated as a login is exempt from that login's lock (running clients keep
working while someone else guesses). Counters live in the database (``LoginThrottle``,
in a sibling file for SQLite: ``db.login_store``), so every process and thread shares
them.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import datetime as dt
import logging
import math

import peewee
from werkzeug.datastructures import Authorization

from ..clock import Clock, utc_now
from ..db import login_store, replayed
from ..errors import RestError
from ..models import LoginThrottle, User
from ..queries.lookups.login_throttle import throttle_states
from ..queries.lookups.users import stored_passwords, user_by_login
from ..repository.login_throttle import (
    Limit,
    clear_failures,
    purge_expired,
    record_failure,
    record_success,
)
from ..settings import Settings
from ..telemetry.metrics import service_metrics
from ..wordpress.passwords import hash_secret, matches, new_salt

log = logging.getLogger("calendar_rest")
#: compared with the secret of an unknown login, so that its failure costs the same
DUMMY_SALT = new_salt()
DUMMY_HASH = hash_secret("", DUMMY_SALT)


@dataclasses.dataclass(frozen=True)
class Keys:
    """The throttle keys of one attempt."""

    login: str
    address: str
    success: str

    @property
    def all(self) -> list[str]:
        return [self.login, self.address, self.success]

    @classmethod
    def of(cls, login: str, address: str) -> Keys:
        success = f"success:{login.lower()}|{address}"
        return cls(login_key(login), address_key(address), success)


def login_key(login: str) -> str:
    """The throttle key of a login (any case)."""
    return f"login:{login.lower()}"


def address_key(address: str) -> str:
    """The throttle key of a client address."""
    return f"address:{address}"


class Authenticator:
    """Who a request's ``Authorization`` names, under the failed-login throttle."""

    def __init__(self, database: peewee.Database, settings: Settings, clock: Clock) -> None:
        #: where the counters live, apart from the records' write lock on SQLite
        self.store = login_store(database)
        self.clock = clock
        self.enabled = settings.login_throttling
        window = dt.timedelta(seconds=settings.login_failure_window)
        lockout = dt.timedelta(seconds=settings.login_lockout)
        self.window = window
        self.user_limit = Limit(settings.login_max_failures_per_user, window, lockout)
        self.address_limit = Limit(settings.login_max_failures_per_address, window, lockout)

    def authenticate(self, header: str | None, address: str) -> User | None:
        """The user the header names; None without Basic credentials.

        :raises RestError: 401 ``invalid_username``/``incorrect_password``; 429
            ``rest_too_many_login_attempts`` while the login or the address is locked
            (malformed credentials from a locked address included).
        """
        if not header:
            return None
        now = utc_now(self.clock)
        try:
            credentials = parse_basic(header)
        except RestError:
            keys = Keys.of("", address)
            self.refuse_if_locked(keys, self.states(keys, now), now)
            self.failed(keys)
            raise
        if credentials is None:
            return None
        login, secret = credentials
        keys = Keys.of(login, address)
        states = self.states(keys, now)
        self.refuse_if_locked(keys, states, now)
        try:
            user = verify(login, secret)
        except RestError:
            self.failed(keys)
            raise
        self.succeeded(keys, states, now)
        return user

    def states(self, keys: Keys, now: dt.datetime) -> dict[str, LoginThrottle]:
        if not self.enabled:
            return {}
        return throttle_states([keys.login, keys.address, keys.success], now)

    @staticmethod
    def refuse_if_locked(keys: Keys, states: dict[str, LoginThrottle], now: dt.datetime) -> None:
        """:raises RestError: 429 with ``Retry-After`` while the attempt is locked."""
        wait = _locked_for(states, keys, now)
        if wait:
            raise RestError("rest_too_many_login_attempts", 429, headers={"Retry-After": str(wait)})

    def failed(self, keys: Keys) -> None:
        """Count a failure against the login and the address; log any lock."""
        if not self.enabled:
            return
        now = utc_now(self.clock)
        locks: list[tuple[str, dt.datetime]] = []

        def count() -> None:
            locks.clear()
            purge_expired(now)
            for key, limit in ((keys.login, self.user_limit), (keys.address, self.address_limit)):
                locked_until = record_failure(key, limit, now)
                if locked_until is not None:
                    locks.append((key, locked_until))

        if not replayed(self.store, count):
            log.warning("a failed login from %s could not be counted", keys.address)
        for key, locked_until in locks:
            subject = "login" if key == keys.login else "address"
            service_metrics().login_locks.labels(subject).inc()
            log.warning(
                "too many failed logins: %s %r (login %r, address %s) locked until %sZ",
                subject,
                key.partition(":")[2],
                keys.login.partition(":")[2],
                keys.address.partition(":")[2],
                locked_until.isoformat(timespec="seconds"),
            )

    def address_locked_for(self, address: str) -> int:
        """Whole seconds ``address`` stays locked by its failures (0: not locked): what
        a page's password form asks before it compares a password."""
        if not self.enabled:
            return 0
        now = utc_now(self.clock)
        keys = Keys("", address_key(address), "")
        return _locked_for(throttle_states([keys.address], now), keys, now)

    def address_failed(self, address: str) -> None:
        """Count a wrong page password against ``address`` (no login is named)."""
        if not self.enabled:
            return
        now = utc_now(self.clock)

        def count() -> None:
            purge_expired(now)
            if record_failure(address_key(address), self.address_limit, now) is not None:
                log.warning("too many wrong page passwords: address %s locked", address)

        if not replayed(self.store, count):
            log.warning("a wrong page password from %s could not be counted", address)

    def succeeded(self, keys: Keys, states: dict[str, LoginThrottle], now: dt.datetime) -> None:
        """Clear the login's failure count (not its lock) and remember the address's
        success: written at most every quarter window, not on every request, and
        best effort."""
        if not self.enabled:
            return
        login_state, success = states.get(keys.login), states.get(keys.success)
        last = success.last_success if success is not None else None
        fresh = last is not None and now - last < self.window / 4
        if (login_state is None or not login_state.failures) and fresh:
            return

        def remember() -> None:
            if login_state is not None and login_state.failures:
                clear_failures(keys.login)
            record_success(keys.success, now, self.window)

        try:
            if replayed(self.store, remember):
                return
        except peewee.DatabaseError:
            pass  # the caller is authenticated whatever became of this note
        log.warning("a successful login from %s could not be recorded", keys.address)


def _locked_for(states: dict[str, LoginThrottle], keys: Keys, now: dt.datetime) -> int:
    """Whole seconds until the lock of this attempt ends (0: not locked); the login's
    lock does not apply to an address that recently authenticated as it."""
    ends = []
    address = states.get(keys.address)
    if address is not None and address.locked_until is not None:
        ends.append(address.locked_until)
    login, success = states.get(keys.login), states.get(keys.success)
    exempt = success is not None and success.last_success is not None
    if login is not None and login.locked_until is not None and not exempt:
        ends.append(login.locked_until)
    remaining = max((end - now).total_seconds() for end in ends) if ends else 0
    return max(1, math.ceil(remaining)) if remaining > 0 else 0


def verify(login: str, secret: str) -> User:
    """The user whose application password ``secret`` is.

    :raises RestError: 401 ``invalid_username`` or ``incorrect_password``; an unknown
        login costs a hash too, so that timing does not tell which logins exist.
    """
    user = user_by_login(login)
    secret = secret.replace(" ", "")  # WordPress shows app passwords in groups of four
    if user is None:
        matches(secret, DUMMY_SALT, DUMMY_HASH)
        raise RestError("invalid_username", 401)
    matched = False
    for salt, stored_hash in stored_passwords(user):
        matched |= matches(secret, salt, stored_hash)
    if not matched:
        raise RestError("incorrect_password", 401)
    return user


def parse_basic(header: str) -> tuple[str, str] | None:
    """(login, secret) from a Basic header; None for other schemes.

    :raises RestError: 401 when a Basic header cannot be decoded.
    """
    scheme, _, payload = header.partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(payload.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise RestError("invalid_username", 401) from None
    login, sep, secret = decoded.partition(":")
    if "\x00" in login:
        raise RestError("invalid_username", 401)
    if not sep:
        raise RestError("incorrect_password", 401)
    return login, secret


def basic_header(login: str, secret: str) -> str:
    """The ``Authorization`` value a client sends (used by tests and examples)."""
    auth = Authorization("basic", {"username": login, "password": secret})
    return auth.to_header()
