"""Where gazetteer places lie: great-circle distances, the entry nearest each point, and the
part of a country that lies towards a bearing."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import shapely

from geo.geocoding import gazetteer

NEAREST_CHUNK = 20_000
"""Points located at once by `nearest_rows` (a point at sea can have hundreds of candidates:
a chunk stays within about 100 MB)."""


def haversine_km(lat: Any, lon: Any, lats: Any, lons: Any) -> Any:
    """Great-circle distance in km from one point to one or many (numpy broadcasts)."""
    lat1, lon1, lat2, lon2 = map(np.radians, (lat, lon, lats, lons))
    a = (
        np.sin((lat2 - lat1) / 2) ** 2
        + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * 6371.0 * np.arcsin(np.sqrt(a))


def nearest_rows(
    places: gazetteer.Gazetteer, latitudes: Any, longitudes: Any
) -> npt.NDArray[np.intp]:
    """The gazetteer row nearest each point, the first entry of places equally near (-1 for
    a point that is not a number, or an empty gazetteer); many points at once (an import's
    rows without a country), in chunks: a point far from every place has many candidates.

    From a tree of the points in degrees: the nearest in degrees is d away, so the nearest
    on the sphere lies within d / cos(latitude) degrees (a degree of longitude shrinks
    towards the poles); near a pole or the antimeridian the whole gazetteer is measured.
    """
    lats = np.asarray(latitudes, dtype=float)
    lons = np.asarray(longitudes, dtype=float)
    found = np.full(len(lats), -1, dtype=np.intp)
    if not len(places):
        return found
    for start in range(0, len(lats), NEAREST_CHUNK):
        chunk = slice(start, start + NEAREST_CHUNK)
        found[chunk] = _nearest_chunk(places, lats[chunk], lons[chunk])
    return found


def _nearest_chunk(
    places: gazetteer.Gazetteer, lats: npt.NDArray[np.float64], lons: npt.NDArray[np.float64]
) -> Any:
    found = np.full(len(lats), -1, dtype=np.intp)
    tree = places.derived("points-tree", _points_tree)
    first, degrees = tree.query_nearest(
        shapely.points(lons, lats), return_distance=True, all_matches=False
    )
    inputs, _ = first
    reach = np.full(len(lats), np.nan)
    reach[inputs] = degrees / np.maximum(
        np.cos(np.radians(np.minimum(np.abs(lats[inputs]) + degrees, 90))), 1e-6
    )
    edge = (np.abs(lats) + reach >= 89) | (np.abs(lons) + reach >= 179) | np.isnan(reach)
    inner = np.flatnonzero(~edge)
    reach = reach[inner] * 1.0001 + 1e-9
    boxes = shapely.box(
        lons[inner] - reach, lats[inner] - reach, lons[inner] + reach, lats[inner] + reach
    )
    which, rows = tree.query(boxes)
    distances = haversine_km(
        lats[inner][which], lons[inner][which], places.latitudes[rows], places.longitudes[rows]
    )
    order = np.lexsort((rows, distances, which))  # by point, nearest first, then first entry
    which, rows = which[order], rows[order]
    starts = np.flatnonzero(np.diff(which, prepend=-1))  # each point's first (nearest) row
    found[inner[which[starts]]] = rows[starts]
    for point in np.flatnonzero(edge & np.isfinite(lats) & np.isfinite(lons)):
        # near a pole or the antimeridian: the whole gazetteer measured, as `reverse` does
        distances = haversine_km(lats[point], lons[point], places.latitudes, places.longitudes)
        found[point] = int(np.argmin(distances))  # (the first of equally near entries)
    return found


def _points_tree(places: gazetteer.Gazetteer) -> shapely.STRtree:
    return shapely.STRtree(shapely.points(places.longitudes, places.latitudes))


PART_SHARE = 0.3
"""'Southern X' is the mean position of the southernmost PART_SHARE of X's towns."""
PART_KINDS = frozenset({"city", "town"})


def country_part(
    places: gazetteer.Gazetteer, country_code: str, bearing: float | None
) -> tuple[float, float] | None:
    """The middle of a country's part that lies towards `bearing` (degrees; None: its centre),
    from the positions of its towns and cities (None when it has fewer than five)."""
    towns = places.derived("towns by country", _towns_by_country).get(country_code)
    if towns is None or len(towns) < 5:
        return None
    latitudes, longitudes = places.latitudes[towns], places.longitudes[towns]
    if bearing is None:
        return float(np.median(latitudes)), float(np.median(longitudes))
    scale = math.cos(math.radians(float(np.median(latitudes))))
    angle = math.radians(bearing)
    along = latitudes * math.cos(angle) + longitudes * scale * math.sin(angle)
    cut = np.quantile(along, 1.0 - PART_SHARE)
    chosen = along >= cut
    return float(np.mean(latitudes[chosen])), float(np.mean(longitudes[chosen]))


def _towns_by_country(places: gazetteer.Gazetteer) -> dict[str, npt.NDArray[np.int64]]:
    grouped: dict[str, list[int]] = {}
    for entry, (code, kind) in enumerate(zip(places.country_codes, places.kinds, strict=True)):
        if kind in PART_KINDS:
            grouped.setdefault(code, []).append(entry)
    return {code: np.array(entries, dtype=np.int64) for code, entries in grouped.items()}
