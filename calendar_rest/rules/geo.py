"""Coordinates: how a latitude/longitude pair is checked, and distances on the globe.

Venues store coordinates (``geo_lat``/``geo_lng``) and the event archive filters by
distance from a point (``geoloc_lat``/``geoloc_lng``): both pairs follow the same
rules, written once here.
"""

from __future__ import annotations

import math
import typing as t

from ..errors import ParamErrors

EARTH_KM = 6371.0
MILE_KM = 1.609344


def coordinate_errors(args: t.Mapping[str, t.Any], prefix: str) -> ParamErrors:
    """``<prefix>_lat`` and ``<prefix>_lng`` come together, each within the globe's
    range; a lone one is reported as its missing partner."""
    lat, lng = f"{prefix}_lat", f"{prefix}_lng"
    errors = ParamErrors()
    if (lat in args) != (lng in args):
        missing, other = (lng, lat) if lat in args else (lat, lng)
        return errors.add(missing, "geoloc_pair", other=other)
    if lat in args and not -90 <= args[lat] <= 90:
        errors.add(lat, "bad_latitude")
    if lng in args and not -180 <= args[lng] <= 180:
        errors.add(lng, "bad_longitude")
    return errors


def radius_km(radius: float, unit: str) -> float:
    """A geofence radius in kilometres (``unit`` is ``miles`` or ``kms``)."""
    return radius * (MILE_KM if unit == "miles" else 1)


def bounding_box(lat: float, lng: float, km: float) -> tuple[float, float, float, float]:
    """``(min_lat, max_lat, min_lng, max_lng)`` of a box holding the circle of ``km``
    around the point: what an index on (lat, lng) can narrow before exact distances."""
    delta_lat = math.degrees(km / EARTH_KM)
    cos_lat = max(math.cos(math.radians(lat)), 1e-6)
    delta_lng = min(180.0, math.degrees(km / EARTH_KM / cos_lat))
    return lat - delta_lat, lat + delta_lat, lng - delta_lng, lng + delta_lng


def haversine_km(lat1: float, lng1: float, lat2: float, lng2: float) -> float:
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    dphi, dlmb = phi2 - phi1, math.radians(lng2 - lng1)
    a = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlmb / 2) ** 2
    return 2 * EARTH_KM * math.asin(min(1.0, math.sqrt(a)))
