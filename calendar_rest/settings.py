"""Run-time settings of one application instance.

Everything tunable lives in one frozen dataclass built by ``create_app``: a keyword
argument wins, then the environment variable ``CALENDAR_REST_<NAME>`` (integers in
decimal, booleans ``true``/``false``, ``1``/``0``, ``yes``/``no``, ``on``/``off``),
then the default. Resources receive their configuration explicitly instead of reading
globals or the environment; an invalid value fails at start-up, naming the setting.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import ipaddress
import os
import typing as t
from urllib.parse import urlsplit

from .dates import DateParseError, resolve_timezone

ENV_PREFIX = "CALENDAR_REST_"
DATABASE_URL_ENV = "CALENDAR_REST_DATABASE_URL"
DEFAULT_DATABASE_URL = "sqlite:///calendar.db"
NAMESPACE = "calendar/events/v1"
LANGUAGES = ("en", "fr")
DEFAULT_LANGUAGE = "en"
TRUE_WORDS = frozenset({"true", "1", "yes", "on"})
FALSE_WORDS = frozenset({"false", "0", "no", "off"})
#: the views ``site_default_view`` may name
SITE_VIEWS = ("list", "month", "day")


@dataclasses.dataclass(frozen=True)
class Settings:
    """Configuration of one app; docs/configuration.md says what each knob does."""

    database_url: str = DEFAULT_DATABASE_URL
    #: Site time zone: an IANA name or a ``UTC+N`` offset string (WordPress style).
    timezone: str = "UTC"
    #: Public site URL used in ``url``/``rest_url`` fields; None means "the request's
    #: own scheme, host and mount point".
    site_url: str | None = None
    default_per_page: int = 10
    max_per_page: int = 50
    #: Largest accepted request body, in bytes (larger bodies get a 413).
    max_body_bytes: int = 1024 * 1024
    default_currency_symbol: str = "$"
    #: ISO 4217 code used in JSON-LD offers
    default_currency_code: str = "USD"
    #: Geolocation filters are built in (TEC needs Pro for them) and can be switched off.
    geolocation: bool = True
    geofence_radius: float = 25.0
    geofence_unit: str = "miles"
    #: responses kept by the read cache (0 disables it); any write invalidates them all
    cache_entries: int = 2048
    #: list totals kept per filter until the next write (0: count every time)
    count_cache_entries: int = 1024
    #: reads (GET, HEAD, OPTIONS) one process serves at once, the others queue; 0: as
    #: many as the server's threads; -1 (default): 1 on SQLite, whose reads are pure
    #: CPU, where threads contending for Python's GIL slow every request down, else 0
    concurrent_reads: int = -1
    #: failed-login throttling (per login and per client address), and its limits
    login_throttling: bool = True
    login_max_failures_per_user: int = 5
    login_max_failures_per_address: int = 20
    #: seconds over which failures are counted
    login_failure_window: int = 900
    #: seconds a lock lasts (doubled for a repeated lock within a day, at most 86,400)
    login_lockout: int = 900
    #: origins (``scheme://host[:port]``) whose pages may send credentials and write;
    #: every origin may read what anonymous visitors read (see ``cors.py``)
    cors_origins: tuple[str, ...] = ()
    #: days a sync token stays valid: compaction only drops older change entries
    sync_retention_days: int = 30
    #: webhooks (``sync.md`` §4, §5): accept targets on loopback and private networks
    webhook_allow_private: bool = False
    #: seconds an endpoint has to answer one delivery attempt (1 to 30)
    webhook_timeout: int = 15
    #: parallel delivery attempts of one worker process
    webhook_concurrency: int = 4
    #: recurring series (calendar.md §4.6): days ahead whose occurrences exist as rows
    recurrence_horizon_days: int = 730
    #: the most occurrences one write may materialise for one series
    recurrence_max_occurrences: int = 2000
    #: iCalendar feeds (calendar.md §1.2, §3.1): the most events or series one feed holds
    feed_max_events: int = 5000
    #: ``REFRESH-INTERVAL`` and ``X-PUBLISHED-TTL`` of the feeds, in minutes
    feed_refresh_minutes: int = 60
    #: the feeds' ``X-WR-CALNAME``; None: "Events" (translated) – the site's host
    calendar_name: str | None = None
    #: PostgreSQL streaming replicas that serve reads (``replicas.py``); env:
    #: comma-separated URLs; empty: every request runs on ``database_url``
    read_database_urls: tuple[str, ...] = ()
    #: seconds a replica may lag behind the primary before reads skip it
    read_replica_max_lag_seconds: float = 5.0
    #: connections one ``serve`` process holds open at once (idle ones included); past
    #: it, new connections wait in the listen queue until one closes
    max_connections: int = 1000
    #: seconds a connection has to send a complete request head: from its opening while
    #: it has sent nothing, else from the head's first byte (slow clients are closed)
    header_timeout: float = 10.0
    #: the public pages of ``site.md`` (false: every page route is a 404, API only)
    site_pages: bool = True
    #: the view ``/events/`` shows: ``list``, ``month`` or ``day``
    site_default_view: str = "list"
    #: the first day of a week in the month grid: 0 Sunday … 6 Saturday (WordPress's)
    start_of_week: int = 1
    #: events a day of the month grid lists before its "+ N more" link
    site_month_events_per_day: int = 3
    #: a directory whose templates replace the site's own, file by file
    site_templates_dir: str | None = None
    #: the most requests one ``POST /batch/v1`` may hold (WordPress's default, 25)
    batch_max_requests: int = 25
    #: rate limits (``docs/rate-limits.md``), requests per ``rate_limit_window``; 0: off.
    #: Anonymous requests count per client address, authenticated ones per user
    rate_limit_anonymous: int = 0
    rate_limit_authenticated: int = 0
    #: writes per window per user, counted on top of ``rate_limit_authenticated``
    rate_limit_writes: int = 0
    #: seconds in which a whole limit may be spent (a bucket refills over it)
    rate_limit_window: int = 60
    #: ``redis://host:port/db[?prefix=...]``: every process and machine shares exact
    #: counts; None: each process counts for itself, its share of each limit
    rate_limit_redis_url: str | None = None
    #: the processes serving this app, each counting its share (``serve --workers``)
    worker_processes: int = 1
    #: proxies (addresses or CIDRs) whose ``X-Forwarded-For``/``Forwarded`` name the
    #: client; env: comma-separated; empty: the client is ``REMOTE_ADDR``
    trusted_proxies: tuple[str, ...] = ()
    #: seconds ``/-/ready`` waits for the primary before it answers 503
    ready_timeout: float = 2.0
    #: record the metrics of ``/-/metrics`` (false: nothing recorded, the route a 404)
    metrics: bool = True
    #: addresses or CIDRs that may read ``/-/metrics``; env: comma-separated
    metrics_allow: tuple[str, ...] = ("127.0.0.0/8", "::1")
    #: ``Authorization: Bearer <metrics_token>`` reads ``/-/metrics`` from anywhere
    metrics_token: str | None = None
    #: one access line per request on the ``calendar_rest.access`` logger
    access_log: bool = True

    @classmethod
    def build(
        cls,
        database_url: str | None = None,
        environ: t.Mapping[str, str] | None = None,
        **overrides: object,
    ) -> Settings:
        """Resolve every setting: ``overrides``, then ``CALENDAR_REST_<NAME>`` in
        ``environ`` (default ``os.environ``), then the default; the database URL comes
        from ``database_url`` first."""
        env = os.environ if environ is None else environ
        known = {field.name: field for field in dataclasses.fields(cls)}
        unknown = sorted(set(overrides) - set(known))
        if unknown:
            raise TypeError(f"unknown setting(s): {', '.join(unknown)}")
        values: dict[str, object] = {}
        for name, field in known.items():
            variable = ENV_PREFIX + name.upper()
            if name in overrides:
                values[name] = overrides[name]
            elif variable in env and env[variable] != "":
                values[name] = _from_environment(variable, env[variable], str(field.type))
        values["database_url"] = database_url or values.get("database_url") or DEFAULT_DATABASE_URL
        origins = values.get("cors_origins", ())
        if isinstance(origins, str):
            origins = origins.split(",")
        values["cors_origins"] = tuple(
            normalize_origin(origin)
            for origin in t.cast(t.Iterable[str], origins)
            if origin.strip()
        )
        replicas = values.get("read_database_urls", ())
        if isinstance(replicas, str):
            replicas = replicas.split(",")
        values["read_database_urls"] = tuple(
            url.strip() for url in t.cast(t.Iterable[str], replicas) if url.strip()
        )
        for name in ("trusted_proxies", "metrics_allow"):
            if name not in values:
                continue
            entries = values[name]
            if isinstance(entries, str):
                entries = entries.split(",")
            values[name] = tuple(
                entry.strip() for entry in t.cast(t.Iterable[str], entries) if entry.strip()
            )
        settings = cls(**values)  # type: ignore[arg-type]
        settings.validate()
        return settings

    def validate(self) -> None:
        """Fail fast on settings that would only break later, mid-request."""
        if self.default_per_page < 1 or self.max_per_page < 1:
            raise ValueError("per_page settings must be positive")
        if self.geofence_unit not in ("miles", "kms"):
            raise ValueError("geofence_unit must be 'miles' or 'kms'")
        positive = (
            "max_body_bytes",
            "login_max_failures_per_user",
            "login_max_failures_per_address",
            "login_failure_window",
            "login_lockout",
            "sync_retention_days",
            "webhook_concurrency",
            "recurrence_horizon_days",
            "recurrence_max_occurrences",
            "feed_max_events",
            "feed_refresh_minutes",
            "max_connections",
            "batch_max_requests",
        )
        require_positive(self, positive, "integer")
        require_positive(
            self, ("header_timeout", "read_replica_max_lag_seconds", "ready_timeout"), "number"
        )
        if self.concurrent_reads < -1:
            raise ValueError("concurrent_reads must be -1 (automatic), 0 (unbounded) or more")
        if not 1 <= self.webhook_timeout <= 30:
            raise ValueError("webhook_timeout must be from 1 to 30 seconds")
        for origin in self.cors_origins:
            normalize_origin(origin)
        if self.read_database_urls:
            schemes = {urlsplit(url).scheme.split("+")[0] for url in self.read_database_urls}
            primary = urlsplit(self.database_url).scheme.split("+")[0]
            if not {primary, *schemes} <= {"postgres", "postgresql"}:
                raise ValueError(
                    "read_database_urls: read replicas need PostgreSQL (postgresql:// URLs "
                    "for the database and every replica)"
                )
        self.validate_site()
        self.validate_rate_limits()
        try:
            resolve_timezone(self.timezone)
        except DateParseError as exc:
            raise ValueError(f"invalid site timezone {self.timezone!r}") from exc

    def validate_site(self) -> None:
        """The public pages' settings (``site.md``)."""
        if self.site_default_view not in SITE_VIEWS:
            raise ValueError(f"site_default_view must be one of {', '.join(SITE_VIEWS)}")
        if not 0 <= self.start_of_week <= 6:
            raise ValueError("start_of_week must be from 0 (Sunday) to 6 (Saturday)")
        require_positive(self, ("site_month_events_per_day",), "integer")
        if self.site_templates_dir is not None and not os.path.isdir(self.site_templates_dir):
            raise ValueError(f"site_templates_dir: {self.site_templates_dir!r} is not a directory")

    def validate_rate_limits(self) -> None:
        """The rate limits' settings (``docs/rate-limits.md``)."""
        for name in ("rate_limit_anonymous", "rate_limit_authenticated", "rate_limit_writes"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be 0 (off) or a positive integer")
        require_positive(self, ("rate_limit_window", "worker_processes"), "integer")
        url = self.rate_limit_redis_url
        if url and urlsplit(url).scheme not in ("redis", "rediss", "unix"):
            raise ValueError("rate_limit_redis_url must be a redis://, rediss:// or unix:// URL")
        for name in ("trusted_proxies", "metrics_allow"):
            for entry in getattr(self, name):
                try:
                    ipaddress.ip_network(entry, strict=False)
                except ValueError:
                    raise ValueError(
                        f"{name}: {entry!r} is not an address or a CIDR network"
                    ) from None

    @property
    def rate_limited(self) -> bool:
        """Whether any rate limit is on (else no request pays for them)."""
        return bool(
            self.rate_limit_anonymous or self.rate_limit_authenticated or self.rate_limit_writes
        )

    @property
    def site_zone(self) -> dt.tzinfo:
        """The site's time zone (validated at start-up)."""
        return resolve_timezone(self.timezone)


def require_positive(settings: Settings, names: t.Iterable[str], kind: str) -> None:
    """:raises ValueError: naming the first of ``names`` that is not above 0."""
    for name in names:
        if not getattr(settings, name) > 0:
            raise ValueError(f"{name} must be a positive {kind}")


def normalize_origin(text: str) -> str:
    """A ``cors_origins`` entry as compared with ``Origin``: lower case, without a
    trailing slash.

    :raises ValueError: for ``*``, ``null``, a path, a query or a scheme other than
        http(s).
    """
    origin = text.strip().lower().rstrip("/")
    parts = urlsplit(origin)
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or "@" in parts.netloc
        or parts.path
        or parts.query
        or parts.fragment
    ):
        raise ValueError(f"cors_origins: {text!r} is not an origin (scheme://host[:port])")
    return origin


def _from_environment(variable: str, text: str, kind: str) -> object:
    """A setting's value from its environment variable, by the field's declared type.

    :raises ValueError: naming the variable, when the text is not of that type.
    """
    try:
        if kind == "bool":
            word = text.strip().lower()
            if word not in TRUE_WORDS | FALSE_WORDS:
                raise ValueError(text)
            return word in TRUE_WORDS
        if kind == "int":
            return int(text.strip())
        if kind == "float":
            return float(text.strip())
        if kind.startswith("tuple"):
            return tuple(item.strip() for item in text.split(",") if item.strip())
    except ValueError:
        raise ValueError(f"{variable}={text!r} is not a valid {kind}") from None
    return text
