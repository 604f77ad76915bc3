"""Run-time settings of one application instance.

Everything tunable lives in one frozen dataclass built by ``create_app`` from keyword
arguments, so resources receive their configuration explicitly instead of reading
globals or the environment.
"""

from __future__ import annotations

import dataclasses
import os

DATABASE_URL_ENV = "CALENDAR_REST_DATABASE_URL"
DEFAULT_DATABASE_URL = "sqlite:///calendar.db"
NAMESPACE = "calendar/events/v1"
LANGUAGES = ("en", "fr")
DEFAULT_LANGUAGE = "en"


@dataclasses.dataclass(frozen=True)
class Settings:
    """Configuration of one app; see the README for what each knob does."""

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

    @classmethod
    def build(cls, database_url: str | None = None, **overrides: object) -> Settings:
        """Resolve the database URL (argument, then env, then default) and apply overrides."""
        url = database_url or os.environ.get(DATABASE_URL_ENV) or DEFAULT_DATABASE_URL
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise TypeError(f"unknown setting(s): {', '.join(unknown)}")
        settings = cls(database_url=url, **overrides)  # type: ignore[arg-type]
        settings.validate()
        return settings

    def validate(self) -> None:
        """Fail fast on settings that would only break later, mid-request."""
        if self.default_per_page < 1 or self.max_per_page < 1:
            raise ValueError("per_page settings must be positive")
        if self.geofence_unit not in ("miles", "kms"):
            raise ValueError("geofence_unit must be 'miles' or 'kms'")
        from .dates import DateParseError, resolve_timezone

        try:
            resolve_timezone(self.timezone)
        except DateParseError as exc:
            raise ValueError(f"invalid site timezone {self.timezone!r}") from exc
