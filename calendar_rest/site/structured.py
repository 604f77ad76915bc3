"""The pages' JSON-LD (``site.md`` §3): the ``schema.org/Event`` the API renders for
a single read (``wire.json_ld``, in the event's ``json_ld``), completed for Google's
Event rich results, and written into a ``<script type="application/ld+json">``.

The API's object is kept as the API answers it (its ``eventStatus`` too, anchors.md
§1); a page's copy adds what TEC's pages add (the venue's page as the place's ``url``,
``eventStatus`` where the API gave none), drops empty values
and the placeholder ``performer``, says the description in plain text and the offer's
availability as the schema.org URL Google reads (TEC's bare ``inStock`` is not one). The JSON
is data, never run (CSP allows no inline script), and ``<`` is written ``\\u003c``,
so no ``</script>`` inside it can close the element.
"""

from __future__ import annotations

import typing as t

import orjson
from markupsafe import Markup

from ..wire.plain_text import plain_text

SCHEDULED = "https://schema.org/EventScheduled"
#: the offer availabilities TEC writes bare, as schema.org's ItemAvailability URLs
AVAILABILITY = {"inStock": "https://schema.org/InStock"}
#: what the API's JSON-LD puts in ``performer`` when it knows none (TEC's)
PLACEHOLDER_PERFORMER = "Organization"


def event_json_ld(data: t.Mapping[str, t.Any]) -> dict[str, t.Any] | None:
    """The page's JSON-LD of the event the API renders as ``data`` (None: the API
    rendered none, as for a password-protected event)."""
    rendered = data.get("json_ld")
    if not isinstance(rendered, dict):
        return None
    shown: dict[str, t.Any] = {**rendered, "@context": "https://schema.org"}
    shown.setdefault("eventStatus", SCHEDULED)
    shown["description"] = plain_text(data.get("description") or "")
    if shown.get("performer") == PLACEHOLDER_PERFORMER:
        del shown["performer"]
    image = data.get("image")
    if isinstance(image, dict) and image.get("url"):
        shown["image"] = image["url"]
    venue = data.get("venue")
    if isinstance(venue, dict):
        location = shown.get("location")
        if isinstance(location, list):  # a mixed event: the Place, then the VirtualLocation
            shown["location"] = [_place(item, venue) for item in location]
        elif isinstance(location, dict):
            shown["location"] = _place(location, venue)
    offers = shown.get("offers")
    if isinstance(offers, dict) and offers.get("availability") in AVAILABILITY:
        shown["offers"] = {**offers, "availability": AVAILABILITY[offers["availability"]]}
    organizers = shown.get("organizer")
    if isinstance(organizers, dict):
        shown["organizer"] = trimmed(organizers)
    elif isinstance(organizers, list):
        shown["organizer"] = [trimmed(item) for item in organizers]
    return t.cast(dict[str, t.Any], trimmed(shown))


def _place(location: t.Any, venue: t.Mapping[str, t.Any]) -> t.Any:
    """The venue's Place with the venue page as its ``url`` and no description; any
    other location (a VirtualLocation) as it is."""
    if not isinstance(location, dict) or location.get("@type") != "Place":
        return location
    place = {**location, "url": venue.get("url", "")}
    place.pop("description", None)
    return place


def trimmed(value: t.Any) -> t.Any:
    """``value`` without its empty strings, lists and objects, at any depth."""
    if isinstance(value, dict):
        kept = {key: trimmed(item) for key, item in value.items()}
        return {key: item for key, item in kept.items() if item not in ("", None, [], {})}
    if isinstance(value, list):
        return [trimmed(item) for item in value]
    return value


def script_json(value: t.Any) -> Markup:
    """``value`` as the text of a JSON-LD ``<script>``: ``<``, ``>`` and ``&`` escaped
    as JSON escapes (``</script>`` cannot end it early, and it reads the same)."""
    text = orjson.dumps(value).decode()
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)  # noqa: S704 - JSON with every markup character escaped


def json_ld_script(data: t.Mapping[str, t.Any]) -> Markup:
    """The ``<script type="application/ld+json">`` of an event, or nothing."""
    found = event_json_ld(data)
    if found is None:
        return Markup("")
    return Markup('<script type="application/ld+json">%s</script>') % script_json(found)
