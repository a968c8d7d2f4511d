"""Place names as the map prints them: in English, in Arabic, or both."""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from enum import StrEnum

from rapidfuzz import fuzz
from shapely.geometry import Point

from geo.geocoding import names
from geo.geocoding.gazetteer import Gazetteer
from geo.geocoding.gazetteer_sources import CURATED_ID
from geo.geocoding.geodesy import haversine_km
from geo.records import ControlZone, Place


class LabelLanguage(StrEnum):
    """The language of the place names on the map and in its exports."""

    ENGLISH = "en"
    ARABIC = "ar"
    BOTH = "both"


LABEL_LANGUAGES = {
    LabelLanguage.ENGLISH.value: "English",
    LabelLanguage.ARABIC.value: "Arabic",
    LabelLanguage.BOTH.value: "English and Arabic",
}
"""Each label language as the interface names it (in English; the message catalogue has it
in the interface's language)."""

MATCH_KM = 10.0
"""A gazetteer entry lends its Arabic name to a place only within this distance of it."""

_ARABIC = re.compile("[\u0621-\u064a]")
_NOT_ARABIC_LANGUAGE = re.compile("[^\u0621-\u0652\u0670 \u200c-\u200f-]")
"""Letters of Persian, Kurdish or Urdu (ڕ ە پ چ گ ی …) or of another script: not an Arabic name."""
_MARKS = re.compile("[\u064b-\u0652\u0670\u0640\u200c-\u200f]")

# Arabic letters as the consonants GeoNames' transliterations write for them.
_ROMAN = {
    "ا": "", "أ": "", "إ": "", "آ": "", "ء": "", "ؤ": "", "ئ": "", "ى": "", "و": "", "ي": "",
    "ب": "b", "ت": "t", "ث": "th", "ج": "j", "ح": "ḩ", "خ": "kh", "د": "d", "ذ": "dh",
    "ر": "r", "ز": "z", "س": "s", "ش": "sh", "ص": "ş", "ض": "ḑ", "ط": "ţ", "ظ": "z̧",
    "ع": "", "غ": "gh", "ف": "f", "ق": "q", "ك": "k", "ل": "l", "م": "m", "ن": "n",
    "ه": "h", "ة": "h",
}  # fmt: skip
_LATIN_VOWELS = re.compile("[aeiouyāēīōūáéíóúâêîôûwʼʻ‘’'`ʿʾ-]")
_LATIN_ARTICLE = re.compile(
    r"^(?:al|el|a[dnrstz]|ash|adh|ath)[\s-]+|(?<=\s)(?:al|el|a[dnrstz]|ash)[\s-]+"
)


def is_arabic(text: str) -> bool:
    """Whether `text` is written in Arabic letters."""
    return bool(_ARABIC.search(text))


def arabic_names(places: Iterable[Place], gazetteer: Gazetteer) -> dict[str, str]:
    """Each place's Arabic name (by place id), for the places that have one.

    A place's own Arabic alias comes first; otherwise the gazetteer entry that carries the
    place's name or one of its aliases and lies within `MATCH_KM` of it (Corridor's curated
    rows before GeoNames, then the nearest) lends its Arabic name.
    """
    found = {}
    for place in places:
        name = own_arabic(place) or _from_gazetteer(place, gazetteer)
        if name:
            found[place.id] = name
    return found


def own_arabic(place: Place) -> str:
    """The first Arabic-script name among the place's name and aliases ('' when none)."""
    return next((n for n in (place.name, *place.aliases) if is_arabic(n)), "")


def _from_gazetteer(place: Place, gazetteer: Gazetteer) -> str:
    forms = entry_arabic_names(gazetteer)
    written = {place.name, place.name.split(" (")[0], *place.aliases}
    keys = {names.normalise(name) for name in written} - {""}
    candidates = {int(entry) for key in keys for entry in gazetteer.entries(key)}
    near = [
        (not gazetteer.ids[entry].startswith(CURATED_ID), distance, entry)
        for entry in candidates
        if entry in forms
        and (distance := _km(place, gazetteer, entry)) <= MATCH_KM
        and gazetteer.country_codes[entry] == place.country_code
    ]
    if not near:
        return ""
    entry = min(near)[2]
    return best_arabic(forms[entry], gazetteer.names[entry], curated=not min(near)[0])


def entry_arabic_names(gazetteer: Gazetteer) -> dict[int, list[str]]:
    """For every gazetteer entry with Arabic names, those names in the order they were given."""

    def make(index: Gazetteer) -> dict[int, list[str]]:
        arabic_keys = {i for i, written in enumerate(index.written) if _ARABIC.search(written)}
        by_entry: dict[int, list[str]] = defaultdict(list)
        rows, entries = index.key_rows.pairs()
        for key, entry in zip(rows.tolist(), entries.tolist(), strict=True):
            if key in arabic_keys:
                by_entry[entry].append(index.written[key])
        return dict(by_entry)

    return gazetteer.derived("arabic-names", make)


def best_arabic(forms: Sequence[str], latin_name: str, *, curated: bool = False) -> str:
    """The Arabic form to print for a place whose main name is `latin_name`.

    Corridor's own rows list their usual Arabic name first. GeoNames gives its Arabic names in
    no order, among them older names, misspellings and Persian or Kurdish spellings. Its forms
    are grouped by their match key (harakat, hamza seats, the article and Persian letters
    folded); the group written most often wins ('عمّان', 'عَمّان', 'عمان' over 'امان'), and
    among equals the one whose consonants best match the transliterated name ('Ţarţūs':
    طرطوس, not ترطوس). Of a group, the form with the article and the most careful spelling
    (hamza on its seat, taa marbuta) is printed: 'الرقة' rather than 'رقه'.
    """
    if curated:
        return next((clean for form in forms if (clean := _clean(form))), "")
    groups: dict[str, list[str]] = defaultdict(list)
    for form in forms:
        if is_arabic(form) and (key := names.normalise(form)):
            groups[key].append(form)
    shown = {key: _spelling(group) for key, group in groups.items()}
    usable = [key for key, form in shown.items() if form]
    if not usable:
        return ""
    target = _latin_consonants(latin_name)
    plain = _undotted(target)

    def likeness(key: str) -> tuple[int, float, float, int]:
        consonants = _arabic_consonants(shown[key])
        return (
            len(groups[key]),
            fuzz.ratio(_undotted(consonants), plain),
            fuzz.ratio(consonants, target),
            -len(shown[key]),
        )

    return shown[max(usable, key=likeness)]


def _spelling(group: Sequence[str]) -> str:
    """The form of one name to print: Arabic letters only, with the article, carefully spelt."""
    clean = [form for written in group if (form := _clean(written))]
    return max(clean, key=lambda form: (form.startswith("ال"), _careful(form)), default="")


def _careful(form: str) -> int:
    return sum(form.count(letter) for letter in "أإآؤئءة")


def _clean(form: str) -> str:
    text = _MARKS.sub("", unicodedata.normalize("NFC", form)).strip()
    return "" if _NOT_ARABIC_LANGUAGE.search(text) else text


def _arabic_consonants(form: str) -> str:
    words = [word[2:] if word.startswith("ال") and len(word) > 3 else word for word in form.split()]
    return " ".join("".join(_ROMAN.get(letter, "") for letter in word) for word in words)


def _latin_consonants(name: str) -> str:
    text = unicodedata.normalize("NFC", name.casefold())
    text = _LATIN_ARTICLE.sub("", text)
    return re.sub(r"(.)\1+", r"\1", _LATIN_VOWELS.sub("", text)).strip()


def _undotted(text: str) -> str:
    """Without the dots and cedillas that tell emphatic from plain consonants ('ţ' → 't')."""
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def _km(place: Place, gazetteer: Gazetteer, entry: int) -> float:
    latitudes, longitudes = gazetteer.latitudes, gazetteer.longitudes
    return float(haversine_km(place.latitude, place.longitude, latitudes[entry], longitudes[entry]))


def zone_arabic(zone: ControlZone, places: Iterable[Place], arabic: dict[str, str]) -> str:
    """A zone's Arabic name: that of the place inside it that its name names ('Besieged
    Fuaa–Kafraya enclave': the Fuaa and Kafraya place's), the longest such name; '' if none.

    `arabic`: each place's Arabic name by place id (arabic_names).
    """
    written = zone.name.casefold()
    found: list[tuple[int, str]] = []
    for place in places:
        if place.id not in arabic:
            continue
        spelt = {place.name, place.name.split(" (")[0], *place.aliases}
        length = max((len(n) for n in spelt if n.strip() and n.casefold() in written), default=0)
        if length and zone.geometry.covers(Point(place.longitude, place.latitude)):
            found.append((length, arabic[place.id]))
    return max(found)[1] if found else ""


def label(name: str, arabic: str, language: LabelLanguage | str) -> str:
    """The name printed for a place: English, its Arabic name, or both ('Aleppo · حلب').

    A place without an Arabic name keeps its English one in every language.
    """
    language = LabelLanguage(language)
    if language is LabelLanguage.ENGLISH or not arabic:
        return name
    if language is LabelLanguage.ARABIC:
        return arabic
    return f"{name} · {arabic}"
