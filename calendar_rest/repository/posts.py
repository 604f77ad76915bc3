"""What every post-like write needs: unique slugs, timestamps, authors and images."""

from __future__ import annotations

import dataclasses
import datetime as dt
import typing as t
from urllib.parse import urlsplit

from ..dates import from_utc, parse_datetime, resolve_timezone, to_utc
from ..errors import invalid_param
from ..models import Attachment, PostModel, User
from ..permissions import has_cap
from ..schemas.fields import is_url, to_int
from ..text import slugify

MAX_SLUG = 180  # leaves room for "-NNN" and "__trashed" within the 200-char column


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None, microsecond=0)


@dataclasses.dataclass(frozen=True)
class WriteContext:
    """Who writes, and the site facts a write needs."""

    user: User
    site_timezone: str
    language: str = "en"

    @property
    def site_zone(self) -> dt.tzinfo:
        return resolve_timezone(self.site_timezone)


def unique_slug(
    model: type[PostModel], wanted: str, fallback: str, exclude_id: int | None = None
) -> str:
    """``wanted`` slugified and made unique in ``model`` with ``-2``, ``-3``… suffixes."""
    return free_slug(model, slugify(wanted, max_length=MAX_SLUG) or fallback, exclude_id)


def free_slug(model: type[PostModel], base: str, exclude_id: int | None = None) -> str:
    """``base`` itself if unused in ``model``, else the first free ``base-N``.

    Writers are queued by the request's first statement (``state.bump_generation``),
    so no concurrent writer can take the same slug between this read and the insert.
    """
    query = model.select(model.slug).where(
        (model.slug == base) | (model.slug.startswith(f"{base}-"))
    )
    if exclude_id is not None:
        query = query.where(model.id != exclude_id)
    taken = {row.slug for row in query}
    if base not in taken:
        return base
    number = 2
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"


def stamp_new(record: PostModel, ctx: WriteContext, args: dict[str, t.Any]) -> None:
    """Set publication and modification times from ``date``/``date_utc`` or now."""
    now = utc_now()
    zone = ctx.site_zone
    if "date" in args:
        record.date = parse_datetime(args["date"], zone)
        record.date_utc = to_utc(record.date, zone)
    elif "date_utc" in args:
        record.date_utc = parse_datetime(args["date_utc"], resolve_timezone("UTC"))
        record.date = from_utc(record.date_utc, zone)
    else:
        record.date_utc = now
        record.date = from_utc(now, zone)
    record.modified_utc = now
    record.modified = from_utc(now, zone)


def stamp_update(record: PostModel, ctx: WriteContext, args: dict[str, t.Any]) -> None:
    """Apply a new publication date if one was sent, and always touch ``modified``."""
    if "date" in args or "date_utc" in args:
        stamp_new(record, ctx, args)
        return
    now = utc_now()
    record.modified_utc = now
    record.modified = from_utc(now, ctx.site_zone)


def check_author(value: t.Any) -> User:
    """:raises InvalidParams: when ``author`` is not an existing user's ID."""
    user_id = to_int(value)
    user = User.get_or_none(User.id == user_id) if user_id and user_id > 0 else None
    if user is None:
        raise invalid_param("author", "unknown_user")
    return user


def check_image(value: t.Any, user: User | None) -> Attachment | str | None:
    """An existing attachment for an ID, the URL to attach for a URL, None for "".

    :raises InvalidParams: unknown IDs, malformed URLs, or URLs from users who may
        not upload files (TEC requires ``upload_files`` for side-loading).
    """
    if value in ("", 0, "0"):
        return None
    image_id = to_int(value)
    if image_id is not None:
        attachment = Attachment.get_or_none(Attachment.id == image_id) if image_id > 0 else None
        if attachment is None:
            raise invalid_param("image", "unknown_image")
        return attachment
    if not isinstance(value, str) or not is_url(value.strip()):
        raise invalid_param("image", "bad_url")
    if not has_cap(user, "upload_files"):
        raise invalid_param("image", "upload_forbidden")
    return value.strip()


def attach_image(value: Attachment | str | None, user: User) -> Attachment | None:
    """Reuse the attachment of a known URL, or register the URL as a new one."""
    if value is None or isinstance(value, Attachment):
        return value
    existing = Attachment.get_or_none(Attachment.url == value)
    if existing is not None:
        return existing
    path = urlsplit(value).path
    extension = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    return Attachment.create(url=value, extension=extension[:10], author=user, created=utc_now())
