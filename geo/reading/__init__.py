"""Reading reports: places, figures, times and convoy drafts in news text, one reader a language."""

from geo.reading.arabic_figures import parse_amount
from geo.reading.arabic_script import is_arabic
from geo.reading.base import Reader
from geo.reading.english_places import dateline_country
from geo.reading.mentions import (
    ConvoyDraft,
    Extraction,
    FigureMention,
    PlaceMention,
    Skipped,
    TimeMention,
)
from geo.reading.report import (
    READERS,
    extract,
    geocoder_for,
    is_people,
    is_vehicle,
    noun_kind,
    read_home,
    reader_for,
)
from geo.reading.rules import count_only

__all__ = [
    "READERS",
    "ConvoyDraft",
    "Extraction",
    "FigureMention",
    "PlaceMention",
    "Reader",
    "Skipped",
    "TimeMention",
    "count_only",
    "dateline_country",
    "extract",
    "geocoder_for",
    "is_arabic",
    "is_people",
    "is_vehicle",
    "noun_kind",
    "parse_amount",
    "read_home",
    "reader_for",
]
