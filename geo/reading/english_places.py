"""English places: gazetteer names in news prose, offsets from them, and their evidence."""

from __future__ import annotations

import bisect
import csv
import functools
import itertools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from geo import geocoding
from geo.geocoding import OfflineGeocoder, names
from geo.geocoding.gazetteer_sources import CURATED_ID
from geo.geocoding.geodesy import haversine_km
from geo.reading.english_words import COUNT_NOUNS, STOPWORDS
from geo.reading.mentions import PlaceMention, Skipped
from geo.reading.rules import SPEECH, UNREADABLE, skip
from geo.reading.spoken_numbers import NUMBER
from geo.settings import DATA_DIR

NOT_PLACES_FILE = DATA_DIR / "reading" / "not-places.csv"
MASKED_KINDS = {"armed group", "organisation", "media"}

MAX_WORDS = 5
"""The longest place name looked for, in words."""

_WORD = re.compile(r"[^\W\d_](?:[\w'’ʿʾ`-]*\w)?")

_OFFSET = re.compile(
    rf"\b(?:(?:about|around|some|roughly|nearly|almost)\s+)?{NUMBER}\s*"
    r"(?:km|kilometres|kilometers|kilometre|kilometer|miles?)\b(?:\s*\([^)]*\))?\s+"
    r"(?:north|south|east|west|north-?east|north-?west|south-?east|south-?west)\s+of\s+"
    r"(?:the\s+(?:city|town|village)|[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)",
    re.IGNORECASE,
)


def find_places(
    text: str,
    geocoder: OfflineGeocoder,
    skipped: list[Skipped] | None = None,
    *,
    homes: frozenset[str] | None = None,
) -> list[PlaceMention]:
    """Every mention of a gazetteer place (longest match first), then offset phrases such as
    "five kilometres west of the city", which replace the names inside them.

    `homes`: the countries the report is about (default: the geocoder's bias); the dateline's
    country is always one."""
    words = list(_WORD.finditer(text))
    found: list[PlaceMention] = []
    masked = _masked(text, words)  # the words inside a group's, a body's or a channel's name
    covered = [word.start() in masked for word in words]  # and then inside a mention
    runs = _name_runs(words, geocoder)
    given = {geocoder.country_bias} if homes is None else set(homes)
    homes = frozenset(c for c in (*given, dateline_country(text, geocoder)) if c)
    for i, word in enumerate(words):
        if covered[i] or not _may_start_a_name(word.group()):
            continue
        for size in range(min(MAX_WORDS, runs[i]), 0, -1):
            if True in covered[i : i + size]:
                continue
            span = words[i : i + size]
            try:
                after = (
                    found[-1] if found and i > 0 and found[-1].end == words[i - 1].end() else None
                )
                mention = _place_at(text, words, i, size, geocoder, homes, after=after)
            except UNREADABLE as error:
                skip(skipped, "place", text[span[0].start() : span[-1].end()], span[0].start(),
                      error)  # fmt: skip
                continue
            if mention:
                found.append(mention)
                covered[i : i + size] = [True] * size
                break
    for match in _offsets(text):
        before = [p for p in found if p.end <= match.start()]
        offset = _offset_place(match, before, geocoder)
        if offset:
            found = [p for p in found if not (offset.start <= p.start < offset.end)]
            found.append(offset)
    found += _held_regions(text, found, geocoder, homes)
    found = _by_context(found, geocoder)
    found = _with_evidence(found, geocoder, homes)
    return sorted(found, key=lambda place: place.start)


_DATELINE = re.compile(
    r"^(?P<city>[A-Z][A-Z .'’-]+?)(?:,\s*(?P<country>[A-Z][a-z]+(?:\s[A-Z][a-z]+)?))?"
    r"(?:,\s*[A-Z][a-z]{2,8}\.?\s+\d{1,2},?\s+\d{4})?\s*\((?P<agency>[A-Za-z. ]{2,20})\)\s*[-–—]",
    re.MULTILINE,
)
"""'MADAYA, Syria (AFP) -', 'BEIRUT, Dec 22, 2016 (AFP) -', 'AMMAN (Reuters) -'."""


def dateline_country(text: str, geocoder: OfflineGeocoder) -> str:
    """The country a wire's dateline names or stands in ('' without a dateline, or when its
    place is no country or city the gazetteer knows)."""
    match = _DATELINE.search(text[:2000])
    if not match:
        return ""
    location: Any = geocoder.geocode(match["country"] or match["city"].title())
    if location is None or location.raw["kind"] not in ("country", "city"):
        return ""
    return str(location.raw["country_code"])


def _name_runs(words: list[re.Match[str]], geocoder: OfflineGeocoder) -> list[int]:
    """For each word, how many words from it on could belong to one name (at least 1).

    A name's later words are capitalised, or words that follow the first in some name of the
    gazetteer ('crossing', 'refugee camp', 'of'), and nothing but spaces stands between them;
    no longer span need be looked up.
    """
    inner = geocoder.gazetteer.derived("inner name words", _inner_words)
    runs = [1] * len(words)
    for i in range(len(words) - 2, -1, -1):
        word, before = words[i + 1].group(), words[i]
        namey = word[:1].isupper() or _word_key(word) in inner
        if namey and before.end() + 3 >= words[i + 1].start():
            runs[i] = runs[i + 1] + 1
    return runs


def _inner_words(gazetteer: Any) -> frozenset[str]:
    """Every word (as a name key) that follows the first word in some name's key."""
    return frozenset(word for key in gazetteer.keys if " " in key for word in key.split()[1:])


@functools.lru_cache(maxsize=65536)
def _word_key(word: str) -> str:
    return names.normalise(word)


_HELD_REGION = re.compile(
    r"\bthe\s+(?:rebel|opposition|insurgent|jihadist)[- ](?:held|controlled|dominated|run)\s+"
    r"(?P<part>north(?:-?west|-?east)?|south)(?!\w|-)(?!\s+of\b)",
    re.IGNORECASE,
)
_HELD_REGION_NAMES = {"north": "northern Syria", "northwest": "north-western Syria",
                      "northeast": "north-eastern Syria", "south": "southern Syria"}  # fmt: skip


def _held_regions(
    text: str, found: list[PlaceMention], geocoder: OfflineGeocoder, homes: frozenset[str]
) -> list[PlaceMention]:
    """'departed for the rebel-held north', 'to the north-west': the part of the country.

    Read only in reports about Syria (a home, and places there)."""
    if "SY" not in homes or not any(p.country_code == "SY" for p in found):
        return []
    taken = {p.start for p in found}
    regions = []
    for match in _HELD_REGION.finditer(text):
        name = _HELD_REGION_NAMES[match["part"].lower().replace("-", "")]
        location: Any = geocoder.geocode(name, country_codes=frozenset({"SY"}))
        if location is None or match.start() in taken:
            continue
        raw = location.raw
        regions.append(PlaceMention(
            match.group(), match.start(), match.end(), raw["name"], location.latitude,
            location.longitude, raw["country_code"], raw["kind"], "approximate", raw["score"],
            raw["id"],
        ))  # fmt: skip
    return regions


_UNIT_WORD = re.compile(r"(?i)(?:km|kilomet|mile)")


def _offsets(text: str) -> list[re.Match[str]]:
    """The offset phrases ('five kilometres west of the city'), looked for near a unit only."""
    found: list[re.Match[str]] = []
    for unit in _UNIT_WORD.finditer(text):
        if found and unit.start() < found[-1].end():
            continue
        match = _OFFSET.search(text, max(0, unit.start() - 40), unit.end() + 120)
        if match and match.start() <= unit.start() < match.end():
            found.append(match)
    return found


@functools.cache
def _not_places() -> tuple[re.Pattern[str], frozenset[str]]:
    """Names to mask (groups, organisations, media) and words never a place on their own."""
    with NOT_PLACES_FILE.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    phrases = sorted((r["phrase"] for r in rows if r["kind"] in MASKED_KINDS), key=len,
                     reverse=True)  # fmt: skip
    spelled = (r"[-\s]+".join(re.escape(part) for part in re.split(r"[-\s]+", p)) for p in phrases)
    # an apostrophe inside a word is the word's ("Sana'a" is no SANA), a possessive is not
    mask = re.compile(
        r"(?<![\w'’])(?:" + "|".join(spelled) + r")(?!\w|['’ʿ](?![sS]\b)\w)", re.IGNORECASE
    )
    words = frozenset(r["phrase"].lower() for r in rows if r["kind"] not in MASKED_KINDS)
    return mask, words


def _masked(text: str, words: list[re.Match[str]]) -> set[int]:
    """The offsets of the words inside an armed group's, organisation's or channel's name."""
    mask, _ = _not_places()
    covered: set[int] = set()
    starts = [word.start() for word in words]
    for match in mask.finditer(text):
        first = bisect.bisect_left(starts, match.start())
        last = bisect.bisect_left(starts, match.end())
        covered.update(starts[first:last])
    return covered


FAR_FROM_THE_STORY_KM = 400.0
"""A small place abroad this far from the report's places at home is a namesake, not news."""


def _with_evidence(
    found: list[PlaceMention], geocoder: OfflineGeocoder, homes: frozenset[str]
) -> list[PlaceMention]:
    """Places abroad kept only with evidence: a country, a region, a city, near the story,
    written as its own name, or in the country of the report's dateline.

    In a report about Syria, a Chinese village read from one of its alternate names is a
    namesake; Moscow, Turkey, a Lebanese border town or "a Srebrenica-style massacre" is news.
    """
    home = _distinct(p for p in found if p.country_code in homes
                     and p.kind not in ("country", "region"))  # fmt: skip
    if not home:
        return found
    kept = []
    for place in found:
        abroad = place.country_code not in homes
        if abroad and place.kind not in ("country", "region", "city"):
            distance = min(
                haversine_km(place.latitude, place.longitude, h.latitude, h.longitude) for h in home
            )
            own_name = names.normalise(place.mention) == names.normalise(place.name)
            if distance > FAR_FROM_THE_STORY_KM and not own_name:
                continue  # far away, and only one of its other names: no evidence
        kept.append(place)
    return kept


NEAR_CONTEXT_KM = 50.0
SAME_MATCH = 0.03
"""Candidates this close in match score fit the name equally well (an alias or the name)."""


def _by_context(found: list[PlaceMention], geocoder: OfflineGeocoder) -> list[PlaceMention]:
    """A name that fits several places equally well goes to the one near the text's others.

    "Hamidiyeh" in a report about Homs is the Homs district, not the town near Tartus: when
    another candidate matching as well (within SAME_MATCH) lies within NEAR_CONTEXT_KM of a
    place the text names elsewhere, and the first choice lies near none of them, it is swapped.
    """
    anchors = _distinct(p for p in found if p.kind not in ("country", "region"))
    resolved = []
    swapped: dict[tuple[str, str], PlaceMention | None] = {}  # a report repeats its names
    for place in found:
        if place.kind == "point" or not anchors:
            resolved.append(place)
            continue
        others = [a for a in anchors if a.name != place.name]
        if not others or _near(place.latitude, place.longitude, others):
            resolved.append(place)
            continue
        key = (place.mention, place.name)
        if key not in swapped:
            swapped[key] = _nearer_candidate(place, others, geocoder)
        better = swapped[key]
        resolved.append(replace(better, start=place.start, end=place.end) if better else place)
    return resolved


def _distinct(places: Iterable[PlaceMention]) -> list[PlaceMention]:
    """One mention per place name: distances to a place need not be measured twice."""
    return list({place.name: place for place in places}.values())


def _near(latitude: float, longitude: float, others: list[PlaceMention]) -> bool:
    return any(
        haversine_km(latitude, longitude, o.latitude, o.longitude) <= NEAR_CONTEXT_KM
        for o in others
    )


def _nearer_candidate(
    place: PlaceMention, others: list[PlaceMention], geocoder: OfflineGeocoder
) -> PlaceMention | None:
    candidates = geocoding.candidates(geocoder, place.mention)
    if not candidates:
        return None
    best = candidates[0].score
    for candidate in candidates[1:]:
        if best - candidate.score > SAME_MATCH or candidate.entry < 0:
            continue
        places = geocoder.gazetteer
        lat = float(places.latitudes[candidate.entry])
        lon = float(places.longitudes[candidate.entry])
        if _near(lat, lon, others):
            return replace(
                place, name=places.names[candidate.entry], latitude=lat, longitude=lon,
                country_code=places.country_codes[candidate.entry],
                kind=places.kinds[candidate.entry], precision=places.precisions[candidate.entry],
                id=places.ids[candidate.entry],
            )  # fmt: skip
    return None


def _may_start_a_name(word: str) -> bool:
    """Capitalised, a direction ("east Aleppo"), or an article before a capital ("al-Waer")."""
    if word[:1].isupper() or word.lower() in DIRECTIONS:
        return True
    return "-" in word[:4] and bool(_ARTICLE.match(word))


_ATTRIBUTIVE = re.compile(r"-(?:based|bound|born|run|backed|brokered|sponsored|allied|led)$")
"""A place made an adjective is still named: 'Britain-based', 'Ankara-backed rebels'."""
_ARTICLE = re.compile(r"(?:al|el|ad|an|ar|as|ash|at|az)-[A-Z]")


def _place_at(
    text: str,
    words: list[re.Match[str]],
    i: int,
    size: int,
    geocoder: OfflineGeocoder,
    homes: frozenset[str],
    *,
    after: PlaceMention | None = None,
) -> PlaceMention | None:
    """The place named by `size` words from the `i`th, if any (`after`: the place whose name
    the word before them ends)."""
    span = words[i : i + size]
    start, end = span[0].start(), span[-1].end()
    if text[end - 2 : end] in ("'s", "’s"):
        end -= 2  # "Syria's"
    attributive = _ATTRIBUTIVE.search(text, start, end)
    if attributive:
        end = attributive.start()  # "Britain-based", "Idlib-bound"
    mention = text[start:end]
    key = names.normalise(mention)
    phrase_like = span[0].group().lower() in DIRECTIONS or span[-1].group().lower() in SUFFIXES
    known = geocoder.gazetteer.position(key) is not None
    if not known and not phrase_like:
        return None  # first the cheapest test: most spans of words are no name at all
    if len(key.replace(" ", "")) < 3:
        return None
    if mention.lower() == mention != mention.upper():
        return None  # "the west coast of Leyte": words of the sentence, not New Zealand's region
    if any(text[a.end() : b.start()].strip(" \t") for a, b in itertools.pairwise(span)):
        return None  # a name does not run over a line's end or a comma
    if not _looks_like_a_name(text, words, i, span, known=known):
        return None
    _, never = _not_places()
    if all(word.group().lower() in STOPWORDS or word.group().lower() in COUNT_NOUNS
           or word.group().lower() in never for word in span):  # fmt: skip
        return None
    candidates = geocoding.candidates(geocoder, mention)
    at_home = _at_another_home(candidates, geocoder, homes)
    if at_home is not None:
        candidates = [at_home]  # a name of the report's second country, not one abroad
    if not candidates or not _trusted(candidates[0], geocoder, homes):
        return None
    opening = i == 0 or (
        _sentence_start(text, words[i - 1].end(), span[0].start())
        and not _variant_in_brackets(
            text, words[i - 1], span[0].start(), after, candidates[0], geocoder
        )
    )
    if opening and not _well_known(candidates[0], geocoder, homes):
        return None  # "Buses left…": a capital at a sentence's start says nothing
    if opening and size == 1 and _only_alike(mention, candidates[0], geocoder):
        return None  # "About 300…", "Police said…": an English word, not the village "Abut"
    if size == 1 and _is_demonym(mention, geocoder):
        return None  # "Haitians", "Sudanese": people of a country, not a place
    if _A_UNIT.match(text, end):
        return None  # "the Azov regiment", "the Idlib brigade": a unit named after a place
    part_of = _PART_OF.match(text, end) or (
        _PART_WORD.fullmatch(mention.rsplit(" ", 1)[-1]) and _OF_A_NAME.match(text, end)
    )
    if part_of and homes and _abroad(candidates[0], geocoder, homes):
        return None  # "the Cheremushki district of Osh": a part of a town at home, not Moscow's
    if _AIRCRAFT.match(text, end) and not _well_known(candidates[0], geocoder, homes):
        return None  # "Hercules transport planes", "Chinook helicopters": a model, no place
    if _NUMBERED.match(text, end) and not _well_known(candidates[0], geocoder, homes):
        return None  # "Kilo 16", "Gate 4": a milestone or a gate, not a namesake abroad
    if size == 1 and _AGED.match(text, end) and not _well_known(candidates[0], geocoder, homes):
        return None  # "said Olena, 61, who ...": a person and her age, not the village Olaine
    speaks = re.match(rf"\s+{SPEECH}\b", text[end : end + 16])
    if speaks and size == 1 and not _well_known(candidates[0], geocoder, homes):
        return None  # "Kerry told reporters": a person; "Moscow says" stays a place
    if at_home is not None:
        return _entry_mention(mention, start, end, at_home, geocoder)
    location: Any = geocoder.geocode(mention)
    if location is None:
        return None
    raw = location.raw
    return PlaceMention(
        mention, start, end, raw["name"], location.latitude, location.longitude,
        raw["country_code"], raw["kind"], raw["precision"], raw["score"], raw["id"],
    )  # fmt: skip


def _at_another_home(
    candidates: list[Any], geocoder: OfflineGeocoder, homes: frozenset[str]
) -> Any | None:
    """When the first choice is abroad (but no country or region) or not to be trusted, a name
    of one of the report's homes that matches as well (within SAME_MATCH) as the best name:
    the geocoder favours one country, and a report may have two (in a report about Sudan and
    Chad, "Adre" is the Chadian border town, not a Syrian namesake; a town's other spelling is
    that town, not a French village of the same name nor a look-alike by its consonants)."""
    if not candidates or candidates[0].entry < 0:
        return None
    places = geocoder.gazetteer
    first = candidates[0].entry
    abroad = places.country_codes[first] not in homes
    if _trusted(candidates[0], geocoder, homes) and not (
        abroad and places.kinds[first] not in ("country", "region")
    ):
        return None
    named = [c for c in candidates if c.entry >= 0 and c.method in ("exact", "alias")]
    if not named:
        return None
    best = max(c.score for c in named)
    for candidate in named:
        if best - candidate.score <= SAME_MATCH and places.country_codes[candidate.entry] in homes:
            return candidate
    return None


def _entry_mention(
    mention: str, start: int, end: int, candidate: Any, geocoder: OfflineGeocoder
) -> PlaceMention:
    """The mention of a gazetteer entry chosen among the candidates, as geocode would give it."""
    places, entry = geocoder.gazetteer, candidate.entry
    return PlaceMention(
        mention, start, end, places.names[entry], float(places.latitudes[entry]),
        float(places.longitudes[entry]), places.country_codes[entry], places.kinds[entry],
        places.precisions[entry], candidate.score, places.ids[entry],
    )  # fmt: skip


_A_UNIT = re.compile(
    r"[ \t]+(?:regiment|battalion|brigades?|corps|militia|legion|division|detachment)\b",
    re.IGNORECASE,
)

_PART_WORD = re.compile(r"(?i:district|neighbou?rhood|quarter|suburb|ward|township)")
_OF_A_NAME = re.compile(r"[ \t]+of[ \t]+[A-Z]")
_PART_OF = re.compile(rf"[ \t]+{_PART_WORD.pattern}{_OF_A_NAME.pattern}")
"""'the Cheremushki district of Osh': a part of the named town, so in the report's country."""


def _abroad(candidate: Any, geocoder: OfflineGeocoder, homes: frozenset[str]) -> bool:
    return candidate.entry >= 0 and geocoder.gazetteer.country_codes[candidate.entry] not in homes


_AIRCRAFT = re.compile(
    r"[ \t]+(?:transport[ \t]+|cargo[ \t]+)?(?:planes?|aircraft|helicopters?|jets?)\b",
    re.IGNORECASE,
)


def _letters(name: str) -> str:
    """The name's letters only: no case, marks, apostrophes, hyphens or spaces."""
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    return "".join(c for c in decomposed if c.isalnum())


def _only_alike(mention: str, candidate: Any, geocoder: OfflineGeocoder) -> bool:
    """A word matched to a village only through its match key, not as it is written: at a
    sentence's start such a word is the sentence's, not a place's (a town's other spelling,
    "Daraya" for Dārayyā, is still the town)."""
    if candidate.entry < 0:
        return False
    places = geocoder.gazetteer
    if places.ids[candidate.entry].startswith(CURATED_ID):
        return False
    if places.kinds[candidate.entry] != "village":
        return False
    written = {_letters(candidate.matched_name), _letters(places.names[candidate.entry])}
    return _letters(mention) not in written


_DEMONYM_ENDINGS = ("ians", "ian", "ans", "an", "ese", "is", "i", "ns", "n", "s")


def _is_demonym(word: str, geocoder: OfflineGeocoder) -> bool:
    """'Haitian', 'Sudanese', 'Ethiopians', 'Israeli', 'Uzbek': a country's people (its name,
    less a last vowel, with a people's ending, or less its '-stan'), unless the word is itself
    a country's name."""
    countries = geocoder.gazetteer.derived("country letters", _country_letters)
    letters = _letters(word)
    if letters in countries or not word[:1].isupper():
        return False
    if any(letters + ending in countries for ending in ("istan", "stan")):
        return True  # "Uzbek", "Kazakh", "Tajik": the country's name less its "-stan"
    for ending in _DEMONYM_ENDINGS:
        if letters.endswith(ending) and len(letters) - len(ending) >= 3:
            stem = letters[: -len(ending)]
            if any(stem + vowel in countries for vowel in ("", "a", "i", "o", "y", "e", "ia")):
                return True
    return False


def _country_letters(gazetteer: Any) -> frozenset[str]:
    return frozenset(
        _letters(name)
        for name, kind in zip(gazetteer.names, gazetteer.kinds, strict=True)
        if kind == "country"
    )


_AGED = re.compile(r",[ \t]*\d{1,2}[ \t]*,")
"""'Naw Htoo, 29,': a name followed by an age between commas."""
_NUMBERED = re.compile(r"[ \t]+\d{1,3}\b(?![,.]\d)")
DIRECTIONS = {
    "east", "west", "north", "south", "eastern", "western", "northern", "southern", "central",
    *(f"{a}{dash}{b}{end}" for a in ("north", "south") for b in ("east", "west")
      for dash in ("", "-") for end in ("", "ern")),
}  # fmt: skip
SUFFIXES = {"province", "governorate", "countryside", "district", "region", "neighbourhood",
            "neighborhood", "area", "camp", "quarter", "suburb"}  # fmt: skip
ABROAD_MIN_POPULATION = 1000


def _trusted(candidate: Any, geocoder: OfflineGeocoder, homes: frozenset[str]) -> bool:
    """An exact match at home (the biased country, and the dateline's), a phrase on an exact
    anchor, or a real name abroad.

    Abroad, an alternate spelling or a hamlet is more often a person's name in news prose
    ("Assad", "Kerry") than the place, so only primary names of towns of some size count.
    """
    if candidate.method == "phrase":
        return bool(candidate.score >= 0.94)
    if candidate.method not in ("exact", "alias") or candidate.entry < 0:
        return False
    places = geocoder.gazetteer
    if places.country_codes[candidate.entry] in homes:
        return True
    if places.kinds[candidate.entry] in ("country", "region"):
        return True
    if places.ids[candidate.entry].startswith(CURATED_ID):
        return True  # a place the editors curated for the crises reports name: "Stepanakert"
    if candidate.method == "alias" and places.kinds[candidate.entry] == "city":
        return True  # "Zaporizhzhia", "El Geneina": a city's other spelling is still the city
    big_enough = int(places.populations[candidate.entry]) >= ABROAD_MIN_POPULATION
    return candidate.method == "exact" and big_enough


def _well_known(candidate: Any, geocoder: OfflineGeocoder, homes: frozenset[str]) -> bool:
    """At home anything; abroad a country, a region or a city (100,000 people or more)."""
    if candidate.entry < 0:
        return True
    places = geocoder.gazetteer
    if places.country_codes[candidate.entry] in homes:
        return True
    return places.kinds[candidate.entry] in ("country", "region", "city")


def _looks_like_a_name(
    text: str, words: list[re.Match[str]], i: int, span: list[re.Match[str]], *, known: bool
) -> bool:
    """Capitalised, not a person's surname, not a stop word: what news prose writes for places."""
    first = span[0].group()
    if first.lower() in DIRECTIONS and not first[:1].isupper():
        # "east Aleppo" yes; "western edge of Aleppo" no; "northern countryside of Aleppo"
        # only as the gazetteer's own name for it
        return len(span) > 1 and (span[1].group()[:1].isupper() or known)
    if first.lower() in DIRECTIONS and len(span) > 1 and span[1].group()[:1].isupper():
        return True
    if not _may_start_a_name(first):
        return False
    if first.lower() in STOPWORDS and len(span) == 1:
        return False
    if i > 0 and not text[words[i - 1].end() : span[0].start()].strip(" \t"):
        before = words[i - 1].group()
        possessive = re.search(r"['’]s$", before)  # "Syria's Madaya"
        if before[:1].isupper() and before.lower() not in STOPWORDS and not possessive:
            return False  # "John Kerry", "Barack Obama": a name, not a place
    after = text[span[-1].end() : span[-1].end() + 16]
    following = re.match(r"[ \t]+((?:[A-Z]|(?:al|el|ad|an|ar|as|ash|at|az)-)[\w'’-]*)", after)
    # "Vladimir Putin", "Jan Egeland": a first name, not a place ("Syria's Madaya" is both)
    possessive = re.search(r"['’]s$", span[-1].group())
    return not (following and following[1].lower() not in STOPWORDS) or bool(possessive)


def _variant_in_brackets(
    text: str,
    before: re.Match[str],
    start: int,
    place: PlaceMention | None,
    candidate: Any,
    geocoder: OfflineGeocoder,
) -> bool:
    """'Sittwe (Akyab)', 'Mykolaiv (Nikolaev)': a name in brackets right after a place's name,
    naming a place near it, is its other spelling, not the start of a sentence (an acronym,
    "(ISIL", is not; nor a word that names a place far away)."""
    if place is None or candidate.entry < 0 or text[before.end() : start].strip(" \t") != "(":
        return False
    word = re.match(r"[\w'’-]+", text[start:])
    if word is None or word.group().isupper():
        return False
    places = geocoder.gazetteer
    where = (float(places.latitudes[candidate.entry]), float(places.longitudes[candidate.entry]))
    return _near(*where, [place])


def _sentence_start(text: str, previous_end: int, start: int) -> bool:
    return bool(re.search(r"[.!?“\"(\n•·:;–—]", text[previous_end:start]))


def _offset_place(
    match: re.Match[str], before: list[PlaceMention], geocoder: OfflineGeocoder
) -> PlaceMention | None:
    phrase = match.group().strip()
    start = match.start() + (len(match.group()) - len(match.group().lstrip()))
    near = None
    if re.search(r"\bthe\s+(?:city|town|village)$", phrase, re.IGNORECASE):
        towns = [p for p in before if p.kind in ("city", "town")]
        if not towns:
            return None
        near = towns[-1].name
    location: Any = geocoder.geocode(phrase, near=near)
    if location is None:
        return None
    raw = location.raw
    return PlaceMention(
        phrase, start, match.end(), raw["name"], location.latitude, location.longitude,
        raw["country_code"], "point", "approximate", raw["score"], raw["id"],
    )  # fmt: skip
