"""Rate limits per client, announced with the IETF headers (``anchors.md`` §3).

Three policies, each off at 0: ``anon`` counts requests without verified credentials
per client address (``client_address.py``), ``user`` counts an authenticated caller's
requests per user, administrators included, and ``writes`` counts their writes on
top. A request is counted before any database work, by :meth:`RateLimits.admit` in
the WSGI callable, so anonymous cache hits count too and a refused request costs no
query. Who a request's ``Authorization`` names is only known after authentication,
which reads the database; so the credentials a process has verified are remembered
(by digest) with their user: the next request with the same header counts for that
user at once. Credentials not verified yet count for their address, which also
bounds what a stream of made-up credentials costs. A user marked exempt (``users
set NAME --rate-limit-exempt``) is not counted.

Every answer a policy counted carries ``RateLimit-Policy`` (``"anon";q=600;w=60``)
and ``RateLimit`` (``"anon";r=597;t=42``, ``t`` being the seconds until the whole
quota is back), per draft-ietf-httpapi-ratelimit-headers. Past a limit the answer is
429 ``rest_too_many_requests`` with ``Retry-After``. Without Redis each process
counts for itself and enforces its share of every limit (limit / ``worker_processes``).
"""

from __future__ import annotations

import hashlib
import typing as t

from ..errors import RestError
from ..settings import Settings
from .client_address import ClientAddresses
from .rate_buckets import Bucket, Buckets, Level, MemoryBuckets, RedisBuckets

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import WSGIEnvironment

    from ..models import User

#: the environ key holding the levels of the buckets a request was counted in
LEVELS_KEY = "calendar_rest.rate_limit_levels"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: verified credentials remembered per process; past it, the memory starts afresh
KNOWN_CALLERS = 10_000
Policy = tuple[str, int]  # name, quota per window (this process's share without Redis)


class RateLimits:
    """The limits of one app: which buckets a request counts in, and its headers."""

    def __init__(
        self, settings: Settings, addresses: ClientAddresses, buckets: Buckets | None = None
    ) -> None:
        self.addresses = addresses
        self.window = settings.rate_limit_window
        shared = settings.rate_limit_redis_url
        share = 1 if shared else settings.worker_processes
        self.anonymous = ("anon", process_share(settings.rate_limit_anonymous, share))
        self.authenticated = ("user", process_share(settings.rate_limit_authenticated, share))
        self.writes = ("writes", process_share(settings.rate_limit_writes, share))
        if buckets is None:
            buckets = RedisBuckets(shared) if shared else MemoryBuckets()
        self.buckets = buckets
        #: digest of a verified ``Authorization`` header: (user ID, exempt)
        self.callers: dict[bytes, tuple[int, bool]] = {}

    def admit(self, environ: WSGIEnvironment) -> RestError | None:
        """Count the request; the 429 to answer when a bucket refuses it."""
        header = environ.get("HTTP_AUTHORIZATION")
        caller = self.callers.get(digest(header)) if header else None
        if caller is None:
            return self.take(environ, [self.bucket(self.anonymous, self.addresses.of(environ))])
        user_id, exempt = caller
        if exempt:
            return None
        policies = [self.authenticated]
        if environ.get("REQUEST_METHOD") in WRITE_METHODS:
            policies.append(self.writes)
        return self.take(environ, [self.bucket(policy, f"u{user_id}") for policy in policies])

    def bucket(self, policy: Policy, client: str) -> Bucket | None:
        name, quota = policy
        return Bucket(f"{name}:{client}", quota, self.window) if quota else None

    def take(self, environ: WSGIEnvironment, buckets: list[Bucket | None]) -> RestError | None:
        counted = [bucket for bucket in buckets if bucket is not None]
        if not counted:
            return None
        outcome = self.buckets.take(counted)
        environ[LEVELS_KEY] = outcome.levels
        if outcome.admitted:
            return None
        wait = max(level.wait for level in outcome.levels if level.tokens < 1)
        return RestError("rest_too_many_requests", 429, headers={"Retry-After": str(wait)})

    def verified(self, header: str, user: User | None) -> None:
        """Remember who ``header`` names (None: nobody, it failed), for the next request."""
        key = digest(header)
        if user is None:
            self.callers.pop(key, None)
            return
        if len(self.callers) >= KNOWN_CALLERS and key not in self.callers:
            self.callers = {}
        self.callers[key] = (user.id, bool(user.rate_limit_exempt))

    @staticmethod
    def headers(environ: WSGIEnvironment) -> list[tuple[str, str]]:
        """``RateLimit-Policy`` and ``RateLimit`` of the buckets the request counted in."""
        levels: tuple[Level, ...] = environ.get(LEVELS_KEY, ())
        if not levels:
            return []
        return [
            ("RateLimit-Policy", ", ".join(policy_item(level) for level in levels)),
            ("RateLimit", ", ".join(level_item(level) for level in levels)),
        ]


def rate_limits_for(settings: Settings, addresses: ClientAddresses) -> RateLimits | None:
    """The app's rate limits; None while every limit is off (no request pays)."""
    return RateLimits(settings, addresses) if settings.rate_limited else None


def process_share(limit: int, processes: int) -> int:
    """One process's part of ``limit`` (0 stays off; a limit on never drops to 0)."""
    return max(1, limit // processes) if limit else 0


def digest(header: str) -> bytes:
    """What stands for credentials in memory (never the secret itself)."""
    return hashlib.blake2b(header.encode("utf-8", "surrogateescape"), digest_size=16).digest()


def policy_name(level: Level) -> str:
    return level.bucket.key.partition(":")[0]


def policy_item(level: Level) -> str:
    return f'"{policy_name(level)}";q={level.bucket.quota};w={level.bucket.window}'


def level_item(level: Level) -> str:
    return f'"{policy_name(level)}";r={level.remaining};t={level.reset}'
