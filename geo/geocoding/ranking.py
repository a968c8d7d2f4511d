"""How the offline geocoder ranks what it finds: candidates by match score, the bias country
and each place's weight, the best kept, and ties far apart told rather than hidden."""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, replace
from typing import Any

from geo.geocoding import gazetteer
from geo.geocoding.geodesy import haversine_km

METHODS = ("exact", "alias", "skeleton", "fuzzy")
EXACT, ALIAS, SKELETON, FUZZY = range(4)
PHRASE, REVERSE = "phrase", "reverse"
BIAS_BONUS = 0.1
"""Added to the score of a place in the bias country (and of a country) when ranking (a
primary-name match abroad scores 1.0, an alternate-name match 0.98: the bias outweighs that
difference, not a poor match)."""
WEIGHT_FACTOR = 0.005
"""Times an entry's weight (log10 population + kind bonus) when ranking: a tie-breaker."""
TIE_DISTANCE_KM = 15.0
TIE_WEIGHT = 1.0
"""Two candidates tie when they match equally well, share the country bias, lie farther apart
than TIE_DISTANCE_KM and their weights differ by less than TIE_WEIGHT (10 times the population)."""
KEEP = 6
"""How many of the best candidates of a tier are kept (the answer and its possible rivals)."""


@dataclass(slots=True)
class Candidate:
    """One possible answer: a gazetteer entry (or a derived point) and how well it matched."""

    entry: int
    score: float
    method: str
    matched_name: str
    rank: float = 0.0
    latitude: float = math.nan
    longitude: float = math.nan
    name: str = ""
    kind: str = ""
    precision: str = ""
    extra: dict[str, Any] | None = None


@dataclass(frozen=True)
class Hits:
    """Matches of one tier, side by side: entry, score, key matched and how."""

    entries: list[int]
    scores: list[float]
    keys: list[int]
    methods: list[int]


class Ranking:
    """The ranking of one geocoder: its gazetteer and its bias country (None: no bias)."""

    def __init__(self, places: gazetteer.Gazetteer, country_bias: str | None) -> None:
        self.places, self.country_bias = places, country_bias
        self._prior_list: tuple[float, ...] | None = None

    def best(self, hits: Hits, codes: frozenset[str]) -> list[Candidate]:
        """The KEEP best hits as candidates, best first (one per entry)."""
        places = self.places
        country, prior = places.country_codes, self.prior()
        scores = hits.scores
        if len(scores) == 1:  # the common case, spelled out for speed
            entry, method = hits.entries[0], hits.methods[0]
            if codes and country[entry] not in codes:
                return []
            written = places.names[entry] if method == EXACT else places.written[hits.keys[0]]
            return [Candidate(entry, scores[0], METHODS[method], written, scores[0] + prior[entry])]
        ranked = [
            (scores[i] + prior[entry], i)
            for i, entry in enumerate(hits.entries)
            if not codes or country[entry] in codes
        ]
        if len(ranked) > 4 * KEEP:
            ranked = heapq.nlargest(4 * KEEP, ranked)
        if len(ranked) > 1:
            ranked.sort(key=lambda item: item[0], reverse=True)
        chosen: list[Candidate] = []
        seen: set[int] = set()
        for rank, i in ranked:
            entry, method = hits.entries[i], hits.methods[i]
            if entry in seen:
                continue
            seen.add(entry)
            written = places.names[entry] if method == EXACT else places.written[hits.keys[i]]
            chosen.append(Candidate(entry, hits.scores[i], METHODS[method], written, rank))
            if len(chosen) == KEEP:
                break
        return chosen

    # Per-entry columns as tuples: quick to index, and tuples of numbers escape the garbage
    # collector's passes, where lists of 235,000 items would be walked on every full pass.

    def weights(self) -> tuple[float, ...]:
        return self.places.derived("weights", lambda g: tuple(g.weights.tolist()))

    def prior(self) -> tuple[float, ...]:
        """Per entry, what ranking adds to the match score: the bias bonus and the weight."""
        if self._prior_list is not None:
            return self._prior_list
        bias = self.country_bias

        def prior(places: gazetteer.Gazetteer) -> tuple[float, ...]:
            weights = self.weights()
            return tuple(
                WEIGHT_FACTOR * weight + (BIAS_BONUS if code == bias or kind == "country" else 0.0)
                for weight, code, kind in zip(
                    weights, places.country_codes, places.kinds, strict=True
                )
            )

        self._prior_list = self.places.derived(f"prior:{bias}", prior)
        return self._prior_list

    def merge(self, first: list[Candidate], second: list[Candidate]) -> list[Candidate]:
        everything = [replace(c, rank=self.rank(c)) for c in (*first, *second)]
        return sorted(everything, key=lambda c: c.rank, reverse=True)[:KEEP]

    def rank(self, candidate: Candidate) -> float:
        bonus = BIAS_BONUS if self.biased(candidate.entry) else 0.0
        weight = self.weights()[candidate.entry] if candidate.entry >= 0 else 0.0
        return float(candidate.score + bonus + WEIGHT_FACTOR * weight)

    def biased(self, entry: int) -> bool:
        """Whether the entry gets the bias bonus: it is in the bias country, or it is a country
        (whose name is news everywhere: "Russia" in a report about Ukraine is no village there
        that has it for another name)."""
        if entry < 0 or self.country_bias is None:
            return False
        places = self.places
        return places.country_codes[entry] == self.country_bias or places.kinds[entry] == "country"

    def resolved(self, candidate: Candidate) -> Candidate:
        """The candidate with its coordinates, name and kind filled in from its entry."""
        if not math.isnan(candidate.latitude):
            return candidate
        places, entry = self.places, candidate.entry
        return replace(
            candidate,
            latitude=float(places.latitudes[entry]),
            longitude=float(places.longitudes[entry]),
            name=places.names[entry],
            kind=places.kinds[entry],
            precision=places.precisions[entry],
        )

    def ties(self, first: Candidate, others: list[Candidate]) -> list[Candidate]:
        """The other candidates as good as the first, far from it: a tie is never hidden."""
        weight = self.weights()
        rivals = []
        for other in others:
            if round(other.score, 2) != round(first.score, 2):
                continue
            if self.biased(other.entry) != self.biased(first.entry) or other.entry < 0:
                continue
            if first.entry >= 0 and weight[first.entry] - weight[other.entry] >= TIE_WEIGHT:
                continue
            resolved = self.resolved(other)
            apart = haversine_km(
                first.latitude, first.longitude, resolved.latitude, resolved.longitude
            )
            if apart > TIE_DISTANCE_KM:
                rivals.append(resolved)
        return rivals
