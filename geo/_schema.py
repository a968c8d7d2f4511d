"""The fields of each record type, and how raw rows become records and records become cells."""

from __future__ import annotations

import contextlib
import contextvars
import re
import zoneinfo
from collections.abc import Callable, Iterable, Iterator, MutableMapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum
from typing import Any

from shapely.geometry.base import BaseGeometry

from geo import _fields as f
from geo._countries import NEAR_KM, alpha2, in_country
from geo._fields import Field, Spot
from geo._geojson import geometry_problem
from geo.errors import ProblemLog
from geo.records import (
    CONVOY_COUNTS,
    Confidence,
    Control,
    ControlZone,
    Convoy,
    ConvoyStatus,
    Count,
    Event,
    Figure,
    FigureKind,
    Place,
    PlaceKind,
    PlacePrecision,
    Route,
    RoutePrecision,
    Source,
    TimePrecision,
    ZonePrecision,
)

Record = Source | Place | Convoy | Figure | Route | ControlZone | Event


@dataclass
class Known:
    """What a reader knows: the ids that references are checked against, and a geocoder."""

    sources: set[str] = field(default_factory=set)
    places: set[str] = field(default_factory=set)
    convoys: set[str] = field(default_factory=set)
    locate: Callable[[str, str], Any] | None = None
    """(name, country code) → a geopy Location or None: places without coordinates use it."""


def country_code(value: object) -> str:
    """A two-letter ISO 3166-1 code; a three-letter one (HDX tables' SDN) as its two letters."""
    code = f.text(value).upper()
    code = alpha2(code) or code if len(code) == 3 else code
    if len(code) != 2 or not code.isalpha():
        raise f.FieldError("a two-letter ISO 3166-1 country code such as SY (or SYR)")
    return code


def country_codes(value: object) -> tuple[str, ...]:
    """Country codes as a list, or as text separated by ';' or ',' ("SD;TD"): each as
    `country_code` reads it, in their order, without repeats."""
    parts = value if isinstance(value, list | tuple) else re.split(r"[;,]", f.text(value))
    codes = [country_code(part) for part in parts if not f.is_blank(part)]
    return tuple(dict.fromkeys(codes))


def time_zone(value: object) -> str:
    name = f.text(value)
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise f.FieldError("an IANA time zone name such as Asia/Damascus") from None
    return name


def source_fields(known: Known) -> list[Field]:
    return [
        Field("id", f.identifier),
        Field("title", f.text),
        Field("publisher", f.text),
        Field("published", f.day),
        Field("url", f.web_address, required=False),
        Field("licence", f.text, required=False),
        Field("note", f.text, required=False),
    ]


def place_fields(known: Known) -> list[Field]:
    return [
        Field("id", f.identifier),
        Field("name", f.text),
        Field("aliases", f.split_list, required=False),
        Field("kind", f.choice(PlaceKind)),
        Field("latitude", f.number(-90, 90), required=False),
        Field("longitude", f.number(-180, 180), required=False),
        Field("admin1", f.text, required=False),
        Field("country_code", country_code),
        Field("precision", f.choice(PlacePrecision)),
        Field("source", f.references(known.sources, "source")),
        Field("quote", f.text, required=False),
    ]


def convoy_fields(known: Known) -> list[Field]:
    place = f.reference(known.places, "place in places.csv")
    counts = [Field(name, f.count, required=False) for name in CONVOY_COUNTS]
    return [
        Field("id", f.identifier),
        Field("label", f.text),
        Field("origin", place, required=False),
        Field("destination", place),
        Field("via", f.references(known.places, "place in places.csv"), required=False),
        Field("depart", f.moment, required=False),
        Field("arrive", f.moment, required=False),
        Field("time_precision", f.choice(TimePrecision)),
        Field("status", f.choice(ConvoyStatus)),
        *counts,
        Field("organisation", f.text, required=False),
        Field("source", f.references(known.sources, "source")),
        Field("quote", f.text),
        Field("confidence", f.choice(Confidence)),
    ]


def figure_fields(known: Known) -> list[Field]:
    return [
        Field("id", f.identifier),
        Field("kind", f.choice(FigureKind)),
        Field("what", f.text),
        Field("count", f.count),
        Field("place", f.reference(known.places, "place in places.csv")),
        Field("reported", f.moment),
        Field("attribution", f.text, required=False),
        Field("source", f.references(known.sources, "source")),
        Field("quote", f.text),
    ]


def route_fields(known: Known) -> list[Field]:
    place = f.reference(known.places, "place in places.csv")
    return [
        Field("id", f.identifier),
        Field("convoy", f.reference(known.convoys, "convoy in convoys.csv")),
        Field("leg", f.positive_integer),
        Field("from", place, attribute="from_place"),
        Field("to", place, attribute="to_place"),
        Field("precision", f.choice(RoutePrecision)),
        Field("source", f.references(known.sources, "source")),
        Field("quote", f.text, required=False),
    ]


def zone_fields(known: Known) -> list[Field]:
    return [
        Field("id", f.identifier),
        Field("name", f.text),
        Field("control", f.choice(Control)),
        Field("holder", f.text),
        Field("valid_from", f.moment),
        Field("valid_to", f.moment, required=False),
        Field("precision", f.choice(ZonePrecision)),
        Field("source", f.references(known.sources, "source")),
        Field("quote", f.text, required=False),
    ]


def event_fields(known: Known) -> list[Field]:
    return [
        Field("id", f.identifier),
        Field("date", f.day),
        Field("event_type", f.text),
        Field("sub_event_type", f.text, required=False),
        Field("actor1", f.text, required=False),
        Field("actor2", f.text, required=False),
        Field("location", f.text, required=False),
        Field("admin1", f.text, required=False),
        Field("country", f.text, required=False),
        Field("latitude", f.number(-90, 90)),
        Field("longitude", f.number(-180, 180)),
        Field("geo_precision", f.level(1, 3), required=False),
        Field("time_precision", f.level(1, 3), required=False),
        Field("fatalities", f.whole_number, required=False),
        Field("notes", f.text, required=False),
        Field("reported_by", f.text, required=False),
        Field("source", f.references(known.sources, "source")),
    ]


Check = Callable[[Any], Iterable[tuple[str, str, object, bool]]]
"""A record check yields (field, expected, actual, is_warning) for each problem."""


def check_place(place: Place) -> Iterable[tuple[str, str, object, bool]]:
    if in_country(place.country_code, place.latitude, place.longitude) is not False:
        return
    where = f"{place.latitude:g}, {place.longitude:g}"
    country = place.country_code
    if in_country(country, place.longitude, place.latitude):
        yield (
            "latitude",
            f"a point in {country} (latitude and longitude look swapped)",
            where,
            True,
        )
    else:
        yield ("latitude", f"a point within {NEAR_KM:g} km of a town in {country}", where, True)


def complete_place(values: dict[str, Any], spot: Spot, log: ProblemLog, known: Known) -> bool:
    """Coordinates for a place row that has none, from the geocoder; False when impossible."""
    has = ("latitude" in values, "longitude" in values)
    if all(has):
        return True
    if any(has):
        missing = "longitude" if has[0] else "latitude"
        log.error(spot.file, spot.where, missing, "both coordinates, or neither (to geocode)", None)
        return False
    if known.locate is None:
        log.error(spot.file, spot.where, "latitude", "coordinates (geocoding is off here)", None)
        return False
    for name in (values["name"], *values.get("aliases", ())):
        location = known.locate(name, values["country_code"])
        if location is not None:
            break
    else:
        expected = (
            f"a name the offline gazetteer knows in {values['country_code']} (no coordinates)"
        )
        log.error(spot.file, spot.where, "name", expected, values["name"])
        return False
    values["latitude"], values["longitude"] = location.latitude, location.longitude
    log.warn(spot.file, spot.where, "latitude", _geocoded(name, location), None)
    return True


def _geocoded(name: str, location: Any) -> str:
    raw = location.raw
    text = (
        f"coordinates, so {name!r} was geocoded: {raw['name']} ({raw['id']}), "
        f"{location.latitude:.5f}, {location.longitude:.5f}, score {raw['score']:.2f}"
    )
    rivals = [f"{other['name']} ({other['country_code']})" for other in raw.get("alternatives", [])]
    if rivals:
        text += f"; AMBIGUOUS, also: {', '.join(rivals)}"
    return text + ("; UNCERTAIN" if raw.get("uncertain") else "")


def check_convoy(convoy: Convoy) -> Iterable[tuple[str, str, object, bool]]:
    if convoy.depart and convoy.arrive and convoy.arrive <= convoy.depart:
        yield (
            "arrive",
            f"a time after depart ({convoy.depart.isoformat()})",
            convoy.arrive.isoformat(),
            False,
        )
    if convoy.origin and convoy.origin == convoy.destination:
        yield "destination", "a place other than the origin", convoy.destination, False


def check_zone(zone: ControlZone) -> Iterable[tuple[str, str, object, bool]]:
    if zone.valid_to and zone.valid_to <= zone.valid_from:
        yield (
            "valid_to",
            f"a time after valid_from ({zone.valid_from.isoformat()})",
            zone.valid_to.isoformat(),
            False,
        )


@dataclass(frozen=True)
class Kind:
    """A record type: its class, fields, allowed geometry types and extra checks."""

    name: str
    record: type
    fields: Callable[[Known], list[Field]]
    geometry: tuple[str, ...] = ()
    check: Check | None = None
    complete: Callable[[dict[str, Any], Spot, ProblemLog, Known], bool] | None = None


SOURCES = Kind("sources", Source, source_fields)
PLACES = Kind("places", Place, place_fields, check=check_place, complete=complete_place)
CONVOYS = Kind("convoys", Convoy, convoy_fields, check=check_convoy)
FIGURES = Kind("figures", Figure, figure_fields)
ROUTES = Kind("routes", Route, route_fields, geometry=("LineString",))
EVENTS = Kind("events", Event, event_fields)
ZONES = Kind(
    "zones", ControlZone, zone_fields, geometry=("Polygon", "MultiPolygon"), check=check_zone
)


@dataclass(frozen=True)
class RawRecord:
    """A row or feature before parsing: where it is, its cells, and its geometry if any."""

    spot: Spot
    cells: dict[str, Any]
    geometry: BaseGeometry | None = None


def build(
    kind: Kind,
    raws: Sequence[RawRecord],
    known: Known,
    log: ProblemLog,
    *,
    seen: MutableMapping[str, str] | None = None,
) -> list[Any]:
    """Parse every raw row into a record; log each problem; keep every valid record.

    `seen`: the ids of rows built before (a file read in chunks), with where each was; an id
    used again is refused as within one call, and every id built is added to it."""
    fields = kind.fields(known)
    records: list[Any] = []
    seen = {} if seen is None else seen
    memo = f.Memo()
    for raw in raws:
        values = f.parse_fields(raw.cells, fields, raw.spot, log, memo)
        geometry_ok = _geometry_ok(kind, raw, log)
        if values is None or not geometry_ok or not _unique(values, raw, seen, log):
            continue
        if kind.complete and not kind.complete(values, raw.spot, log, known):
            continue
        if kind.geometry:
            values["geometry"] = raw.geometry
        record = kind.record(**values)
        if _checked(kind, record, raw.spot, log):
            records.append(record)
    return records


def recheck(kind: Kind, records: Sequence[Any], known: Known, file: str, log: ProblemLog) -> bool:
    """Check records built earlier (an import's, checked against the scenario it read) against
    the ids known now: only their references can have gone stale. Logs each problem (at
    ``id …`` in `file`); True when none."""
    fields = [spec for spec in kind.fields(known) if isinstance(spec.parse, f.Reference)]
    refused = {spec.name: _refused(spec, records) for spec in fields}
    if not any(refused.values()):
        return True
    for record in records:
        for spec in fields:
            value = _cell(getattr(record, spec.key))
            if value in refused[spec.name]:
                log.error(file, f"id {record.id!r}", spec.name, refused[spec.name][value], value)
    return False


def _refused(spec: f.Field, records: Sequence[Any]) -> dict[Any, str]:
    """Each value of a reference field the records hold that its check refuses, with why; each
    value checked once (300,000 places citing one source were checked 300,000 times)."""
    values = {_cell(getattr(record, spec.key)) for record in records}
    refused = {}
    for value in values - {None, ""}:
        try:
            spec.parse(value)
        except f.FieldError as error:
            refused[value] = str(error)
    return refused


def _geometry_ok(kind: Kind, raw: RawRecord, log: ProblemLog) -> bool:
    if not kind.geometry:
        return True
    if raw.geometry is None:
        return False  # already reported by the reader
    problem = geometry_problem(raw.geometry, kind.geometry)
    if problem:
        log.error(raw.spot.file, raw.spot.where, "geometry", *problem)
        return False
    return True


def _unique(
    values: dict[str, Any], raw: RawRecord, seen: MutableMapping[str, str], log: ProblemLog
) -> bool:
    record_id = values["id"]
    if record_id in seen:
        log.error(
            raw.spot.file,
            raw.spot.where,
            "id",
            f"a unique id (also used at {seen[record_id]})",
            record_id,
        )
        return False
    seen[record_id] = raw.spot.where
    return True


def _checked(kind: Kind, record: Any, spot: Spot, log: ProblemLog) -> bool:
    ok = True
    for name, expected, actual, warning in kind.check(record) if kind.check else ():
        if warning:
            log.warn(spot.file, spot.where, name, expected, actual)
        else:
            log.error(spot.file, spot.where, name, expected, actual)
            ok = False
    return ok


def raw_ids(raws: Iterable[RawRecord]) -> set[str]:
    """Every id that looks like one, so that one bad row does not cascade into reference errors."""
    ids = set()
    for raw in raws:
        try:
            ids.add(f.identifier(raw.cells.get("id")))
        except f.FieldError:
            continue
    return ids


def to_cells(record: Record, kind: Kind) -> dict[str, Any]:
    """A record as cells keyed by field name: text, numbers, and datetimes/dates as they are."""
    kept = _MADE.get()
    if kept is not None:
        made = kept.get(id(record))
        if made is not None and made[0] is record:
            return dict(made[1])
    cells = {}
    for name, key in _cell_keys(kind):
        value = getattr(record, key)
        cells[name] = value if type(value) in _AS_THEY_ARE else _cell(value)
    if kept is None:
        return cells
    kept[id(record)] = (record, cells)
    return dict(cells)


_MADE: contextvars.ContextVar[dict[int, tuple[Any, dict[str, Any]]] | None] = (
    contextvars.ContextVar("cells_made", default=None)
)
"""Cells made within `cells_kept`, by record (per thread: Streamlit serves each session from
its own thread)."""


@contextlib.contextmanager
def cells_kept() -> Iterator[None]:
    """Within this block, each record's cells are made once (a large import's commit made
    them four times: for the log, the workspace, the dump and the check)."""
    token = _MADE.set(_MADE.get() if _MADE.get() is not None else {})
    try:
        yield
    finally:
        _MADE.reset(token)


_CELL_KEYS: dict[Kind, list[tuple[str, str]]] = {}
_AS_THEY_ARE = frozenset({str, int, float, type(None)})
"""Cell values kept as they are, tested first by their exact type (most cells are these)."""


def _cell_keys(kind: Kind) -> list[tuple[str, str]]:
    """Each field's cell name and record attribute, for a kind (made once: building the field
    list for every record cost a third of a large import's commit)."""
    if kind not in _CELL_KEYS:
        _CELL_KEYS[kind] = [(spec.name, spec.key) for spec in kind.fields(Known())]
    return _CELL_KEYS[kind]


def _cell(value: object) -> object:
    if value is None or type(value) in _AS_THEY_ARE:
        return value
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, Count):
        return str(value)
    if isinstance(value, tuple):
        return f.LIST_SEPARATOR.join(value)
    if isinstance(value, datetime | date | int | float | str):
        return value
    raise TypeError(f"no cell form for {type(value).__name__}")


def field_names(kind: Kind) -> list[str]:
    return [spec.name for spec in kind.fields(Known())]
