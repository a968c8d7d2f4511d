"""Reading one report: its language's reader chosen once, its home countries, its figures' kinds."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from datetime import date

from geo.geocoding import OfflineGeocoder
from geo.reading.arabic import ArabicReader
from geo.reading.base import Reader
from geo.reading.english import EnglishReader
from geo.reading.mentions import Extraction, FigureMention

READERS: tuple[Reader, ...] = (ArabicReader(), EnglishReader())
"""Every report language's reader, asked in turn; English, which detects any text, is last."""


def reader_for(text: str) -> Reader:
    """The first reader of READERS that detects the language of `text`."""
    return next(reader for reader in READERS if reader.detects(text))


def extract(
    text: str,
    *,
    published: date | None = None,
    home: Iterable[str] = (),
    geocoder: OfflineGeocoder | None = None,
) -> Extraction:
    """Places, figures, times and convoy drafts found in `text` (offline; nothing is added).

    `home` holds the ISO 3166-1 codes of the countries the report is read into (a scenario's);
    without them no country is assumed: they are read from the report itself (`read_home`).
    Namesakes at home win over those abroad.
    """
    homes = tuple(code.upper() for code in home if code)
    if not homes and geocoder is not None and geocoder.country_bias:
        homes = (geocoder.country_bias,)
    homes = homes or read_home(text)
    geocoder = geocoder or geocoder_for(homes[0] if homes else None)
    return reader_for(text).read(text, published=published, geocoder=geocoder, homes=homes)


@functools.cache
def geocoder_for(country_bias: str | None) -> OfflineGeocoder:
    """The offline geocoder favouring `country_bias` (None: no country), one per process."""
    return OfflineGeocoder(country_bias=country_bias)


HOME_WINDOW = 4000
"""How much of a report's beginning is read to tell where it is from (its lead and dateline)."""
HOME_WEIGHTS = {"country": 1.0, "region": 1.0, "city": 1.0}
"""Votes of a place for its country; any other kind (town, village, district) counts half."""
DATELINE_VOTES = 2.0
SECOND_HOME_SHARE = 0.5
"""A second country is home too when it has half the first one's votes ("Gaza" and "Egypt")."""
SECOND_HOME_MIN = 1.5


def read_home(text: str) -> tuple[str, ...]:
    """The countries a report is about, most named first: its dateline's, then those whose
    countries, regions and towns its first paragraphs name, read without any country assumed.

    () when it names no place; at most two countries.
    """
    head = text[:HOME_WINDOW]
    geocoder = geocoder_for(None)
    reader = reader_for(head)
    votes: dict[str, float] = {}
    for place in reader.places(head, geocoder):
        weight = HOME_WEIGHTS.get(place.kind, 0.5)
        votes[place.country_code] = votes.get(place.country_code, 0.0) + weight
    dateline = reader.dateline(head, geocoder)
    if dateline:
        votes[dateline] = votes.get(dateline, 0.0) + DATELINE_VOTES
    return _ranked_homes(votes)


def _ranked_homes(votes: dict[str, float]) -> tuple[str, ...]:
    """The most voted country, and the second when it has enough of the first one's votes."""
    ranked = sorted((v, code) for code, v in votes.items() if code)
    ranked.sort(key=lambda vote: -vote[0])
    if not ranked:
        return ()
    (top, first), seconds = ranked[0], ranked[1:2]
    homes = [first]
    if seconds and seconds[0][0] >= max(SECOND_HOME_SHARE * top, SECOND_HOME_MIN):
        homes.append(seconds[0][1])
    return tuple(homes)


def noun_kind(figure: FigureMention) -> str:
    """What a figure counts: the kind its reader gave it, or for a figure no reader made (one
    written by hand), the kind the reader of its words' language reads its noun as."""
    return figure.kind or reader_for(figure.what).noun_kind(figure.what)


def is_vehicle(figure: FigureMention) -> bool:
    """Whether the figure counts vehicles (buses, ambulances, trucks; not convoys)."""
    return noun_kind(figure) == "vehicles"


def is_people(figure: FigureMention) -> bool:
    """Whether the figure counts people."""
    return noun_kind(figure) == "people"
