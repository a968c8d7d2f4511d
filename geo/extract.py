"""From a report to a map: find places, figures, times and convoy drafts in news text, offline."""

from __future__ import annotations

import bisect
import csv
import functools
import itertools
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from datetime import date, timedelta
from typing import Any

from geo import arabic_reading, geocoding, names, spoken_numbers
from geo.gazetteer import CURATED_ID
from geo.geocoding import OfflineGeocoder, haversine_km
from geo.records import QUALIFIER_WORDS, Count, Qualifier
from geo.settings import DATA_DIR

NOT_PLACES_FILE = DATA_DIR / "reading" / "not-places.csv"
MASKED_KINDS = {"armed group", "organisation", "media"}

MAX_WORDS = 5
"""The longest place name looked for, in words."""
COUNT_NOUNS = {
    "people", "civilians", "wounded", "injured", "sick", "fighters", "rebels", "rebel",
    "families", "children", "women", "residents", "vehicles", "buses", "ambulances",
    "convoys", "trucks", "soldiers", "militants", "refugees", "patients", "evacuees",
    "dead", "members", "persons", "men", "gunmen", "displaced", "inhabitants", "cars",
    "busloads", "lorries", "elderly", "detainees", "prisoners", "hostages", "captives",
    "individuals", "households", "casualties", "victims", "students", "workers", "staff",
    "volunteers", "orphans", "infants", "babies", "palestinians", "syrians", "kurds",
    "iraqis", "christians", "alawites", "combatants", "insurgents", "jihadists", "militiamen",
    "defectors", "minibuses", "microbuses", "coaches", "tents", "terrorists", "relatives",
    "dependants", "dependents", "loyalists", "policemen", "militias",
    # humanitarian and wire copy of other crises: who is moved, and how
    "passengers", "nationals", "citizens", "employees", "holders", "foreigners", "pilgrims",
    "migrants", "asylum-seekers", "internally", "idps", "survivors", "youngsters",
    "flights", "planes", "aircraft", "boats", "ships", "ferries", "trains", "carriages",
    "minivans", "vans", "pickups", "tractors", "carts",
    "ukrainians", "russians", "armenians", "azerbaijanis", "israelis", "egyptians",
    "sudanese", "chadians", "afghans", "pakistanis", "yazidis", "lebanese", "bosniaks",
    "bosnians", "serbs", "croats", "muslims", "ethiopians", "eritreans", "tigrayans",
    "somalis", "yemenis", "libyans", "rohingya", "haitians", "congolese", "mozambicans",
    "americans", "britons", "germans", "french", "chinese", "indians", "filipinos", "turks",
    "iranians", "jordanians", "saudis", "canadians", "australians", "italians", "poles",
    "moldovans", "romanians", "georgians", "belarusians", "nigerians", "kenyans", "gazans",
    "bangladeshis", "indonesians", "malaysians", "koreans", "japanese", "europeans",
    "africans", "arabs", "westerners", "masalit", "darfuris", "rohingyas", "arrivals",
    "newcomers", "newly-arrived", "returnees", "deportees",
}  # fmt: skip
VEHICLES = {
    "vehicles", "buses", "ambulances", "convoys", "trucks", "cars", "busloads", "lorries",
    "flights", "planes", "aircraft", "boats", "ships", "ferries", "trains", "carriages",
    "minivans", "vans", "pickups", "tractors", "carts", "minibuses", "microbuses", "coaches",
}  # fmt: skip
CONVOYS = {"convoy", "convoys"}
"""A count of convoys ("three convoys left") is neither vehicles nor people."""
UNITS = {
    "km", "kilometres", "kilometers", "kilometre", "kilometer", "miles", "mile", "metres",
    "meters", "years", "year", "months", "month", "days", "day", "hours", "hour", "minutes",
    "percent", "pm", "am", "gmt", "per", "times", "o'clock", "kg", "tonnes", "dollars",
}  # fmt: skip
MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
}  # fmt: skip
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
STOPWORDS = {
    # capitalised words of news prose that are also somebody's place name somewhere
    "a", "an", "the", "and", "but", "or", "in", "on", "at", "of", "for", "to", "by", "with",
    "as", "many", "some", "most", "more", "all", "one", "two", "three", "four", "five",
    "first", "last", "next", "new", "state", "president", "secretary", "foreign", "minister",
    "ministry", "government", "army", "forces", "un", "us", "eu", "uk", "icrc", "sana",
    "red", "cross", "crescent", "council", "security", "union", "european", "nations",
    "united", "front", "observatory", "human", "rights", "monitoring", "group", "defence",
    "regime", "rebels", "rebel", "opposition", "deal", "agreement", "kremlin", "thursday",
    "friday", "saturday", "sunday", "monday", "tuesday", "wednesday", "january", "february",
    "march", "april", "may", "june", "july", "august", "september", "october", "november",
    "december", "there", "they", "he", "she", "it", "we", "his", "her", "their", "this",
    "that", "these", "those", "after", "before", "during", "while", "without",
    "gmt", "day", "will", "return", "shiite", "sunni", "islamic", "syrian", "russian",
    "turkish", "iranian", "french", "american", "lebanese", "israeli", "iraqi", "jordanian",
    "kurdish", "arab", "british", "western", "eastern", "northern", "southern",
    "task", "force", "envoy", "head", "governor", "source", "media", "agency", "television",
    "villages", "village", "city", "town", "province", "region", "district", "east", "west",
    "north", "south", "liberation", "history", "making", "video", "message", "massacre",
    "war", "bosnian", "ceasefire", "alliance", "affiliate", "al", "sham", "fateh", "qaeda",
    "from", "into", "toward", "towards", "via", "through", "across", "near", "outside",
}  # fmt: skip
SPEECH = r"(?:said|says|told|added|warned|announced|reported|stated)"
_WORD = re.compile(r"[^\W\d_](?:[\w'’ʿʾ`-]*\w)?")
_SENTENCE = re.compile(r"(?:[^.!?\n]|(?<=\d)\.(?=\d))+(?:[.!?]+[”\"']?|\n|$)")
"""A sentence ends at a full stop (not the one in '5.5 million'), a '!' or '?', or a line."""
_NUMBER = spoken_numbers.NUMBER
HEDGES = {
    **QUALIFIER_WORDS, "an estimated": Qualifier.ABOUT, "estimated": Qualifier.ABOUT,
    "close to": Qualifier.NEARLY, "just over": Qualifier.MORE_THAN, "upwards of":
    Qualifier.MORE_THAN, "in excess of": Qualifier.MORE_THAN, "just under": Qualifier.FEWER_THAN,
    "as many as": Qualifier.UP_TO, "no fewer than": Qualifier.AT_LEAST,
}  # fmt: skip
"""How reports hedge a number: the scenario files' qualifiers and the wires' other words."""
_QUALIFIER = "|".join(
    r"\s+".join(map(re.escape, q.split())) for q in sorted(HEDGES, key=len, reverse=True)
)
_MOVES = (
    r"(?:flee|flees|fled|fleeing|leave|leaves|left|leaving|cross|crosses|crossed|crossing"
    r"|reach|reached|reaching|arrive|arrived|arriving|walk|walked|walking|stream|streamed"
    r"|pour|poured|escape|escaped|return|returned|move|moved|head|headed|evacuate|evacuated"
    r"|were\s+evacuated|have\s+(?:fled|left|crossed)|had\s+(?:fled|left|crossed))"
)
"""Verbs of moving that make a bare 'thousands' people: 'Thousands flee Khartoum'."""
_FIGURE = re.compile(
    rf"(?<![\w.,])(?:(?P<vague>{spoken_numbers.VAGUE_PATTERN})"
    rf"(?:\s+of(?=\s)|\s+more(?=\s)|(?=\s+(?:more\s+)?{_MOVES}\b))"
    r"|(?P<several>(?:several|a\s+few)\s+(?:hundred|thousand))(?=\s)"
    rf"|(?:(?P<qualifier>{_QUALIFIER})\s+)?(?:(?P<between>between)\s+)?"
    rf"(?P<low>{_NUMBER})(?:\s*(?:-|–|to|and)\s*(?P<high>{_NUMBER}))?(?![\d:]))",
    re.IGNORECASE,
)
_CLOCK = re.compile(
    r"(?<![\d,])(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s*(?P<half>am|pm|a\.m\.|p\.m\.)(?!\w)"
    r"(?:\s*\((?P<utc>\d{4})\s*(?:GMT|UTC)\))?",
    re.IGNORECASE,
)
_DATE = re.compile(
    r"(?P<month>" + "|".join(m.capitalize() for m in MONTHS) + r")\s+(?P<day>\d{1,2})\b"
    r"|(?P<day2>\d{1,2})\s+(?P<month2>" + "|".join(m.capitalize() for m in MONTHS) + r")\b"
)
_WEEKDAY = re.compile(
    r"\b(?P<day>" + "|".join(d.capitalize() for d in WEEKDAYS) + r")(?:['’]?s)?"
    r"(?:\s+(?P<part>morning|afternoon|evening|night))?\b"
)
_OFFSET = re.compile(
    rf"\b(?:(?:about|around|some|roughly|nearly|almost)\s+)?{_NUMBER}\s*"
    r"(?:km|kilometres|kilometers|kilometre|kilometer|miles?)\b(?:\s*\([^)]*\))?\s+"
    r"(?:north|south|east|west|north-?east|north-?west|south-?east|south-?west)\s+of\s+"
    r"(?:the\s+(?:city|town|village)|[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class PlaceMention:
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
    what: str
    qualifier: str | None
    sentence: str
    attribution: str
    start: int
    end: int
    value: int | None = None
    low: int | None = None
    high: int | None = None


@dataclass(frozen=True)
class TimeMention:
    text: str
    start: int
    end: int
    kind: str  # weekday, clock, date
    date: str = ""
    local_time: str = ""
    utc_time: str = ""


@dataclass(frozen=True)
class ConvoyDraft:
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
            item = {k: v for k, v in asdict(figure).items() if v is not None or k == "qualifier"}
            figures.append(item)
        return {
            "places": [asdict(place) for place in self.places],
            "figures": figures,
            "times": [asdict(moment) for moment in self.times],
            "convoys": [asdict(convoy) for convoy in self.convoys],
            "skipped": [asdict(item) for item in self.skipped],
            "homes": list(self.homes),
        }


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
    if arabic_reading.is_arabic(text):
        return replace(_extract_arabic(text, published, geocoder), homes=homes)
    sentences = _sentences(text)
    skipped: list[Skipped] = []
    places = find_places(text, geocoder, skipped, homes=frozenset(homes))
    figures = find_figures(text, sentences, skipped)
    times = find_times(text, published, skipped)
    convoys = find_convoys(sentences, places, figures, times, skipped)
    return Extraction(places, figures, times, convoys, skipped, homes)


def _extract_arabic(text: str, published: date | None, geocoder: OfflineGeocoder) -> Extraction:
    """The same reading for a report in Arabic (`geo/arabic_reading.py`)."""
    sentences = arabic_reading.sentences(text)
    skipped: list[Skipped] = []
    places = arabic_reading.find_places(text, geocoder)
    figures = arabic_reading.find_figures(text, sentences, skipped)
    times = arabic_reading.find_times(text, published)
    convoys = arabic_reading.find_convoys(sentences, places, figures, times)
    return Extraction(places, figures, times, convoys, skipped)


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
    if arabic_reading.is_arabic(head):
        places = arabic_reading.find_places(head, geocoder)
    else:
        places = find_places(head, geocoder, [], homes=frozenset())
    votes: dict[str, float] = {}
    for place in places:
        weight = HOME_WEIGHTS.get(place.kind, 0.5)
        votes[place.country_code] = votes.get(place.country_code, 0.0) + weight
    dateline = "" if arabic_reading.is_arabic(head) else dateline_country(head, geocoder)
    if dateline:
        votes[dateline] = votes.get(dateline, 0.0) + DATELINE_VOTES
    ranked = sorted((v, code) for code, v in votes.items() if code)
    ranked.sort(key=lambda vote: -vote[0])
    if not ranked:
        return ()
    (top, first), seconds = ranked[0], ranked[1:2]
    homes = [first]
    if seconds and seconds[0][0] >= max(SECOND_HOME_SHARE * top, SECOND_HOME_MIN):
        homes.append(seconds[0][1])
    return tuple(homes)


UNREADABLE = (ValueError, KeyError, IndexError, TypeError, ArithmeticError)
"""What reading one item of odd copy can raise; the item is skipped, the report goes on."""


def _skip(
    skipped: list[Skipped] | None, kind: str, text: str, start: int, error: Exception
) -> None:
    """Note an item that could not be read (or raise, when nobody collects them)."""
    if skipped is None:
        raise error
    skipped.append(Skipped(kind, text.strip(), start, f"{type(error).__name__}: {error}"))


# --- places ------------------------------------------------------------------------------


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
                mention = _place_at(text, words, i, size, geocoder, homes)
            except UNREADABLE as error:
                _skip(skipped, "place", text[span[0].start() : span[-1].end()], span[0].start(),
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
) -> PlaceMention | None:
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
    if any(text[a.end() : b.start()].strip(" \t") for a, b in itertools.pairwise(span)):
        return None  # a name does not run over a line's end or a comma
    if not _looks_like_a_name(text, words, i, span, known=known):
        return None
    _, never = _not_places()
    if all(word.group().lower() in STOPWORDS or word.group().lower() in COUNT_NOUNS
           or word.group().lower() in never for word in span):  # fmt: skip
        return None
    candidates = geocoding.candidates(geocoder, mention)
    if not candidates or not _trusted(candidates[0], geocoder, homes):
        return None
    opening = i == 0 or _sentence_start(text, words[i - 1].end(), span[0].start())
    if opening and not _well_known(candidates[0], geocoder, homes):
        return None  # "Buses left…": a capital at a sentence's start says nothing
    if opening and size == 1 and _only_alike(mention, candidates[0], geocoder):
        return None  # "About 300…", "Police said…": an English word, not the village "Abut"
    if size == 1 and _is_demonym(mention, geocoder):
        return None  # "Haitians", "Sudanese": people of a country, not a place
    if _A_UNIT.match(text, end):
        return None  # "the Azov regiment", "the Idlib brigade": a unit named after a place
    if _NUMBERED.match(text, end) and not _well_known(candidates[0], geocoder, homes):
        return None  # "Kilo 16", "Gate 4": a milestone or a gate, not a namesake abroad
    speaks = re.match(rf"\s+{SPEECH}\b", text[end : end + 16])
    if speaks and size == 1 and not _well_known(candidates[0], geocoder, homes):
        return None  # "Kerry told reporters": a person; "Moscow says" stays a place
    location: Any = geocoder.geocode(mention)
    if location is None:
        return None
    raw = location.raw
    return PlaceMention(
        mention, start, end, raw["name"], location.latitude, location.longitude,
        raw["country_code"], raw["kind"], raw["precision"], raw["score"], raw["id"],
    )  # fmt: skip


_A_UNIT = re.compile(
    r"[ \t]+(?:regiment|battalion|brigades?|corps|militia|legion|division|detachment)\b",
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
    """'Haitian', 'Sudanese', 'Ethiopians', 'Israeli': a country's people (its name, less a
    last vowel, with a people's ending), unless the word is itself a country's name."""
    countries = geocoder.gazetteer.derived("country letters", _country_letters)
    letters = _letters(word)
    if letters in countries or not word[:1].isupper():
        return False
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


# --- figures -----------------------------------------------------------------------------


def _sentences(text: str) -> list[tuple[int, str]]:
    return [(m.start(), m.group()) for m in _SENTENCE.finditer(text) if m.group().strip()]


def find_figures(
    text: str,
    sentences: list[tuple[int, str]],
    skipped: list[Skipped] | None = None,
    *,
    pattern: re.Pattern[str] | None = None,
    read: Callable[[str, int, re.Match[str]], FigureMention | None] | None = None,
) -> list[FigureMention]:
    """Numbers that count people or vehicles, with qualifier, range, what and who said it
    (Arabic text passes its own `pattern` and `read`)."""
    pattern, read = pattern or _FIGURE, read or _figure
    found = []
    for offset, sentence in sentences:
        for match in pattern.finditer(sentence):
            try:
                figure = read(sentence, offset, match)
            except UNREADABLE as error:
                _skip(skipped, "figure", sentence, offset + match.start(), error)
                continue
            if figure:
                found.append(figure)
    return found


def _figure(sentence: str, offset: int, match: re.Match[str]) -> FigureMention | None:
    if match["vague"] or match["several"]:
        return _vague_figure(sentence, offset, match)
    if match["between"] and not match["high"]:
        return None
    low, high = _number(match["low"]), _number(match["high"]) if match["high"] else None
    if low is None or (match["high"] and high is None):
        return None
    if high is not None and high < low:
        return None  # "5-4" is a score, "2016-17" a season: not a count
    before = sentence[max(0, match.start() - 12) : match.start()].lower()
    after = sentence[match.end() : match.end() + 40]
    word_number = not match["low"][:1].isdigit() and not match["qualifier"]
    if word_number and re.search(r"(?:^|\W)(?:no|any|each|every)\s*$", before):
        return None
    if re.match(r"\s+of\b", after) and not (_OF_THEM.match(after) or _OF_THEM_ALONE.match(after)):
        return None  # "one of the buses" (but "400 of them fighters", "40,000 of their
        # relatives" count fighters and relatives)
    following = re.match(r"\s*\(?([\w'’]+)", after)
    next_word = following[1].lower() if following else ""
    if next_word in UNITS or next_word in MONTHS or re.search(r"\bag(?:ed|es?)\s*$", before):
        return None  # distances, durations, dates, ages
    dated = not match["qualifier"] and any(month in before.split()[-1:] for month in MONTHS)
    if dated or re.match(r"\s*GMT", after):
        return None  # "December 15", "1300 GMT"
    if re.fullmatch(r"(?:19|20)\d\d", match["low"]) and next_word not in COUNT_NOUNS:
        return None
    what = _what(sentence, match)
    if not what:
        return None
    qualifier = HEDGES.get(" ".join((match["qualifier"] or "").lower().split()))
    value = None if high is not None else low
    return FigureMention(
        what=what,
        qualifier=qualifier.value if qualifier else None,
        sentence=sentence.strip(),
        attribution=attribution(sentence),
        start=offset + match.start(),
        end=offset + match.end(),
        value=value,
        low=low if high is not None else None,
        high=high,
    )


_PRONOUN = re.compile(r"\s*(?:the|these|those|them|their|others|whom)\b", re.IGNORECASE)


def _vague_figure(sentence: str, offset: int, match: re.Match[str]) -> FigureMention | None:
    """'Hundreds of families': a range (200-999), counting what follows 'of' ('hundreds of
    them fighters' counts fighters; 'thousands of them', 'scores of others' count people)."""
    if match["several"]:  # "several hundred Americans", "a few thousand"
        low, high = SEVERAL[match["several"].split()[-1].lower()]
    else:
        low, high = spoken_numbers.VAGUE[" ".join(match["vague"].lower().split())]
    after = sentence[match.end() :]
    pronoun = _PRONOUN.match(after)
    what = _what(sentence[: match.end()] + after[pronoun.end() :] if pronoun else sentence, match)
    if (pronoun or re.match(rf"\s+(?:more\s+)?{_MOVES}\b", after, re.IGNORECASE)) and not what:
        what = "people"  # "thousands of them climbed aboard", "Thousands flee Khartoum"
    if not what or not COUNT_NOUNS.intersection(what.lower().split()[:3]):
        return None  # "hundreds of metres", "thousands of years"
    return FigureMention(
        what=what, qualifier=None, sentence=sentence.strip(), attribution=attribution(sentence),
        start=offset + match.start(), end=offset + match.end(), low=low, high=high,
    )  # fmt: skip


SEVERAL = {"hundred": (200, 999), "thousand": (2_000, 9_999)}


def _number(text: str | None) -> int | None:
    return spoken_numbers.parse(text) if text else None


_OF_THEM = re.compile(r"\s+of\s+(?:them|whom|those|their|its|our)\s+(?P<noun>[\w'’-]+)")
_OF_THEM_ALONE = re.compile(r"\s+of\s+(?:them|whom)\b")
"""'More than 1.2 million of them have crossed': those the sentence spoke of, or people."""
_A_TALLY = re.compile(
    r"(?:\b(?:number|toll|total|tally|count|figure)\b[^.;:]{0,80}?\s(?:at|to|of|was|is|"
    r"stood\s+at|reached|rose\s+to|hit)|\bof\s+those\s+[\w'’-]+,?)\s*$",
    re.IGNORECASE,
)
"""'put their number at 5,000', 'of those departing, 2,289 were registered': people counted,
though no noun follows the number."""


def _what(sentence: str, match: re.Match[str]) -> str:
    """What a number counts: the people or vehicles named right after it, or else (after a
    comma, "and their families", a verb) the nearest such word before it in the sentence."""
    after = sentence[match.end() :]
    of_them = _OF_THEM.match(after)
    if of_them and of_them["noun"].lower() in COUNT_NOUNS:
        return of_them["noun"]
    if _OF_THEM_ALONE.match(after):  # "The buses, some 50 of them": the noun said before
        clause = re.split(r"[;:]", sentence[: match.start()])[-1]
        nouns = [w for w in re.findall(r"[A-Za-z][\w'’-]*", clause) if w.lower() in COUNT_NOUNS]
        return nouns[-1].lower() if nouns else "people"
    following = _FIGURE.search(after)
    if following and following.start() > 0:
        after = after[: following.start()]  # "3,000 civilians and more than 40 wounded"
    words = re.findall(r"[A-Za-z][\w'’-]*|[,;:()]", after)[:10]
    phrase: list[str] = []
    for word in words:
        lowered = word.lower()
        if not phrase:
            if lowered in COUNT_NOUNS:
                phrase.append(word)
            elif len(phrase) == 0 and word not in ",;:()" and lowered not in STOP_AFTER:
                phrase.append(word)  # an adjective before the noun: "green buses"
            else:
                break
        elif lowered in COUNT_NOUNS or lowered in JOINERS:
            phrase.append(word)
        elif not any(w.lower() in COUNT_NOUNS for w in phrase):
            phrase.append(word)
            if len(phrase) > 2:
                break
        else:
            break
    while phrase and phrase[-1].lower() not in COUNT_NOUNS:
        phrase.pop()
    if phrase:
        return " ".join(phrase)
    if words and words[0] not in ",;:()" and words[0].lower() not in STOP_AFTER:
        return ""
    for word in reversed(re.findall(r"[A-Za-z][\w'’-]*", sentence[: match.start()])):
        if word.lower() in COUNT_NOUNS:
            return str(word).lower()
    return "people" if _A_TALLY.search(sentence[: match.start()]) else ""


JOINERS = {"and", "their", "of", "sick", "injured", "wounded"}
STOP_AFTER = {"were", "was", "are", "is", "will", "had", "have", "has", "would", "who", "from",
              "including", "in", "on", "to", "by", "and"}  # fmt: skip


def attribution(sentence: str) -> str:
    """Who the sentence says said it, or ''."""
    match = re.search(r"according to (?:the )?([^,.;]+)", sentence)
    if match:
        return match[1].strip()
    match = re.search(rf"[”\"],?\s*(?:the\s+)?([^”\"]+?),?\s+{SPEECH}\b", sentence)
    if match:
        return match[1].strip(" ,")
    match = re.search(rf"([A-Z][^,”\"]*?)\s+{SPEECH}\b", sentence)
    if match:
        return match[1].strip(" ,")
    match = re.search(rf"\b{SPEECH}\s+(?:the\s+)?([A-Z][^,.”\"]+)", sentence)
    return match[1].strip() if match else ""


# --- times -------------------------------------------------------------------------------


def find_times(
    text: str, published: date | None, skipped: list[Skipped] | None = None
) -> list[TimeMention]:
    """Weekdays, clock times (with GMT/UTC equivalent) and dates, resolved where possible."""
    readers = ((_WEEKDAY, _weekday_mention), (_CLOCK, _clock_mention), (_DATE, _date_mention))
    found = []
    for pattern, read in readers:
        for match in pattern.finditer(text):
            try:
                found.append(read(text, match, published))
            except UNREADABLE as error:
                _skip(skipped, "time", match.group(), match.start(), error)
    return sorted(found, key=lambda moment: moment.start)


_FUTURE = re.compile(
    r"\b(?:will|shall|would|'ll|next|until|till|expected|due|scheduled|set\s+to|plans?\s+to"
    r"|(?:is|are)\s+to)\b[^.;]{0,40}$",
    re.IGNORECASE,
)
"""Words before a weekday that put it after the publication: 'will leave on Friday',
'the truce holds until Saturday', 'next Monday'."""
_PAST = re.compile(r"\b(?:last|had|lasted|remained)\b[^.;]{0,40}$", re.IGNORECASE)


def _weekday_mention(text: str, match: re.Match[str], published: date | None) -> TimeMention:
    before = text[max(0, match.start() - 60) : match.start()]
    future = bool(_FUTURE.search(before)) and not _PAST.search(before)
    when = _weekday(match["day"], published, future=future)
    return TimeMention(match.group(), match.start(), match.end(), "weekday", when)


def _clock_mention(text: str, match: re.Match[str], published: date | None) -> TimeMention:
    hour = int(match["hour"])
    if not 1 <= hour <= 12:
        raise ValueError(f"a 12-hour clock time needs an hour from 1 to 12, got {hour}")
    hour = hour % 12 + (12 if match["half"].lower().startswith("p") else 0)
    local = f"{hour:02d}:{int(match['minute'] or 0):02d}"
    utc = f"{match['utc'][:2]}:{match['utc'][2:]}" if match["utc"] else ""
    return TimeMention(match.group(), match.start(), match.end(), "clock", "", local, utc)


def _date_mention(text: str, match: re.Match[str], published: date | None) -> TimeMention:
    month = MONTHS[(match["month"] or match["month2"]).lower()]
    day = int(match["day"] or match["day2"])
    when = _date(month, day, published)
    return TimeMention(match.group(), match.start(), match.end(), "date", when)


def _weekday(name: str, published: date | None, *, future: bool = False) -> str:
    """The date of the weekday nearest the publication: before it, or after it when the
    sentence speaks of the future ("will meet Friday")."""
    if published is None:
        return ""
    wanted = WEEKDAYS.index(name.lower())
    if future:
        ahead = (wanted - published.weekday()) % 7
        return (published + timedelta(days=ahead)).isoformat()
    back = (published.weekday() - wanted) % 7
    return (published - timedelta(days=back)).isoformat()


def _date(month: int, day: int, published: date | None) -> str:
    if published is None:
        return ""
    try:
        when = date(published.year, month, day)
    except ValueError:
        return ""
    if (published - when).days > 180:
        when = date(published.year + 1, month, day)
    return when.isoformat()


# --- convoy drafts -------------------------------------------------------------------------

_CONVOY_WORDS = re.compile(
    r"\b(?:convoys?|bus(?:es|ed|loads?)?|buss(?:ed|ing)|ambulances|evacu\w*|vehicles"
    r"|left|leav(?:e|es|ing)|depart\w*|transfer\w*|transport\w*|relocat\w*|safe\s+passage"
    r"|arriv\w*|driv(?:en|ing|es?)|drove|tak(?:en|ing)|brought|sent|mov(?:e|ed|ing)|fle(?:d|e|eing)"
    r"|return\w*|travel\w*|emptied|push\w*\s+(?:\w+\s+)?out|set(?:ting)?\s+(?:off|out)"
    r"|head(?:ed|ing)|bound|reach\w*|exit\w*"
    r"|cross(?:ed|es|ing)?|walk\w*|trek\w*|flown|flew|fl(?:y|ying|ights?)|airlift\w*"
    r"|corridors?|exodus|escap\w*|board(?:ed|ing)|sail\w*|ferr(?:y|ied)|rescu\w*"
    r"|stream(?:ed|ing)|pour(?:ed|ing)|refugees|enter(?:ed|ing)|journeys?|dock(?:ed|ing)"
    r"|landed|deport\w*|expel\w*|stopped)\b",
    re.IGNORECASE,
)
"""What a sentence about a movement of people says: vehicles, evacuations, leaving, arriving."""


def find_convoys(
    sentences: list[tuple[int, str]],
    places: list[PlaceMention],
    figures: list[FigureMention],
    times: list[TimeMention],
    skipped: list[Skipped] | None = None,
) -> list[ConvoyDraft]:
    """A draft per sentence about convoys, buses, ambulances or evacuations, for review."""
    drafts = []
    starts = [[item.start for item in items] for items in (places, figures, times)]
    for offset, sentence in sentences:
        if not _CONVOY_WORDS.search(sentence):
            continue
        end = offset + len(sentence)
        nearby = _between(places, starts[0], offset, end, before=12)  # and the last before
        try:
            draft = _draft(offset, sentence, nearby, _between(figures, starts[1], offset, end),
                           _between(times, starts[2], offset, end))  # fmt: skip
        except UNREADABLE as error:
            _skip(skipped, "convoy", sentence, offset, error)
            continue
        if draft:
            drafts.append(draft)
    return drafts


def _between(
    items: list[Any], starts: list[int], start: int, end: int, *, before: int = 0
) -> list[Any]:
    """The items (sorted, starting at `starts`) that start in [start, end), and `before` more."""
    first, last = bisect.bisect_left(starts, start), bisect.bisect_left(starts, end)
    return items[max(0, first - before) : last]


def _draft(
    offset: int,
    sentence: str,
    places: list[PlaceMention],
    figures: list[FigureMention],
    times: list[TimeMention],
) -> ConvoyDraft | None:
    end = offset + len(sentence)
    inside = [p for p in places if offset <= p.start < end]
    counted = [f for f in figures if offset <= f.start < end]
    moments = [t for t in times if offset <= t.start < end]
    roles = _roles(sentence, offset, inside)
    if not roles["origin"]:
        roles["origin"] = _people_of(sentence, offset, inside)
    for role in ("origin", "destination"):
        if not roles.get(role):
            roles[role] = _named_before(sentence, offset, role, places)
    if not (inside or counted or roles["origin"] or roles["destination"]):
        return None
    return ConvoyDraft(
        sentence=sentence.strip(),
        start=offset,
        origin=roles["origin"],
        destination=roles["destination"],
        via=roles.get("via", []),
        vehicles=[_count_text(f) for f in counted if is_vehicle(f)],
        people=[_count_text(f) for f in counted if is_people(f)],
        time=moments[0].text if moments else "",
    )


_ROLE_WORDS = {
    "via": r"via|through|crossing into|crossed into|by way of",
    "origin": r"fle\w*\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+)?(?:attacks?|assaults?|offensives?"
    r"|fighting|violence|raids?|clashes)\s+(?:on|in|around)"  # "fled an attack on Palma"
    r"|from|out of|left|leave|leaves|leaving|departed|departing|depart|quit|fled"
    r"|flee|flees|fleeing|exit(?:ed|ing)?",
    "destination": r"to|for|towards?|reach|reached|reaches|reaching|as far as|entered|entering"
    r"|(?<!crossing\s)(?<!crossed\s)into"
    r"|(?:arriv|enter|end|dock|land|stopp)\w*(?:\s+[\w-]+){0,5}?\s+(?:in|at)"
    r"|cross(?:ed|ing)(?:\s+[\w-]+){0,3}?\s+at",  # "were crossing each day at Hamdayet"
}
"""Words that give a place its part in a movement; the nearest one before the place decides.
A place after 'in' or 'at' alone ('a source in Homs') is no endpoint."""
_NOT_A_ROLE = re.compile(r"\b(?:according|due|able|going|used|has|have|had|said)\s+to\s+$")


def _roles(sentence: str, offset: int, places: list[PlaceMention]) -> dict[str, Any]:
    """Each place's part in a convoy sentence, by the nearest role word before it.

    "left Aleppo for Idlib": Idlib follows "for", nearer than "left", so it is the destination;
    "crossing into a district in southern Aleppo" keeps "into" (via) over the weaker "in".
    "from Fuaa and Kafraya": both follow "from"; the first is the origin, as "to A and B" makes
    A the destination; a later role word ("to Rashidin, then on to Idlib") makes the last one.
    """
    roles: dict[str, Any] = {"via": [], "origin": "", "destination": ""}
    destination_word = -1  # where the role word of the destination so far stands
    destination_end = -1  # and where its name ends
    country_end: PlaceMention | None = None  # "fled to Armenia", "crossed into Chad"
    passed: list[PlaceMention] = []
    where_clause = _WHERE.search(sentence)
    previous_end = 0  # a role word before the previous place is that place's, or a list's
    for place in places:
        if where_clause and roles["destination"] and place.start - offset > where_clause.end():
            break  # "to Port Sudan, where ships carry evacuees on to Jeddah": another movement
        tail = sentence[: place.start - offset].lower()[-80:]
        tail_start = place.start - offset - len(tail)
        after = sentence[place.end - offset : place.end - offset + 3]
        if re.match(r"['’ ]s\b", after):
            continue  # "fighters from Lebanon's Hezbollah": whose, not where from
        listed = _LISTED.fullmatch(sentence, previous_end, place.start - offset) is not None
        floor = -1 if listed else previous_end - tail_start
        previous_end = place.end - offset
        found = [
            (match.start(), kind)
            for kind, words in _ROLE_WORDS.items()
            for match in re.finditer(rf"\b(?:{words})\s+(?:the\s+|a\s+)?", tail)
            if re.fullmatch(r"(?:[\w'’-]+\s+){0,6}", tail[match.end() :])
            and not _NOT_A_ROLE.search(tail[: match.end()])
            and match.start() >= floor
        ]
        where, role = max(found) if found else (-1, "")
        crossed = role == "via" and _CROSSED_INTO.match(tail, where)
        if place.kind == "country" and (crossed or role == "destination"):
            country_end = country_end or place
        elif role == "via":
            roles["via"].append(place.name)
            passed.append(place)
        elif not role and country_end and re.search(r"\bat\s+(?:the\s+)?$", tail):
            roles["via"].append(place.name)  # "crossed into Chad at Adre"
            passed.append(place)
        elif role == "origin" and not roles["origin"]:
            roles["origin"] = place.name
        elif (role == "destination" and place.kind != "country"
              and tail_start + where != destination_word  # not "to A and B"
              and _onward(sentence, destination_end, tail_start + where)):  # fmt: skip
            roles["destination"] = place.name
            destination_word, destination_end = tail_start + where, place.end - offset
    if not roles["destination"] and country_end and country_end.name != roles["origin"]:
        # "crossed into Chad at Adre": the border town in that country, else the country
        inside = [p for p in passed if p.country_code == country_end.country_code]
        roles["destination"] = inside[0].name if inside else country_end.name
        if inside:
            roles["via"].remove(inside[0].name)
    return roles


_WHERE = re.compile(r",\s+where\b")
_ONWARD = re.compile(r"\b(?:then|on|onward|onwards|later|before|continu\w*|finally|eventually)\b")
"""What makes a second destination the end of one journey ("to Rashidin, then on to Idlib")
rather than another group's ("to Sana'a, and smaller numbers towards Aden"; "to Zabid and to
Hays": the first of a list)."""


def _onward(sentence: str, previous_end: int, role_word: int) -> bool:
    """Whether a destination word at `role_word` replaces the one whose name ends at
    `previous_end` (-1: there is none yet)."""
    return previous_end < 0 or bool(_ONWARD.search(sentence, previous_end, role_word))


_LISTED = re.compile(r"\s*(?:,|,?\s*and|,?\s*or|/)?\s*(?:the\s+)?", re.IGNORECASE)
"""What stands between the names of a list ('Fuaa and Kafraya', 'A, B or C')."""
_CROSSED_INTO = re.compile(r"cross(?:ed|ing)\s+into\b")


_LEAVING = re.compile(
    r"\b(?:left|leaving|leave|fled|fleeing|departed|departing|evacuated|bussed|bused"
    r"|transferred|taken\s+out|pulled\s+out|emptied|exodus)\b",
    re.IGNORECASE,
)
_OF_A_PLACE = re.compile(
    r"\b(?:residents|people|civilians|fighters|rebels|inhabitants|families|population|"
    r"evacuees|wounded|gunmen|terrorists)\s+(?:of|from|in)\s+(?:the\s+)?(?:[\w-]+\s+)?$",
    re.IGNORECASE,
)


_ITS_DISPLACED = re.compile(r"\s+(?:refugees|evacuees|displaced)\b")
"""'Thousands of Srebrenica refugees reach Tuzla': where the refugees come from."""
_EMPTIED_OR_ITS_PEOPLE = re.compile(
    r"\s+(?:was\s+|were\s+)?emptied\b"
    r"|['’]s\s+(?:[\w-]+\s+)?(?:residents|people|civilians|fighters|rebels|families|gunmen)\b"
)
"""'as Madaya emptied', "Douma's last rebels leave": the place is the one left."""


def _people_of(sentence: str, offset: int, places: list[PlaceMention]) -> str:
    """'the last residents of Fuaa and Kafraya began leaving', 'as Madaya emptied': the
    place people leave, named as where they are from rather than after 'from'."""
    for place in places:
        if place.kind != "country" and _ITS_DISPLACED.match(sentence, place.end - offset):
            return place.name
    if not _LEAVING.search(sentence):
        return ""
    for place in places:
        before = sentence[: place.start - offset]
        after = sentence[place.end - offset :]
        if _OF_A_PLACE.search(before) or _EMPTIED_OR_ITS_PEOPLE.match(after):
            return place.name
    return ""


_BACK_REFERENCE = re.compile(
    r"\b(?P<role>from|out\s+of|left|leaving|leave|departed|departing|quit|fled|fleeing"
    r"|escaped|exited|to|for|towards?"
    r"|reached|reaching|arrived\s+(?:in|at)|(?<!crossing\s)(?<!crossed\s)into|entered)\s+"
    r"(?:(?P<there>there)\b|(?:the|this|that|these)\s+(?P<count>two\s+|three\s+|four\s+)?"
    r"(?:[\w-]+\s+)?(?P<kind>villages?|towns?|city|districts?|neighbou?rhoods?|enclave|pocket"
    r"|area|camp|crossing|valley)\b)",
    re.IGNORECASE,
)
_REFERRED_KINDS = {
    "village": ("village", "town"), "villages": ("village", "town"),
    "town": ("town", "city", "village"), "towns": ("town", "city", "village"),
    "city": ("city", "town"), "crossing": ("crossing",), "camp": ("district", "point"),
    "districts": ("district", "point"), "neighbourhoods": ("district", "point"),
    "enclave": ("region", "district", "point", "town"), "pocket": ("region", "district",
    "point"), "valley": ("region",), "area": ("region", "district", "point"),
}  # fmt: skip
_ORIGIN_WORDS = {"from", "out of", "left", "leaving", "leave", "departed", "departing", "quit",
                 "fled", "fleeing", "escaped", "exited"}  # fmt: skip
_COUNTS = {"two": 2, "three": 3, "four": 4}


def _named_before(sentence: str, offset: int, role: str, known: list[PlaceMention]) -> str:
    """'left the two villages', 'arrived in the town', 'from there': the place the report
    named last of that kind (of two villages, the first named; "Fuaa and Kafraya" names two;
    of "the three towns" just listed, the first of the three)."""
    for match in _BACK_REFERENCE.finditer(sentence):
        is_origin = re.sub(r"\s+", " ", match["role"].lower()) in _ORIGIN_WORDS
        if is_origin != (role == "origin"):
            continue
        earlier = [p for p in known if p.end <= offset + match.start()]
        places = [p for p in reversed(earlier) if p.kind != "country"]
        count = _COUNTS.get((match["count"] or "").strip().lower(), 1)
        if count > 2 and len(places) >= count:
            return places[count - 1].name  # "Yalda, Babila and Beit Sahm ... the three towns"
        if match["there"]:
            spots = [p for p in places if p.kind != "region"]
            return spots[0].name if spots else ""
        kind = match["kind"].lower()
        kinds = _REFERRED_KINDS.get(kind, ("district", "point", "crossing"))
        if kind.endswith("s"):  # a place named as two ("Fuaa and Kafraya") counts for both
            pair = [p for p in places if " and " in p.mention]
            if pair and (not places or places.index(pair[0]) <= 1):
                return pair[0].name
        named = [p for p in places if p.kind in kinds]
        if named:
            return named[count - 1].name if len(named) >= count else named[0].name
    return ""


def is_vehicle(figure: FigureMention) -> bool:
    words = figure.what.lower().split()
    if arabic_reading.is_arabic(figure.what):
        return arabic_reading.noun_kind(figure.what) == "vehicles"
    return any(word in VEHICLES for word in words) and not any(word in CONVOYS for word in words)


def is_people(figure: FigureMention) -> bool:
    words = figure.what.lower().split()
    if arabic_reading.is_arabic(figure.what):
        return arabic_reading.noun_kind(figure.what) == "people"
    return not any(word in VEHICLES or word in CONVOYS for word in words)


def _count_text(figure: FigureMention) -> str:
    return f"{count_only(figure)} {figure.what}"


def count_only(figure: FigureMention) -> str:
    """The figure in the scenario files' count grammar ('nearly 30', '1500-5000')."""
    low = figure.value if figure.value is not None else figure.low
    high = figure.value if figure.value is not None else figure.high
    qualifier = Qualifier(figure.qualifier) if figure.qualifier else None
    return str(Count(low or 0, high or 0, qualifier))
