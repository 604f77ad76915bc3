"""Token buckets, in this process's memory or shared through Redis.

A bucket holds up to its quota of tokens and refills at quota per window, so a client
may spend its whole limit at once and then one request per window/quota. A request
takes one token from each bucket it is counted in, all or none: refused by one, it
spends nothing. A batch takes as many at once as it holds items (``count``), all or
none too (``batch.py``); one token keeps its short path. A bucket left alone for a
window is full, which is why one can be forgotten then (memory) or expire (Redis)
without changing any count.

Redis (``rate_limit_redis_url``) keeps exact counts across processes and machines:
one Lua script reads, refills and takes the tokens of every bucket of a request (or
of a batch) atomically, on Redis's own clock. A Redis that does not answer within
:data:`REDIS_TIMEOUT` lets the request through (a limiter must never take the site
down), and says so in the log at most once a minute.
"""

from __future__ import annotations

import logging
import math
import threading
import time
import typing as t
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

log = logging.getLogger("calendar_rest")
#: seconds Redis has to connect and to answer, before the request goes through
REDIS_TIMEOUT = 0.05
#: seconds between two log lines about an unreachable Redis
FAILURE_LOG_SECONDS = 60.0
DEFAULT_PREFIX = "calendar_rest:rate:"


class Policy:
    """One limit: its name in the headers, its quota per window (seconds), and its
    ``RateLimit-Policy`` item, made once."""

    __slots__ = (
        "name",
        "quota",
        "window",
        "rate",
        "item",
        "prefix",
        "capacity",
        "per_token",
        "left",
    )

    def __init__(self, name: str, quota: int, window: int) -> None:
        self.name = name
        self.quota = quota
        self.window = window
        #: the start of its buckets' keys (the client follows)
        self.prefix = f"{name}:"
        #: the tokens of a full bucket
        self.capacity = float(quota)
        #: tokens back per second, and seconds per token
        self.rate = quota / window
        self.per_token = window / quota
        self.item = f'"{name}";q={quota};w={window}'
        self.left = f'"{name}";r='

    def level_item(self, tokens: float) -> str:
        """The ``RateLimit`` item of a bucket holding ``tokens`` (never below 0): what
        is left, and the whole seconds until it is full again."""
        return f"{self.left}{int(tokens)};t={math.ceil((self.capacity - tokens) * self.per_token)}"

    def wait(self, tokens: float, count: int = 1) -> int:
        """Whole seconds until a bucket holding ``tokens`` holds ``count`` again (at
        least 1)."""
        return max(1, math.ceil((count - tokens) / self.rate))


#: a request's buckets after it: each policy with the tokens its bucket holds
Levels = tuple[tuple[Policy, float], ...]


class Buckets(t.Protocol):
    def take(
        self, policies: t.Sequence[Policy], client: str, count: int = 1
    ) -> tuple[bool, Levels]:
        """``count`` tokens from ``client``'s bucket of every policy, or none: whether
        the request is admitted, and the levels (none when a shared store did not
        answer)."""


class MemoryBuckets:
    """This process's buckets, behind one lock; ``now`` reads monotonic seconds."""

    def __init__(self, now: t.Callable[[], float] = time.monotonic) -> None:
        self.now = now
        self.lock = threading.Lock()
        #: key: (tokens, when they were counted, the policy's window)
        self.states: dict[str, tuple[float, float, int]] = {}
        self.sweep_at = 4096

    def take(
        self, policies: t.Sequence[Policy], client: str, count: int = 1
    ) -> tuple[bool, Levels]:
        if len(policies) == 1:  # the common case, kept short: it runs on every request
            return self.take_one(policies[0], client, count)
        with self.lock:
            now = self.now()
            keys = [policy.prefix + client for policy in policies]
            levels = [
                self.tokens(policy, key, now) for policy, key in zip(policies, keys, strict=True)
            ]
            admitted = min(levels) >= count
            spent = count if admitted else 0
            for policy, key, tokens in zip(policies, keys, levels, strict=True):
                self.states[key] = (tokens - spent, now, policy.window)
            self.sweep_if_due(now)
        pairs = zip(policies, levels, strict=True)
        return admitted, tuple((policy, tokens - spent) for policy, tokens in pairs)

    def take_one(self, policy: Policy, client: str, count: int) -> tuple[bool, Levels]:
        """:meth:`take` for one policy, inlined: it runs on every request."""
        key = policy.prefix + client
        states = self.states
        with self.lock:
            now = self.now()
            state = states.get(key)
            if state is None:
                tokens = policy.capacity
            else:
                tokens = min(policy.capacity, state[0] + (now - state[1]) * policy.rate)
            admitted = tokens >= count
            if admitted:
                tokens -= count
            states[key] = (tokens, now, policy.window)
            if len(states) > self.sweep_at:
                self.sweep(now)
        return admitted, ((policy, tokens),)

    def tokens(self, policy: Policy, key: str, now: float) -> float:
        state = self.states.get(key)
        if state is None:
            return policy.capacity
        return min(policy.capacity, state[0] + (now - state[1]) * policy.rate)

    def sweep_if_due(self, now: float) -> None:
        if len(self.states) > self.sweep_at:
            self.sweep(now)

    def sweep(self, now: float) -> None:
        """Forget the buckets left alone for their window (full again: nothing is lost)."""
        self.states = {
            key: state for key, state in self.states.items() if now - state[1] < state[2]
        }
        self.sweep_at = max(4096, 2 * len(self.states))


#: KEYS: the buckets; ARGV: quota and window (ms) of each, then the tokens to take
#: when not 1 (a batch's). Returns 1 or 0 (admitted), then each bucket's tokens as
#: text (Lua numbers would reach Redis truncated).
TAKE_SCRIPT = """
local count = tonumber(ARGV[2 * #KEYS + 1]) or 1
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local tokens = {}
local admitted = 1
for i, key in ipairs(KEYS) do
  local quota = tonumber(ARGV[2 * i - 1])
  local window = tonumber(ARGV[2 * i])
  local state = redis.call('HMGET', key, 'n', 't')
  local level = quota
  if state[1] then
    local elapsed = math.max(0, now - tonumber(state[2]))
    level = math.min(quota, tonumber(state[1]) + elapsed * quota / window)
  end
  tokens[i] = level
  if level < count then admitted = 0 end
end
local result = {admitted}
for i, key in ipairs(KEYS) do
  if admitted == 1 then tokens[i] = tokens[i] - count end
  redis.call('HSET', key, 'n', tostring(tokens[i]), 't', now)
  redis.call('PEXPIRE', key, tonumber(ARGV[2 * i]))
  result[i + 1] = tostring(tokens[i])
end
return result
"""


class RedisBuckets:
    """Buckets in Redis, shared by every process and machine that uses the same URL.

    ``url`` may end in ``?prefix=...``: the start of every key (sites, or test runs,
    sharing one Redis keep apart).
    """

    def __init__(self, url: str, timeout: float = REDIS_TIMEOUT) -> None:
        import redis  # the optional ``redis`` extra, needed only with a Redis URL
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        url, self.prefix = split_prefix(url)
        self.errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        self.client = redis.Redis.from_url(  # one try: an answer late is no answer
            url, socket_timeout=timeout, socket_connect_timeout=timeout, retry=Retry(NoBackoff(), 0)
        )
        self.script = self.client.register_script(TAKE_SCRIPT)
        self.logged_at = -math.inf

    def take(
        self, policies: t.Sequence[Policy], client: str, count: int = 1
    ) -> tuple[bool, Levels]:
        arguments: list[int] = []
        for policy in policies:
            arguments += [policy.quota, policy.window * 1000]
        if count != 1:
            arguments.append(count)
        keys = [self.prefix + policy.prefix + client for policy in policies]
        try:
            reply = self.script(keys=keys, args=arguments)
        except self.errors as exc:
            self.failed(exc)
            return True, ()
        admitted, *tokens = reply
        levels = tuple((policy, float(n)) for policy, n in zip(policies, tokens, strict=True))
        return bool(int(admitted)), levels

    def failed(self, exc: BaseException) -> None:
        """Log an unanswered Redis, at most once per :data:`FAILURE_LOG_SECONDS`."""
        now = time.monotonic()
        if now - self.logged_at >= FAILURE_LOG_SECONDS:
            self.logged_at = now
            log.warning("rate limits: Redis did not answer, requests pass unlimited (%s)", exc)


def split_prefix(url: str) -> tuple[str, str]:
    """The Redis URL without its ``prefix`` query parameter, and the key prefix."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    prefix = next((value for name, value in query if name == "prefix"), DEFAULT_PREFIX)
    kept = urlencode([(name, value) for name, value in query if name != "prefix"])
    return urlunsplit(parts._replace(query=kept)), prefix
