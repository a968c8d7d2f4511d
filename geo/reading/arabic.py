"""The reader of reports in Arabic: most of their letters Arabic."""

from __future__ import annotations

from datetime import date

from geo.geocoding import OfflineGeocoder
from geo.reading.arabic_figures import find_figures
from geo.reading.arabic_figures import noun_kind as arabic_noun_kind
from geo.reading.arabic_movements import find_convoys
from geo.reading.arabic_places import find_places
from geo.reading.arabic_script import is_arabic, sentences
from geo.reading.arabic_times import find_times
from geo.reading.base import Reader
from geo.reading.mentions import Extraction, PlaceMention, Skipped


class ArabicReader(Reader):
    """Reads Arabic news copy; places at home are the geocoder's country bias."""

    language = "Arabic"

    def detects(self, text: str) -> bool:
        return is_arabic(text)

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
        places = find_places(text, geocoder)
        figures = find_figures(found, skipped)
        times = find_times(text, published)
        convoys = find_convoys(found, places, figures, times)
        return Extraction(places, figures, times, convoys, skipped, homes)

    def places(self, text: str, geocoder: OfflineGeocoder) -> list[PlaceMention]:
        return find_places(text, geocoder)

    def noun_kind(self, what: str) -> str:
        return arabic_noun_kind(what)
