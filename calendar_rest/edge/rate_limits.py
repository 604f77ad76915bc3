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
A batch counts as many requests as it holds items (:meth:`RateLimits.admit_batch`).
"""

from __future__ import annotations

import hashlib
import typing as t

from ..errors import RestError
from ..settings import Settings
from ..telemetry.metrics import service_metrics
from .client_address import ClientAddresses
from .rate_buckets import Buckets, Levels, MemoryBuckets, Policy, RedisBuckets

if t.TYPE_CHECKING:  # pragma: no cover
    from _typeshed.wsgi import WSGIEnvironment

    from ..models import User

#: the environ key holding the ``RateLimit-Policy`` and ``RateLimit`` of a request
HEADERS_KEY = "calendar_rest.rate_limit_headers"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: verified credentials remembered per process; past it, the memory starts afresh
KNOWN_CALLERS = 10_000


class RateLimits:
    """The limits of one app: which buckets a request counts in, and its headers."""

    def __init__(
        self, settings: Settings, addresses: ClientAddresses, buckets: Buckets | None = None
    ) -> None:
        self.addresses = addresses
        window = settings.rate_limit_window
        shared = settings.rate_limit_redis_url
        share = 1 if shared else settings.worker_processes

        def policies(*limits: tuple[str, int]) -> tuple[Policy, ...]:
            """The policies of these limits that are on (this process's share)."""
            return tuple(
                Policy(name, process_share(limit, share), window) for name, limit in limits if limit
            )

        anonymous = ("anon", settings.rate_limit_anonymous)
        authenticated = ("user", settings.rate_limit_authenticated)
        #: what a request without verified credentials counts in, a user's read, its write
        self.anonymous = policies(anonymous)
        self.reads = policies(authenticated)
        self.writes = policies(authenticated, ("writes", settings.rate_limit_writes))
        if buckets is None:
            buckets = RedisBuckets(shared) if shared else MemoryBuckets()
        self.buckets = buckets
        #: digest of a verified ``Authorization`` header: (user ID, exempt)
        self.callers: dict[bytes, tuple[int, bool]] = {}

    def admit(self, environ: WSGIEnvironment) -> RestError | None:
        """Count the request; the 429 to answer when a bucket refuses it."""
        header = environ.get("HTTP_AUTHORIZATION")
        if not header:
            return self.take(environ, self.anonymous, self.addresses.of(environ))
        caller = self.callers.get(digest(header))
        if caller is None:
            return self.take(environ, self.anonymous, self.addresses.of(environ))
        user_id, exempt = caller
        if exempt:
            return None
        write = environ.get("REQUEST_METHOD") in WRITE_METHODS
        return self.take(environ, self.writes if write else self.reads, f"u{user_id}")

    def take(
        self, environ: WSGIEnvironment, policies: tuple[Policy, ...], client: str
    ) -> RestError | None:
        if not policies:
            return None
        admitted, levels = self.buckets.take(policies, client)
        if levels:
            environ[HEADERS_KEY] = headers(levels)
        if admitted:
            return None
        refused = [(policy, tokens) for policy, tokens in levels if tokens < 1]
        service_metrics().rate_limited.labels(refused[0][0].name).inc()
        wait = max(policy.wait(tokens) for policy, tokens in refused)
        return RestError("rest_too_many_requests", 429, headers={"Retry-After": str(wait)})

    def admit_batch(
        self, environ: WSGIEnvironment, user: User | None, items: int
    ) -> RestError | None:
        """Count a batch's items past the first (counted when the batch was admitted),
        all or none, where the caller's writes count: the 429 to answer when refused.

        A batch of more items than a bucket ever holds can never pass: it is refused
        as such (``rest_batch_over_rate_limit``, no ``Retry-After``: no wait helps).
        """
        if items < 2:
            return None
        if user is None:  # anonymous, or credentials that failed: the address's
            policies, client = self.anonymous, self.addresses.of(environ)
        elif user.rate_limit_exempt:
            return None
        else:
            policies, client = self.writes, f"u{user.id}"
        if not policies:
            return None
        smallest = min(policies, key=lambda policy: policy.quota)
        if items > smallest.quota:
            service_metrics().rate_limited.labels(smallest.name).inc()
            return RestError(
                "rest_batch_over_rate_limit",
                429,
                smallest.quota,
                data={"max_requests": smallest.quota},
            )
        admitted, levels = self.buckets.take(policies, client, items - 1)
        if levels:
            environ[HEADERS_KEY] = headers(levels)
        if admitted:
            return None
        refused = next(policy for policy, tokens in levels if tokens < items - 1)
        service_metrics().rate_limited.labels(refused.name).inc()
        # until every bucket holds the whole batch again: its admission's token too
        wait = max(policy.wait(tokens, items) for policy, tokens in levels)
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


def headers(levels: Levels) -> list[tuple[str, str]]:
    """``RateLimit-Policy`` and ``RateLimit`` of the buckets a request counted in."""
    if len(levels) == 1:
        policy, tokens = levels[0]
        return [("RateLimit-Policy", policy.item), ("RateLimit", policy.level_item(tokens))]
    return [
        ("RateLimit-Policy", ", ".join(policy.item for policy, _ in levels)),
        ("RateLimit", ", ".join(policy.level_item(tokens) for policy, tokens in levels)),
    ]


def rate_limits_for(settings: Settings, addresses: ClientAddresses) -> RateLimits | None:
    """The app's rate limits; None while every limit is off (no request pays)."""
    return RateLimits(settings, addresses) if settings.rate_limited else None


def process_share(limit: int, processes: int) -> int:
    """One process's part of ``limit`` (a limit on never drops to 0)."""
    return max(1, limit // processes)


def digest(header: str) -> bytes:
    """What stands for credentials in memory (never the secret itself)."""
    return hashlib.blake2b(header.encode("utf-8", "surrogateescape"), digest_size=16).digest()
