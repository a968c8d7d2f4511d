"""What a report is read into: places, figures, times and convoy drafts, and what was skipped."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

NOUN_KINDS = ("people", "vehicles", "convoys")
"""What a figure can count, as its reader read the noun after it."""


@dataclass(frozen=True)
class PlaceMention:
    """A place the report names: where in the text, and the gazetteer entry it was read as."""

    mention: str
    start: int
    end: int
    name: str
    latitude: float
    longitude: float
    country_code: str
    kind: str
    precision: str
    score: float
    id: str = ""


@dataclass(frozen=True)
class FigureMention:
    """A number that counts people or vehicles: its value or range, hedge, noun and source."""

    what: str
    qualifier: str | None
    sentence: str
    attribution: str
    start: int
    end: int
    value: int | None = None
    low: int | None = None
    high: int | None = None
    kind: str = ""
    """One of NOUN_KINDS, as the figure's reader read its noun ('' for a figure no reader
    made, such as one written by hand: `geo.reading.noun_kind` then reads its words)."""


@dataclass(frozen=True)
class TimeMention:
    """A weekday, clock time or date the report gives, resolved where it can be."""

    text: str
    start: int
    end: int
    kind: str  # weekday, clock, date
    date: str = ""
    local_time: str = ""
    utc_time: str = ""


@dataclass(frozen=True)
class ConvoyDraft:
    """A sentence about a movement, with the places, counts and time it gives, for review."""

    sentence: str
    start: int
    origin: str = ""
    destination: str = ""
    via: list[str] = field(default_factory=list)
    vehicles: list[str] = field(default_factory=list)
    people: list[str] = field(default_factory=list)
    time: str = ""


@dataclass(frozen=True)
class Skipped:
    """Something that looked like a place, figure, time or convoy but could not be read."""

    kind: str
    text: str
    start: int
    reason: str


@dataclass(frozen=True)
class Extraction:
    """Everything one report was read into."""

    places: list[PlaceMention]
    figures: list[FigureMention]
    times: list[TimeMention]
    convoys: list[ConvoyDraft]
    skipped: list[Skipped] = field(default_factory=list)
    homes: tuple[str, ...] = ()
    """The countries the report was read as being about (ISO 3166-1 codes)."""

    def to_json(self) -> dict[str, Any]:
        """The extraction as plain JSON: places, figures, times and convoy drafts."""
        figures = []
        for figure in self.figures:
            item = {
                k: v
                for k, v in asdict(figure).items()
                if (v is not None or k == "qualifier") and k != "kind"
            }
            figures.append(item)
        return {
            "places": [asdict(place) for place in self.places],
            "figures": figures,
            "times": [asdict(moment) for moment in self.times],
            "convoys": [asdict(convoy) for convoy in self.convoys],
            "skipped": [asdict(item) for item in self.skipped],
            "homes": list(self.homes),
        }
