"""The offline vector base map: Natural Earth outlines and GeoNames towns in data/basemap.

The Levant (the shipped scenario's region) is drawn from its own, finer files; a scenario
anywhere else gets the world's files around its extent (`region`).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import orjson
import shapely
from shapely.geometry import box, mapping
from shapely.geometry.base import BaseGeometry

from geo.errors import AssetsMissingError
from geo.safe_html import esc
from geo.settings import DATA_DIR

BASEMAP_DIR = DATA_DIR / "basemap"
FILES = ("countries", "governorates", "towns")
LEVANT_TOWN_BOX = (34.5, 31.5, 43.0, 38.0)
"""The Levant's town labels: GeoNames cities in this box (west, south, east, north)."""
ATTRIBUTION = "Outlines: Natural Earth (public domain) · Place names © GeoNames, CC BY 4.0"


@cache
def layers() -> dict[str, dict[str, Any]]:
    """Each base map file as a GeoJSON FeatureCollection (read once per process)."""
    found = {}
    for name in FILES:
        path = BASEMAP_DIR / f"{name}.geojson"
        if not path.is_file():
            raise AssetsMissingError(
                f"{path} is missing; rebuild it with `.venv/bin/python scripts/build_basemap.py`"
            )
        found[name] = json.loads(path.read_text(encoding="utf-8"))
    return found


GLOBAL = "CORRIDOR_BASEMAP"


@cache
def script() -> str:
    """The base map as a script defining window.CORRIDOR_BASEMAP (loaded once per page)."""
    data = layers()
    towns = [
        [
            f["geometry"]["coordinates"][1],
            f["geometry"]["coordinates"][0],
            esc(f["properties"]["name"]),
            esc(f["properties"].get("name_ar", "")),
        ]
        for f in data["towns"]["features"]
    ]
    payload = {"countries": data["countries"], "governorates": data["governorates"], "towns": towns}
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    safe = text.replace("</", "<\\/")  # no "</script>" can end the script early
    return f"window.{GLOBAL} = {safe};\n"


# --- the world around a scenario outside the Levant -------------------------------------------

WORLD_DIR = BASEMAP_DIR / "world"
LEVANT_CODES = frozenset(
    {"SYR", "TUR", "IRQ", "JOR", "ISR", "LBN", "PSX", "CYP", "CYN", "WSB", "ESB"}
)
"""The world files' codes of the countries the Levant files above draw in more detail."""
LEVANT_ISO3 = {"SY": "SYR", "TR": "TUR", "IQ": "IRQ", "JO": "JOR", "IL": "ISR", "LB": "LBN"}
LEVANT_ISO3 |= {"PS": "PSE", "CY": "CYP"}
"""The Levant files' country codes by ISO 3166-1 alpha-2."""
NEAR_DEGREES = 1.5
"""A scenario whose extent, widened by this, touches a country outside LEVANT_CODES gets the
world's base map; otherwise the Levant's, as before."""
PAD_DEGREES = 4.0
"""How far around the scenario's extent the world's base map is drawn (at least)."""
MAX_TOWNS = 80
TOWN_SPACING = 25
"""Towns kept at most one per 1/TOWN_SPACING of the drawn box's width, largest first."""


@dataclass(frozen=True)
class Region:
    """The base map a map draws instead of the Levant's: GeoJSON layers and town labels."""

    countries: dict[str, Any]
    governorates: dict[str, Any]
    towns: list[list[Any]]
    frame: list[list[float]]  # [[south, west], [north, east]] drawn, and the locator's view

    def payload(self) -> dict[str, Any]:
        return {
            "countries": self.countries,
            "governorates": self.governorates,
            "towns": self.towns,
            "frame": self.frame,
        }


@cache
def world_index() -> dict[str, dict[str, Any]]:
    """Each world country file's name, ISO codes and bounding box, by ISO 3166-1 alpha-3."""
    path = WORLD_DIR / "index.json"
    if not path.is_file():
        raise AssetsMissingError(f"{path} is missing; rebuild it with scripts/build_basemap.py")
    found: dict[str, dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return found


@cache
def admin1_of(iso_a3: str) -> tuple[tuple[str, BaseGeometry], ...]:
    """A country's first-level divisions: (name, polygon), read once per process."""
    path = WORLD_DIR / f"{iso_a3.lower()}.geojson"
    text = path.read_text(encoding="utf-8")
    names = [f["properties"]["name"] for f in orjson.loads(text)["features"]]
    geoms = shapely.get_parts(shapely.from_geojson(text))  # GEOS parses faster than shape()
    return tuple(zip(names, geoms, strict=True))


@cache
def outline_of(iso_a3: str) -> BaseGeometry:
    """A country's outline: the union of its divisions (they form a coverage)."""
    return shapely.coverage_union_all([geom for _, geom in admin1_of(iso_a3)])


@cache
def world_towns() -> tuple[tuple[float, float, str, str, str, str, int], ...]:
    """(lon, lat, name, local name, its language, country code, population), largest first."""
    with (WORLD_DIR / "towns.csv").open(encoding="utf-8", newline="") as file:
        rows = csv.reader(file)
        column = {name: number for number, name in enumerate(next(rows))}
        lon, lat, name, local = column["lon"], column["lat"], column["name"], column["local"]
        lang, country, population = column["lang"], column["country_code"], column["population"]
        return tuple(
            (
                float(row[lon]),
                float(row[lat]),
                row[name],
                row[local],
                row[lang],
                row[country],
                int(row[population]),
            )
            for row in rows
        )


def _touching(area: BaseGeometry) -> list[str]:
    """The world countries whose outline meets the area, in code order."""
    west, south, east, north = area.bounds
    found = []
    for iso_a3, entry in sorted(world_index().items()):
        w, s, e, n = entry["bbox"]
        if (
            w <= east
            and e >= west
            and s <= north
            and n >= south
            and outline_of(iso_a3).intersects(area)
        ):
            found.append(iso_a3)
    return found


def _clipped(geom: BaseGeometry, bounds: tuple[float, float, float, float]) -> BaseGeometry:
    clipped = shapely.clip_by_rect(geom, *bounds)
    return shapely.set_precision(clipped, 1e-4)


def _collection(rows: list[tuple[dict[str, Any], BaseGeometry]]) -> dict[str, Any]:
    features = [
        {"type": "Feature", "properties": props, "geometry": mapping(geom)}
        for props, geom in rows
        if not geom.is_empty
    ]
    return {"type": "FeatureCollection", "features": features}


def _town_labels(bounds: tuple[float, float, float, float]) -> list[list[Any]]:
    """The largest towns in the box, no two closer than a 25th of its width: [lat, lon, name,
    local name, language] (names escaped)."""
    west, south, east, north = bounds
    spacing = (east - west) / TOWN_SPACING
    picked: list[tuple[float, float, str, str, str, str, int]] = []
    for town in world_towns():
        lon, lat = town[0], town[1]
        if not (west <= lon <= east and south <= lat <= north):
            continue
        if any(abs(lon - o[0]) < spacing and abs(lat - o[1]) < spacing for o in picked):
            continue
        picked.append(town)
        if len(picked) == MAX_TOWNS:
            break
    return [[lat, lon, esc(name), esc(local), lang] for lon, lat, name, local, lang, _, _ in picked]


@lru_cache(maxsize=16)
def region(
    south: float, west: float, north: float, east: float, home: frozenset[str]
) -> Region | None:
    """The world's base map around an extent, or None where the Levant's covers it.

    `home` holds the ISO 3166-1 alpha-2 codes of the scenario's places (when empty, those of
    the countries the extent lies in): their countries' first-level divisions are drawn,
    their neighbours' outlines only. Everything is clipped to
    the extent widened by PAD_DEGREES (or by half its size, if more), so a map carries the
    world only around its story. Cached: a Streamlit rerun of the same scenario pays nothing.
    """
    near = box(west - NEAR_DEGREES, south - NEAR_DEGREES, east + NEAR_DEGREES, north + NEAR_DEGREES)
    touching = _touching(near)
    if set(touching) <= LEVANT_CODES:
        return None
    if not home:  # places without a country code: the countries the extent lies in
        inside = box(west - 0.01, south - 0.01, east + 0.01, north + 0.01)
        home = frozenset(world_index()[code]["iso_a2"] for code in _touching(inside))
    return _region(south, west, north, east, home)


def _region(south: float, west: float, north: float, east: float, home: frozenset[str]) -> Region:
    pad = max(PAD_DEGREES, (east - west) / 2, (north - south) / 2)
    bounds = (
        max(west - pad, -180.0),
        max(south - pad, -85.0),
        min(east + pad, 180.0),
        min(north + pad, 85.0),
    )
    drawn = box(*bounds)
    countries, divisions = [], []
    for iso_a3 in _touching(drawn):
        entry = world_index()[iso_a3]
        props = {"name": entry["name"], "iso_a3": iso_a3, "home": entry["iso_a2"] in home}
        countries.append((props, _clipped(outline_of(iso_a3), bounds)))
        if entry["iso_a2"] in home:
            for name, geom in admin1_of(iso_a3):
                if geom.intersects(drawn):
                    divisions.append(({"name": name}, _clipped(geom, bounds)))
    frame = [[bounds[1], bounds[0]], [bounds[3], bounds[2]]]
    return Region(_collection(countries), _collection(divisions), _town_labels(bounds), frame)
