"""What every post-like write needs: unique slugs, timestamps, authors and images."""

from __future__ import annotations

import dataclasses
import datetime as dt
import typing as t
from urllib.parse import urlsplit

from ..clock import Clock, utc_now
from ..dates import from_utc, parse_datetime, resolve_timezone, to_utc
from ..errors import ParamErrors, bad_param
from ..models import PUBLISHED_STATUSES, Attachment, PostModel, User
from ..queries.lookups.posts import (
    attachment_by_id,
    attachment_by_url,
    attachment_readable,
    taken_slugs,
)
from ..queries.lookups.users import user_by_id
from ..rules.permissions import has_cap, scale_status
from ..schemas.fields import is_url, to_int
from ..wordpress.text import first_free, slugify
from .record_locks import lock_slug_base
from .translations import TranslationLink, translation_root

MAX_SLUG = 180  # leaves room for "-NNN" and "__trashed" within the 200-char column


@dataclasses.dataclass(frozen=True)
class WriteContext:
    """Who writes, when, and the site facts a write needs."""

    user: User
    site_timezone: str
    clock: Clock
    language: str = "en"

    @property
    def site_zone(self) -> dt.tzinfo:
        return resolve_timezone(self.site_timezone)

    @property
    def now(self) -> dt.datetime:
        """Naive UTC to the second, for the ``*_utc`` stamps."""
        return utc_now(self.clock)

    def parse_date(self, value: t.Any, zone: dt.tzinfo) -> dt.datetime:
        """A date parameter as wall time in ``zone``; relative phrases ("tomorrow 8pm")
        count from the clock's now."""
        return parse_datetime(value, zone, now=from_utc(self.now, zone))


def unique_slug(
    model: type[PostModel], wanted: str, fallback: str, exclude_id: int | None = None
) -> str:
    """``wanted`` slugified and made unique in ``model`` with ``-2``, ``-3``… suffixes."""
    return free_slug(model, slugify(wanted, max_length=MAX_SLUG) or fallback, exclude_id)


def free_slug(
    model: type[PostModel],
    base: str,
    exclude_id: int | None = None,
    chosen: t.Collection[str] = (),
) -> str:
    """``base`` itself if unused in ``model`` (and not ``chosen`` already by the write
    for rows it has not inserted yet), else the first free ``base-N``.

    Writers choosing from one base queue (``record_locks.lock_slug_base``); where two
    still collide, the unique index refuses the later insert and the request is
    replayed whole (``edge.writes``), which reads the slug as taken.
    """
    lock_slug_base(model, base)
    return first_free(base, taken_slugs(model, base, exclude_id) | set(chosen))


def stamp_new(record: PostModel, ctx: WriteContext, args: dict[str, t.Any]) -> None:
    """Set publication and modification times from ``date``/``date_utc`` or now."""
    now = ctx.now
    zone = ctx.site_zone
    if "date" in args:
        record.date = ctx.parse_date(args["date"], zone)
        record.date_utc = to_utc(record.date, zone)
    elif "date_utc" in args:
        record.date_utc = ctx.parse_date(args["date_utc"], resolve_timezone("UTC"))
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
    now = ctx.now
    record.modified_utc = now
    record.modified = from_utc(now, ctx.site_zone)


def scheduled(status: str, record: PostModel, ctx: WriteContext) -> str:
    """WordPress schedules posts dated in the future: a published or scheduled record
    is ``future`` while its publication date is to come, ``publish`` once it has
    passed (so ``future`` with a past date stores ``publish``)."""
    if status not in PUBLISHED_STATUSES:
        return status
    return "future" if record.date_utc > ctx.now else "publish"


def written_status(record: PostModel, requested: str | None, ctx: WriteContext) -> str:
    """The status a write stores: the one the writer may set (``publish`` by default),
    scheduled when the record is dated in the future."""
    return scheduled(scale_status(ctx.user, requested, "publish"), record, ctx)


@dataclasses.dataclass
class PostWrite:
    """A validated write of a post-like record: the loaded args, and the references
    every post type resolves against the database before any permission check."""

    args: dict[str, t.Any]
    author: User | None = None
    image: Attachment | str | None = None
    #: the translation group the record joins (``translation_of``)
    translation: TranslationLink | None = None
    #: imports only: the source's ``global_id`` lineage (``calendar.md`` §6)
    lineage: str | None = None

    def check_owner_and_image(self, user: User | None, errors: ParamErrors) -> None:
        """Resolve ``author`` and ``image`` where sent, collecting their errors."""
        if "author" in self.args:
            self.author = errors.check(check_author, self.args["author"])
        if "image" in self.args:
            self.image = errors.check(check_image, self.args["image"], user)

    def check_translation(
        self,
        model: type[PostModel],
        language: str,
        record: PostModel | None,
        user: User | None,
        errors: ParamErrors,
    ) -> None:
        """Resolve ``translation_of`` where sent (``record`` is the one updated)."""
        if "translation_of" in self.args:
            self.translation = errors.check(
                translation_root, model, self.args["translation_of"], language, record, user
            )


def check_author(value: t.Any) -> User:
    """:raises InvalidParams: when ``author`` is not an existing user's ID."""
    user_id = to_int(value)
    user = user_by_id(user_id) if user_id else None
    if user is None:
        raise bad_param("author", "unknown_user")
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
        attachment = attachment_by_id(image_id)
        if attachment is None or not attachment_readable(attachment, user):
            raise bad_param("image", "unknown_image")  # a hidden image is an unknown one
        return attachment
    if not isinstance(value, str) or not is_url(value.strip()):
        raise bad_param("image", "bad_url")
    if not has_cap(user, "upload_files"):
        raise bad_param("image", "upload_forbidden")
    return value.strip()


def attach_image(value: Attachment | str | None, ctx: WriteContext) -> Attachment | None:
    """Reuse the attachment of a known URL, or register the URL as a new one."""
    if value is None or isinstance(value, Attachment):
        return value
    existing = attachment_by_url(value)
    if existing is not None:
        return existing
    path = urlsplit(value).path
    extension = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    return Attachment.create(url=value, extension=extension[:10], author=ctx.user, created=ctx.now)
