"""Online geocoding, opt-in: a geopy geocoder asked only when another finds nothing."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

import geopy.exc
from geopy.extra.rate_limiter import RateLimiter
from geopy.geocoders.base import DEFAULT_SENTINEL, Geocoder
from geopy.location import Location

from geo.errors import GeocodingUnavailableError
from geo.geocoding import names
from geo.settings import USER_AGENT

ONLINE = "online"
"""The `method` of an answer that came from the online geocoder."""
UNREACHABLE = (
    geopy.exc.GeocoderUnavailable,
    geopy.exc.GeocoderTimedOut,
    geopy.exc.GeocoderServiceError,
    OSError,
)


class Fallback(Geocoder):  # type: ignore[misc]
    """Ask `first`; where it finds nothing, ask `online`, rate-limited, each name only once.

    Like geopy's RateLimiter around a callable, this wraps any two geopy geocoders (Corridor's
    OfflineGeocoder and Nominatim, say) and is one itself. The online answers (and "no such
    place") are kept in `cache`, keyed ``provider:normalised name`` (the workspace's
    GeocodeCache keeps them across runs); a service that cannot be reached raises
    GeocodingUnavailableError naming it and the query, and nothing is cached.
    """

    def __init__(
        self,
        first: Geocoder,
        online: Geocoder,
        *,
        cache: MutableMapping[str, dict[str, Any] | None] | None = None,
        min_delay_seconds: float = 1.0,
    ) -> None:
        super().__init__(user_agent=USER_AGENT)
        self.first = first
        self.online = online
        self.cache: MutableMapping[str, dict[str, Any] | None] = {} if cache is None else cache
        self._ask: Callable[..., Any] = RateLimiter(
            online.geocode,
            min_delay_seconds=min_delay_seconds,
            max_retries=2,
            error_wait_seconds=min_delay_seconds * 2,
            swallow_exceptions=False,
        )

    def geocode(
        self,
        query: str,
        *,
        exactly_one: bool = True,
        timeout: Any = DEFAULT_SENTINEL,
        **options: Any,
    ) -> Location | list[Location] | None:
        """`first`'s answer (`options` go to it alone), else the online one."""
        found = self.first.geocode(query, exactly_one=exactly_one, timeout=timeout, **options)
        if found:
            return found
        return _as_answer(self._online_record(query, timeout), exactly_one)

    def reverse(self, query: Any, **options: Any) -> Location | list[Location] | None:
        """`first`'s reverse geocoding (nothing about a point is asked online)."""
        return self.first.reverse(query, **options)

    def _online_record(self, query: str, timeout: Any) -> dict[str, Any] | None:
        provider = type(self.online).__name__
        key = f"{provider}:{names.normalise(query)}"
        if key in self.cache:
            return self.cache[key]
        try:
            answer = self._ask(query, exactly_one=True, timeout=timeout)
        except UNREACHABLE as error:
            raise GeocodingUnavailableError(
                f"the online geocoder {provider} could not be reached for {query!r} "
                f"({type(error).__name__}: {error}); nothing offline matched either"
            ) from error
        record = _record(answer, provider)
        self.cache[key] = record
        return record


def nominatim(*, timeout: float = 10.0) -> Geocoder:
    """OpenStreetMap's Nominatim with Corridor's user agent and a timeout (opt-in only)."""
    from geopy.geocoders import Nominatim

    return Nominatim(user_agent=USER_AGENT, timeout=timeout)


def _record(answer: Any, provider: str) -> dict[str, Any] | None:
    """An online answer as the offline geocoder's Location.raw (approximate, scored 0.9)."""
    if answer is None:
        return None
    location = answer[0] if isinstance(answer, list) else answer
    return {
        "id": f"online:{provider}",
        "name": location.address,
        "country_code": "",
        "admin1": "",
        "kind": "point",
        "population": 0,
        "source": f"online:{provider}",
        "score": 0.9,
        "matched_name": location.address,
        "method": ONLINE,
        "precision": "approximate",
        "latitude": float(location.latitude),
        "longitude": float(location.longitude),
        "ambiguous": False,
        "uncertain": False,
    }


def _as_answer(
    record: dict[str, Any] | None, exactly_one: bool
) -> Location | list[Location] | None:
    if record is None:
        return None
    location = Location(record["name"], (record["latitude"], record["longitude"]), dict(record))
    return location if exactly_one else [location]
