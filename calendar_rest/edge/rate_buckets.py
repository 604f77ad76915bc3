"""Token buckets, in this process's memory or shared through Redis.

A bucket holds up to its quota of tokens and refills at quota per window, so a client
may spend its whole limit at once and then one request per window/quota. A request
takes one token from each bucket it is counted in, all or none: refused by one, it
spends nothing. A bucket left alone for a window is full, which is why one can be
forgotten then (memory) or expire (Redis) without changing any count.

Redis (``rate_limit_redis_url``) keeps exact counts across processes and machines:
one Lua script reads, refills and takes the tokens of every bucket of a request
atomically, on Redis's own clock. A Redis that does not answer within
:data:`REDIS_TIMEOUT` lets the request through (a limiter must never take the site
down), and says so in the log at most once a minute.
"""

from __future__ import annotations

import dataclasses
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


@dataclasses.dataclass(frozen=True)
class Bucket:
    """One bucket of one client: its key and its policy's quota per window."""

    key: str
    quota: int
    window: int

    @property
    def rate(self) -> float:
        """Tokens back per second."""
        return self.quota / self.window


@dataclasses.dataclass(frozen=True)
class Level:
    """A bucket's tokens after a request, as the ``RateLimit`` header tells them."""

    bucket: Bucket
    tokens: float

    @property
    def remaining(self) -> int:
        return max(0, math.floor(self.tokens))

    @property
    def reset(self) -> int:
        """Whole seconds until the bucket is full again."""
        return max(0, math.ceil((self.bucket.quota - self.tokens) / self.bucket.rate))

    @property
    def wait(self) -> int:
        """Whole seconds until the bucket holds a token again (at least 1)."""
        return max(1, math.ceil((1 - self.tokens) / self.bucket.rate))


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What a request's buckets said: admitted or not, and their levels (none when
    the shared store did not answer)."""

    admitted: bool
    levels: tuple[Level, ...]


class Buckets(t.Protocol):
    def take(self, buckets: t.Sequence[Bucket]) -> Outcome: ...


class MemoryBuckets:
    """This process's buckets, behind one lock; ``now`` reads monotonic seconds."""

    def __init__(self, now: t.Callable[[], float] = time.monotonic) -> None:
        self.now = now
        self.lock = threading.Lock()
        #: key: (tokens, when they were counted)
        self.states: dict[str, tuple[float, float]] = {}
        self.sweep_at = 4096

    def take(self, buckets: t.Sequence[Bucket]) -> Outcome:
        with self.lock:
            now = self.now()
            levels = tuple(Level(bucket, self.tokens(bucket, now)) for bucket in buckets)
            admitted = all(level.tokens >= 1 for level in levels)
            if admitted:
                levels = tuple(Level(level.bucket, level.tokens - 1) for level in levels)
            for level in levels:
                self.states[level.bucket.key] = (level.tokens, now)
            if len(self.states) > self.sweep_at:
                self.sweep(now, max(bucket.window for bucket in buckets))
            return Outcome(admitted, levels)

    def tokens(self, bucket: Bucket, now: float) -> float:
        state = self.states.get(bucket.key)
        if state is None:
            return float(bucket.quota)
        tokens, then = state
        return min(float(bucket.quota), tokens + max(0.0, now - then) * bucket.rate)

    def sweep(self, now: float, window: float) -> None:
        """Forget the buckets left alone for a window (full again: nothing is lost)."""
        self.states = {key: state for key, state in self.states.items() if now - state[1] < window}
        self.sweep_at = max(4096, 2 * len(self.states))


#: KEYS: the buckets; ARGV: quota and window (ms) of each. Returns 1 or 0 (admitted),
#: then each bucket's tokens as text (Lua numbers would reach Redis truncated).
TAKE_SCRIPT = """
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
  if level < 1 then admitted = 0 end
end
local result = {admitted}
for i, key in ipairs(KEYS) do
  if admitted == 1 then tokens[i] = tokens[i] - 1 end
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

    def take(self, buckets: t.Sequence[Bucket]) -> Outcome:
        arguments: list[int] = []
        for bucket in buckets:
            arguments += [bucket.quota, bucket.window * 1000]
        keys = [self.prefix + bucket.key for bucket in buckets]
        try:
            reply = self.script(keys=keys, args=arguments)
        except self.errors as exc:
            self.failed(exc)
            return Outcome(True, ())
        admitted, *tokens = reply
        levels = tuple(Level(bucket, float(n)) for bucket, n in zip(buckets, tokens, strict=True))
        return Outcome(bool(int(admitted)), levels)

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
