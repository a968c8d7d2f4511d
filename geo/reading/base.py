"""The interface every report language's reader answers: tell its text, read it, name a kind."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import date

from geo.geocoding import OfflineGeocoder
from geo.reading.mentions import Extraction, PlaceMention


class Reader(ABC):
    """A reader of reports in one language (or script): one per file, registered in
    `geo.reading.report.READERS`, chosen once per text by `detects`."""

    language: str = ""
    """What the reader reads, for people: 'English', 'Arabic'."""

    @abstractmethod
    def detects(self, text: str) -> bool:
        """Whether `text` is written in this reader's language."""

    @abstractmethod
    def read(
        self,
        text: str,
        *,
        published: date | None,
        geocoder: OfflineGeocoder,
        homes: tuple[str, ...],
    ) -> Extraction:
        """The places, figures, times and convoy drafts of `text`, read into `homes` (the
        ISO 3166-1 codes of the countries the report is about, `geocoder` biased to the first);
        weekdays and dates are resolved against `published`."""

    @abstractmethod
    def places(self, text: str, geocoder: OfflineGeocoder) -> list[PlaceMention]:
        """The places of `text` read with no country assumed, to tell where a report is from."""

    def dateline(self, text: str, geocoder: OfflineGeocoder) -> str:
        """The country the report's dateline names ('' without one: by default there is none)."""
        return ""

    @abstractmethod
    def noun_kind(self, what: str) -> str:
        """'people', 'vehicles' or 'convoys' ('' for another): what a counted noun counts."""
