"""Reading a TEC site's REST API: namespace discovery, every page of a list, retries.

httpx does the HTTP (timeouts, redirects, Basic credentials). Connection errors, 5xx
and 429 are retried 3 times with exponential backoff, honouring ``Retry-After``.
There is no SSRF blocking: this is the operator's own command (``calendar.md`` §6).
"""

from __future__ import annotations

import dataclasses
import time
import typing as t
from urllib.parse import urlsplit

import httpx

from .. import __version__
from ..i18n.messages import N_

TIMEOUT = 30.0
RETRIES = 3
BACKOFF = 0.5
MAX_RETRY_AFTER = 60.0
PER_PAGE = 50
NAMESPACE_SUFFIXES = ("/calendar/events/v1", "/tribe/events/v1")


class SourceUnusable(Exception):
    """The source cannot be read at all: unreachable, no TEC namespace, or refused."""

    def __init__(self, message: str, **values: object) -> None:
        super().__init__(message)
        self.message = message
        self.values = values

    def render(self, _: t.Callable[[str], str]) -> str:
        return _(self.message) % self.values if self.values else _(self.message)


@dataclasses.dataclass(frozen=True)
class Namespace:
    """Where the REST namespace answers: a path root, or WordPress's ``rest_route``."""

    root: str
    rest_route: str | None = None

    def endpoint(self, collection: str) -> tuple[str, dict[str, str]]:
        if self.rest_route is None:
            return f"{self.root.rstrip('/')}/{collection}", {}
        return self.root, {"rest_route": f"{self.rest_route}/{collection}"}

    @property
    def site_id(self) -> str:
        """TEC's ``global_id`` prefix: host and site path (``<host><path>?id=<id>``)."""
        parts = urlsplit(self.root)
        path = parts.path
        for suffix in ("/wp-json/tribe/events/v1", *NAMESPACE_SUFFIXES):
            if path.endswith(suffix):
                path = path[: -len(suffix)]
                break
        return f"{parts.netloc}{path.rstrip('/')}"


class TecClient:
    """One HTTP client for one source site, used as a context manager."""

    def __init__(
        self,
        url: str,
        credentials: tuple[str, str] | None = None,
        *,
        sleep: t.Callable[[float], None] = time.sleep,
        backoff: float = BACKOFF,
    ) -> None:
        self.url = url.rstrip("/")
        self.sleep = sleep
        self.backoff = backoff
        self.client = httpx.Client(
            auth=credentials,
            follow_redirects=True,
            timeout=TIMEOUT,
            headers={"Accept": "application/json", "User-Agent": f"calendar-rest/{__version__}"},
        )
        self.namespace: Namespace | None = None

    def __enter__(self) -> TecClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.close()

    def get(self, url: str, params: t.Mapping[str, t.Any] | None = None) -> httpx.Response:
        """GET with retries.

        :raises SourceUnusable: unreachable after the retries, or 401.
        """
        for attempt in range(RETRIES + 1):
            try:
                response = self.client.get(url, params=params)
            except httpx.TransportError as exc:
                if attempt == RETRIES:
                    raise SourceUnusable(
                        N_("cannot reach %(url)s: %(reason)s"), url=url, reason=str(exc) or exc
                    ) from None
                self.sleep(self.backoff * 2**attempt)
                continue
            if response.status_code == 401:
                raise SourceUnusable(
                    N_("%(url)s refused the credentials (401)"), url=str(response.url)
                )
            retry = response.status_code == 429 or response.status_code >= 500
            if not retry or attempt == RETRIES:
                return response
            self.sleep(_retry_after(response) or self.backoff * 2**attempt)
        raise AssertionError("unreachable")

    def discover(self) -> Namespace:
        """The namespace root (``calendar.md`` §6): the URL itself when it names one,
        else the first candidate whose ``events?per_page=1`` answers 200 JSON.

        :raises SourceUnusable: none answers.
        """
        path = urlsplit(self.url).path.rstrip("/")
        if path.endswith(NAMESPACE_SUFFIXES):
            candidates = [Namespace(self.url)]
        else:
            candidates = [
                Namespace(f"{self.url}/calendar/events/v1"),
                Namespace(f"{self.url}/wp-json/tribe/events/v1"),
                Namespace(f"{self.url}/", rest_route="/tribe/events/v1"),
            ]
        for namespace in candidates:
            url, params = namespace.endpoint("events")
            response = self.get(url, {**params, "per_page": 1})
            if response.status_code == 200 and _json(response) is not None:
                self.namespace = namespace
                return namespace
        raise SourceUnusable(N_("no TEC REST namespace found at %(url)s"), url=self.url)

    def pages(
        self, collection: str, params: t.Mapping[str, t.Any]
    ) -> t.Iterator[tuple[list[dict[str, t.Any]], int]]:
        """Each page's records of ``collection`` with the list's total: follows
        ``next_rest_url``, else counts pages up to the advertised number."""
        assert self.namespace is not None
        url, extra = self.namespace.endpoint(collection)
        query: dict[str, t.Any] | None = {**extra, **params, "per_page": PER_PAGE, "page": 1}
        page = 1
        while True:
            response = self.get(url, query)
            body = _json(response)
            if response.status_code != 200 or not isinstance(body, dict):
                if page > 1 and response.status_code == 400:
                    return  # WordPress's answer to a page past the end
                raise SourceUnusable(
                    N_("%(url)s answered %(status)d"), url=str(response.url),
                    status=response.status_code,
                )  # fmt: skip
            records = body.get(collection)
            items = [item for item in records if isinstance(item, dict)] if records else []
            total = as_int(response.headers.get("X-WP-Total")) or as_int(body.get("total")) or 0
            yield items, max(total, len(items))
            pages = (
                as_int(body.get("total_pages"))
                or as_int(response.headers.get("X-WP-TotalPages"))
                or as_int(response.headers.get("X-TEC-TotalPages"))
                or 1
            )
            following = body.get("next_rest_url")
            if isinstance(following, str) and following:
                url, query = following, None
            elif page < pages and items:
                query = {**extra, **params, "per_page": PER_PAGE, "page": page + 1}
            else:
                return
            page += 1


def _json(response: httpx.Response) -> t.Any:
    if "json" not in response.headers.get("content-type", ""):
        return None
    try:
        return response.json()
    except ValueError:
        return None


def as_int(value: t.Any) -> int | None:
    """An integer from the source's JSON or headers (None: not one)."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _retry_after(response: httpx.Response) -> float | None:
    """``Retry-After`` in seconds (the delay form), capped; None when absent."""
    seconds = as_int(response.headers.get("Retry-After"))
    return min(float(seconds), MAX_RETRY_AFTER) if seconds is not None and seconds >= 0 else None
