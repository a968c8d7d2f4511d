"""Typed records of a scenario (sources, places, convoys, routes, zones, figures, events) and
convoys' position reports."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from typing import Any, TypeVar

from shapely.geometry import LineString, MultiPolygon, Polygon


class PlaceKind(StrEnum):
    COUNTRY = "country"
    REGION = "region"
    CITY = "city"
    TOWN = "town"
    VILLAGE = "village"
    DISTRICT = "district"
    CROSSING = "crossing"
    POINT = "point"


class PlacePrecision(StrEnum):
    EXACT = "exact"
    APPROXIMATE = "approximate"
    CENTROID = "centroid"


class RoutePrecision(StrEnum):
    APPROXIMATE = "approximate"
    TRACED = "traced"
    ROUTED = "routed"


class ZonePrecision(StrEnum):
    EXACT = "exact"
    APPROXIMATE = "approximate"


class TimePrecision(StrEnum):
    EXACT = "exact"
    APPROXIMATE = "approximate"
    ESTIMATED = "estimated"


class ConvoyStatus(StrEnum):
    PLANNED = "planned"
    UNDER_WAY = "under_way"
    ARRIVED = "arrived"
    HALTED = "halted"
    CANCELLED = "cancelled"


class Confidence(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Control(StrEnum):
    GOVERNMENT = "government"
    OPPOSITION = "opposition"
    BESIEGED = "besieged"
    CONTESTED = "contested"
    OTHER = "other"


class FigureKind(StrEnum):
    TRAPPED = "trapped"
    KILLED = "killed"
    WOUNDED = "wounded"
    EVACUATED = "evacuated"
    TO_BE_EVACUATED = "to_be_evacuated"
    DISPLACED = "displaced"
    OTHER = "other"


class Qualifier(StrEnum):
    ABOUT = "about"
    AT_LEAST = "at least"
    MORE_THAN = "more than"
    NEARLY = "nearly"
    UP_TO = "up to"
    FEWER_THAN = "fewer than"


QUALIFIER_WORDS: dict[str, Qualifier] = {
    "about": Qualifier.ABOUT,
    "around": Qualifier.ABOUT,
    "some": Qualifier.ABOUT,
    "approximately": Qualifier.ABOUT,
    "roughly": Qualifier.ABOUT,
    "at least": Qualifier.AT_LEAST,
    "more than": Qualifier.MORE_THAN,
    "over": Qualifier.MORE_THAN,
    "nearly": Qualifier.NEARLY,
    "almost": Qualifier.NEARLY,
    "up to": Qualifier.UP_TO,
    "at most": Qualifier.UP_TO,
    "fewer than": Qualifier.FEWER_THAN,
    "less than": Qualifier.FEWER_THAN,
}

_COUNT = re.compile(
    r"^(?:(?P<qualifier>[a-z]+(?: [a-z]+)?) )?"
    r"(?P<low>\d{1,3}(?:,\d{3})+|\d+)"
    r"(?:\s*[-\u2013]\s*(?P<high>\d{1,3}(?:,\d{3})+|\d+))?$"
)

COUNT_GRAMMAR = "a count such as '200', 'about 200', 'more than 40' or '1500-5000'"


@dataclass(frozen=True)
class Count:
    """A reported number: exact (low == high) or a range, with an optional qualifier."""

    low: int
    high: int
    qualifier: Qualifier | None = None

    def __post_init__(self) -> None:
        if self.low < 0 or self.high < self.low:
            raise ValueError(f"a count needs 0 <= low <= high, got {self.low}-{self.high}")

    @classmethod
    def parse(cls, text: str) -> Count:
        """Read '200', 'about 200', '1,500-5,000' or 'at least 4000'; ValueError otherwise."""
        match = _COUNT.match(" ".join(text.strip().lower().split()))
        if not match:
            raise ValueError(f"expected {COUNT_GRAMMAR}, got {text!r}")
        word = match["qualifier"]
        if word is not None and word not in QUALIFIER_WORDS:
            raise ValueError(f"unknown qualifier {word!r} in {text!r}")
        low = int(match["low"].replace(",", ""))
        high = int(match["high"].replace(",", "")) if match["high"] else low
        if high < low:
            raise ValueError(f"a range needs low <= high, got {text!r}")
        return cls(low, high, QUALIFIER_WORDS[word] if word else None)

    @property
    def is_range(self) -> bool:
        return self.low != self.high

    def __str__(self) -> str:
        number = f"{self.low}-{self.high}" if self.is_range else str(self.low)
        return f"{self.qualifier} {number}" if self.qualifier else number


@dataclass(frozen=True)
class Source:
    id: str
    title: str
    publisher: str
    published: date
    url: str = ""
    licence: str = ""
    note: str = ""


@dataclass(frozen=True)
class Place:
    id: str
    name: str
    kind: PlaceKind
    latitude: float
    longitude: float
    country_code: str
    precision: PlacePrecision
    source: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    admin1: str = ""
    quote: str = ""


@dataclass(frozen=True)
class Convoy:
    id: str
    label: str
    destination: str
    status: ConvoyStatus
    time_precision: TimePrecision
    confidence: Confidence
    source: tuple[str, ...]
    quote: str
    origin: str = ""
    via: tuple[str, ...] = ()
    depart: datetime | None = None
    arrive: datetime | None = None
    vehicles: Count | None = None
    buses: Count | None = None
    ambulances: Count | None = None
    people: Count | None = None
    civilians: Count | None = None
    wounded: Count | None = None
    fighters: Count | None = None
    organisation: str = ""


CONVOY_COUNTS = ("vehicles", "buses", "ambulances", "people", "civilians", "wounded", "fighters")


@dataclass(frozen=True)
class Route:
    id: str
    convoy: str
    leg: int
    from_place: str
    to_place: str
    precision: RoutePrecision
    source: tuple[str, ...]
    geometry: LineString
    quote: str = ""


@dataclass(frozen=True)
class ControlZone:
    id: str
    name: str
    control: Control
    holder: str
    valid_from: datetime
    precision: ZonePrecision
    source: tuple[str, ...]
    geometry: Polygon | MultiPolygon
    valid_to: datetime | None = None
    quote: str = ""


@dataclass(frozen=True)
class Figure:
    id: str
    kind: FigureKind
    what: str
    count: Count
    place: str
    reported: datetime
    source: tuple[str, ...]
    quote: str
    attribution: str = ""


@dataclass(frozen=True)
class Event:
    """A dated incident on the ground, such as one row of ACLED's export (not from the report)."""

    id: str
    date: date
    event_type: str
    latitude: float
    longitude: float
    source: tuple[str, ...]
    sub_event_type: str = ""
    actor1: str = ""
    actor2: str = ""
    location: str = ""
    admin1: str = ""
    country: str = ""
    fatalities: int = 0
    notes: str = ""
    reported_by: str = ""
    geo_precision: int | None = None
    time_precision: int | None = None


@dataclass(frozen=True)
class Scenario:
    """A whole scenario: its metadata and every record, as read from a folder or the workspace."""

    id: str
    title: str
    summary: str
    timezone: str
    start: datetime
    end: datetime
    disclaimer: str
    sources: tuple[Source, ...]
    places: tuple[Place, ...] = ()
    convoys: tuple[Convoy, ...] = ()
    figures: tuple[Figure, ...] = ()
    routes: tuple[Route, ...] = ()
    zones: tuple[ControlZone, ...] = ()
    events: Sequence[Event] = ()
    """A tuple, or an EventTable (columns: what a workspace and large scenarios load)."""
    countries: tuple[str, ...] = ()
    """The countries the scenario is about (ISO 3166-1 alpha-2, most first), as its author
    gave them; () to read them from its places (`geo.home.scenario_homes`)."""

    def place(self, place_id: str) -> Place:
        """The place with this id; KeyError when there is none."""
        for place in self.places:
            if place.id == place_id:
                return place
        raise KeyError(place_id)


@dataclass(frozen=True)
class Position:
    """One position report of a convoy."""

    convoy: str
    time: datetime
    """When the convoy was there; timezone-aware (the readers give UTC)."""
    latitude: float
    longitude: float
    speed_kmh: float | None = None
    """The speed the report itself gives, if any (from the vehicle's GPS, say)."""
    note: str = ""

    def __post_init__(self) -> None:
        if self.time.utcoffset() is None:
            raise ValueError(f"a position's time needs a UTC offset, got {self.time!r}")


R = TypeVar("R")


def from_checked_columns(kind: type[R], names: Sequence[str], columns: Iterable[Any]) -> list[R]:
    """Records of `kind` (a frozen dataclass) from columns of values already checked, one row
    each, their fields set as the dataclass sets them but without its per-field guard and
    `__post_init__` (a million events took 8.9 s through `Event(...)`, positions 2.4 s)."""
    made = []
    for values in zip(*columns, strict=True):
        record = _NEW(kind)
        record.__dict__.update(zip(names, values, strict=True))
        made.append(record)
    return made


_NEW = object.__new__
