"""Venue and organizer representations (TEC's ``get_venue_data``/``get_organizer_data``).

The same shape is used standalone and embedded in events: empty values are dropped,
venues then always get their map flags, and both always end with the global IDs, then
the additive ``language`` and ``translations``. A venue or organizer shown on its own
(``linked_data``) is rendered once per content, as embedded ones are.
"""

from __future__ import annotations

import typing as t

from ..dates import format_datetime
from ..models import Attachment, Organizer, PostModel, Venue, model_of
from ..queries.loaded import Translations
from ..wordpress.text import wpautop
from ..wordpress.urls import Urls
from .images import image_data
from .json_ld import organizer_json_ld, venue_json_ld
from .kept import kept, row_of
from .languages import add_language


def _post_head(record: Venue | Organizer, kind: str, urls: Urls) -> dict[str, t.Any]:
    return {
        "id": record.id,
        "author": str(record.author_id or ""),
        "status": record.status,
        "date": format_datetime(record.date),
        "date_utc": format_datetime(record.date_utc),
        "modified": format_datetime(record.modified),
        "modified_utc": format_datetime(record.modified_utc),
        "url": urls.permalink(kind, record.id, record.slug, record.status, record.language),
    }


def _drop_empty(data: dict[str, t.Any]) -> dict[str, t.Any]:
    return {key: value for key, value in data.items() if not _is_empty(value)}


def _is_empty(value: t.Any) -> bool:
    """PHP's ``empty()``: "", "0", 0, 0.0, false, null, [] and {}."""
    if value is None or value is False:
        return True
    if isinstance(value, (str, list, dict)):
        return value in ("", "0") or not value
    return isinstance(value, (int, float)) and value == 0


def _named_post(
    record: Venue | Organizer, kind: str, urls: Urls, image: Attachment | None
) -> dict[str, t.Any]:
    """The head every venue and organizer starts with, its name under ``kind``."""
    data = _post_head(record, kind, urls)
    data.update(
        {
            kind: record.title,
            "description": wpautop(record.description),
            "excerpt": wpautop(record.excerpt),
            "slug": record.slug,
            "image": image_data(image),
        }
    )
    return data


def _finished(
    data: dict[str, t.Any],
    record: Venue | Organizer,
    urls: Urls,
    translations: Translations,
    **always: t.Any,
) -> dict[str, t.Any]:
    """Empty values dropped, then the keys always present: ``always``, the global IDs,
    the language and translations."""
    data = _drop_empty(data)
    data.update(always)
    data["global_id"] = urls.global_id(
        record.id, "venue" if model_of(record) is Venue else "organizer"
    )
    # the source lineage an import stored, then this record's own (calendar.md §6)
    data["global_id_lineage"] = [*record.global_id_lineage.split(), data["global_id"]]
    add_language(data, record, translations)
    return data


def venue_data(
    venue: Venue,
    urls: Urls,
    image: Attachment | None = None,
    *,
    single: bool = False,
    geolocation: bool = True,
    translations: Translations,
) -> dict[str, t.Any]:
    data = _named_post(venue, "venue", urls, image)
    data.update(
        address=venue.address,
        city=venue.city,
        country=venue.country,
        province=venue.province,
        state=venue.state,
        zip=venue.zip,
        phone=venue.phone,
        website=venue.website,
        stateprovince=venue.stateprovince,
    )
    if geolocation and venue.geo_lat is not None and venue.geo_lng is not None:
        data["geo_lat"] = venue.geo_lat
        data["geo_lng"] = venue.geo_lng
    if single:
        data["json_ld"] = venue_json_ld(venue, image, geolocation=geolocation)
    return _finished(
        data,
        venue,
        urls,
        translations,
        show_map=bool(venue.show_map),
        show_map_link=bool(venue.show_map_link),
    )


def organizer_data(
    organizer: Organizer,
    urls: Urls,
    image: Attachment | None = None,
    *,
    single: bool = False,
    translations: Translations,
) -> dict[str, t.Any]:
    data = _named_post(organizer, "organizer", urls, image)
    data.update(phone=organizer.phone, website=organizer.website, email=organizer.email)
    if single:
        data["json_ld"] = organizer_json_ld(organizer, image)
    return _finished(data, organizer, urls, translations)


def linked_data(
    record: Venue | Organizer | PostModel,
    urls: Urls,
    image: Attachment | None,
    translations: Translations,
    *,
    single: bool = False,
    geolocation: bool = True,
) -> dict[str, t.Any]:
    """A venue or an organizer, whichever ``record`` is, rendered once per content
    (``kept.py``): the same record recurs from page to page."""

    def render() -> dict[str, t.Any]:
        if model_of(record) is Venue:
            return venue_data(
                t.cast(Venue, record),
                urls,
                image,
                single=single,
                geolocation=geolocation,
                translations=translations,
            )
        assert model_of(record) is Organizer
        return organizer_data(
            t.cast(Organizer, record), urls, image, single=single, translations=translations
        )

    group = translations.group_key(record)
    shown = (urls, single, geolocation)
    return kept((model_of(record).__name__, shown, row_of(record), row_of(image), group), render)
