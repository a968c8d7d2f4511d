"""The reader of reports in English (and any text no other reader detects)."""

from __future__ import annotations

import re
from datetime import date

from geo.geocoding import OfflineGeocoder
from geo.reading.base import Reader
from geo.reading.english_figures import find_figures
from geo.reading.english_movements import find_convoys
from geo.reading.english_places import dateline_country, find_places
from geo.reading.english_times import find_times
from geo.reading.english_words import noun_kind as english_noun_kind
from geo.reading.mentions import Extraction, PlaceMention, Skipped

_SENTENCE = re.compile(r"(?:[^.!?\n]|(?<=\d)\.(?=\d))+(?:[.!?]+[”\"']?|\n|$)")
"""A sentence ends at a full stop (not the one in '5.5 million'), a '!' or '?', or a line."""


def sentences(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) for every sentence of `text`."""
    return [(m.start(), m.group()) for m in _SENTENCE.finditer(text) if m.group().strip()]


class EnglishReader(Reader):
    """Reads English news copy; detects every text, so it is registered last."""

    language = "English"

    def detects(self, text: str) -> bool:
        return True

    def read(
        self,
        text: str,
        *,
        published: date | None,
        geocoder: OfflineGeocoder,
        homes: tuple[str, ...],
    ) -> Extraction:
        found = sentences(text)
        skipped: list[Skipped] = []
        places = find_places(text, geocoder, skipped, homes=frozenset(homes))
        figures = find_figures(found, skipped)
        times = find_times(text, published, skipped)
        convoys = find_convoys(found, places, figures, times, skipped)
        return Extraction(places, figures, times, convoys, skipped, homes)

    def places(self, text: str, geocoder: OfflineGeocoder) -> list[PlaceMention]:
        return find_places(text, geocoder, [], homes=frozenset())

    def dateline(self, text: str, geocoder: OfflineGeocoder) -> str:
        return dateline_country(text, geocoder)

    def noun_kind(self, what: str) -> str:
        return english_noun_kind(what)
