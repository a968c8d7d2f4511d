"""Phrases people write for a place: '5 km west of Aleppo', 'east Aleppo', 'Idlib province'."""

from __future__ import annotations

import re
from dataclasses import dataclass

NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "a": 1, "a few": 3, "several": 5,
}  # fmt: skip
UNITS_KM = {"k": 1.0, "mi": 1.609344, "m": 0.001}  # by the first letters of the unit
BEARINGS = {
    "north": 0, "northeast": 45, "east": 90, "southeast": 135, "south": 180, "southwest": 225,
    "west": 270, "northwest": 315,
}  # fmt: skip
HEDGES = r"(?:about|around|some|roughly|approximately|nearly|almost|just|over|more than|less than)"
_DIRECTION = r"(?P<direction>(?:north|south)(?:[- ]?(?:east|west))?|east|west)(?:ern|erly)?"
_NUMBER = (
    r"(?P<number>\d+(?:[.,]\d+)?|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + ")"
)
_UNIT = r"(?P<unit>km|kms|kilometres?|kilometers?|miles?|mi|m|metres?|meters?)"
_OFFSET = re.compile(
    rf"^(?:{HEDGES}\s+)?{_NUMBER}\s*-?\s*{_UNIT}\.?(?:\s*\([^)]*\))?\s+"
    rf"(?:to the\s+)?{_DIRECTION}\s+of\s+(?P<target>.+)$",
    re.IGNORECASE,
)
_AREA = re.compile(
    rf"^(?:the\s+)?{_DIRECTION}\s+(?:part of\s+|outskirts of\s+|of\s+)?(?P<target>.+)$",
    re.IGNORECASE,
)
_CENTRAL = re.compile(
    r"^(?:central|downtown|the centre of|the center of)\s+(?P<target>.+)$", re.IGNORECASE
)
_REGION = re.compile(
    r"^(?P<target>.+?)\s+(?P<suffix>province|governorate|region|countryside|muhafazah?|district)$"
    r"|^(?:rural|rif|the countryside of|the province of)\s+(?P<target2>.+)$",
    re.IGNORECASE,
)
_SETTLEMENT = re.compile(
    r"^(?:the\s+)?(?:city|town|village) of\s+(?P<target>.+)$"
    r"|^(?P<target2>.+?)\s+(?:city|town|village)$",
    re.IGNORECASE,
)
_QUARTER = re.compile(
    r"^(?:the\s+)?(?P<target>.+?)\s+(?:neighbou?rhoods?|quarter|area|camp|suburbs?|district)$",
    re.IGNORECASE,
)
"""'Qaboun neighbourhood', 'the Barzeh area', 'Al-Waer district': the named part of a town."""
_CONTEXT_WORDS = re.compile(r"^(?:the\s+)?(?:city|town|village|area|capital|it|there)$", re.I)


@dataclass(frozen=True)
class Phrase:
    """A parsed phrase: what it is anchored on, and how far and which way from it."""

    target: str
    kind: str  # "offset", "area", "region", "settlement", "quarter"
    distance_km: float = 0.0
    bearing: float | None = None
    direction: str = ""

    @property
    def refers_to_context(self) -> bool:
        """True when the target is 'the city', 'the town' … rather than a name."""
        return bool(_CONTEXT_WORDS.match(self.target))


_HINTS = re.compile(
    r"\b(?:north|south|east|west|central|centre|center|downtown|province|governorate|region|"
    r"countryside|muhafaz|district|rural|rif |city|town|village|of |neighbo|quarter|area|camp|"
    r"suburb)",
    re.IGNORECASE,
)
"""Every phrase holds one of these at the start of a word; a name without any ('Georgetown',
'Eastbourne' ...) is not parsed further (fast path)."""


_ARABIC_LETTER = re.compile("[\u0621-\u064a]")
_ARABIC_KIND = {
    "مدينة": "settlement", "بلدة": "settlement", "قرية": "settlement", "حي": "quarter",
    "احياء": "quarter", "أحياء": "quarter", "مخيم": "quarter", "معبر": "quarter",
    "منطقة": "quarter", "ريف": "region", "محافظة": "region", "مناطق": "region",
}  # fmt: skip
_ARABIC_BEARING = {
    "شمال غرب": "northwest", "شمال غربي": "northwest", "شمال شرق": "northeast",
    "شمال شرقي": "northeast", "جنوب غرب": "southwest", "جنوب غربي": "southwest",
    "جنوب شرق": "southeast", "جنوب شرقي": "southeast", "شمال": "north", "شمالي": "north",
    "جنوب": "south", "جنوبي": "south", "شرق": "east", "شرقي": "east", "غرب": "west",
    "غربي": "west", "وسط": "central",
}  # fmt: skip
_ARABIC_PHRASE = re.compile(
    r"^(?P<bearing>(?:شمال|جنوب)(?:ي)?\s+(?:غرب|شرق)(?:ي)?|شمالي?|جنوبي?|شرقي?|غربي?|وسط)\s+(?P<target>.+)$"
    r"|^(?P<kind>" + "|".join(_ARABIC_KIND) + r")\s+(?P<target2>.+)$"
)
"""'شمال حلب' (north of Aleppo), 'ريف حلب' (rural Aleppo), 'حي الوعر' (the al-Waer quarter)."""


def _arabic(text: str) -> Phrase | None:
    """An Arabic descriptive phrase read as its English twin would be."""
    match = _ARABIC_PHRASE.match(text)
    if not match:
        return None
    if match["bearing"]:
        direction = _ARABIC_BEARING[" ".join(match["bearing"].split())]
        if direction == "central":
            return Phrase(match["target"].strip(), "area", 0.0, None, "central")
        return Phrase(match["target"].strip(), "area", 0.0, BEARINGS[direction], direction)
    return Phrase(match["target2"].strip(), _ARABIC_KIND[match["kind"]])


def parse(query: str) -> Phrase | None:
    """The phrase in `query`, or None when it is (or may be) a bare name."""
    if _ARABIC_LETTER.search(query):
        return _arabic(" ".join(query.split()).strip(" .,;،"))
    if not _HINTS.search(query):
        return None
    text = " ".join(query.split()).strip(" .,;")
    match = _OFFSET.match(text)
    if match:
        direction = _direction(match["direction"])
        distance = _number(match["number"]) * UNITS_KM[_unit(match["unit"])]
        return Phrase(match["target"].strip(), "offset", distance, BEARINGS[direction], direction)
    match = _SETTLEMENT.match(text)
    if match:
        return Phrase((match["target"] or match["target2"]).strip(), "settlement")
    # A direction before a region ('northern Idlib province') is a part of that region:
    # the direction is read first, and the region is then its target.
    match = _CENTRAL.match(text)
    if match:
        return Phrase(match["target"].strip(), "area", 0.0, None, "central")
    match = _AREA.match(text)
    if match:
        direction = _direction(match["direction"])
        return Phrase(match["target"].strip(), "area", 0.0, BEARINGS[direction], direction)
    match = _REGION.match(text)
    if match:
        return Phrase((match["target"] or match["target2"]).strip(), "region")
    match = _QUARTER.match(text)
    if match:
        return Phrase(match["target"].strip(), "quarter")
    return None


def quarter(query: str) -> Phrase | None:
    """'Al-Waer district' read as a named part of a town, when no region is so named."""
    match = _QUARTER.match(" ".join(query.split()).strip(" .,;"))
    return Phrase(match["target"].strip(), "quarter") if match else None


def _direction(text: str) -> str:
    return re.sub(r"[- ]", "", text.lower())


def _number(text: str) -> float:
    lowered = text.lower()
    if lowered in NUMBER_WORDS:
        return float(NUMBER_WORDS[lowered])
    return float(lowered.replace(",", "."))


def _unit(text: str) -> str:
    lowered = text.lower()
    return "k" if lowered.startswith("k") else "mi" if lowered.startswith("mi") else "m"
