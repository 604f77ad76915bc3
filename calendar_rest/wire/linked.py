"""Venue and organizer representations (TEC's ``get_venue_data``/``get_organizer_data``).

The same shape is used standalone and embedded in events: empty values are dropped,
venues then always get their map flags, and both always end with the global IDs, then
the additive ``language`` and ``translations``.
"""

from __future__ import annotations

import typing as t

from ..dates import format_datetime
from ..models import Attachment, Organizer, Venue
from ..text import wpautop
from .images import image_data
from .json_ld import organizer_json_ld, venue_json_ld
from .translations import Translations, add_language
from .urls import Urls


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


def venue_data(
    venue: Venue,
    urls: Urls,
    image: Attachment | None = None,
    *,
    single: bool = False,
    geolocation: bool = True,
    translations: Translations,
) -> dict[str, t.Any]:
    data = _post_head(venue, "venue", urls)
    data.update(
        venue=venue.title,
        description=wpautop(venue.description),
        excerpt=wpautop(venue.excerpt),
        slug=venue.slug,
        image=image_data(image),
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
    data = _drop_empty(data)
    data["show_map"] = bool(venue.show_map)
    data["show_map_link"] = bool(venue.show_map_link)
    data["global_id"] = urls.global_id(venue.id)
    data["global_id_lineage"] = [data["global_id"]]
    add_language(data, venue, translations)
    return data


def organizer_data(
    organizer: Organizer,
    urls: Urls,
    image: Attachment | None = None,
    *,
    single: bool = False,
    translations: Translations,
) -> dict[str, t.Any]:
    data = _post_head(organizer, "organizer", urls)
    data.update(
        organizer=organizer.title,
        description=wpautop(organizer.description),
        excerpt=wpautop(organizer.excerpt),
        slug=organizer.slug,
        image=image_data(image),
        phone=organizer.phone,
        website=organizer.website,
        email=organizer.email,
    )
    if single:
        data["json_ld"] = organizer_json_ld(organizer, image)
    data["global_id"] = urls.global_id(organizer.id)
    data["global_id_lineage"] = [data["global_id"]]
    data = _drop_empty(data)
    add_language(data, organizer, translations)
    return data
