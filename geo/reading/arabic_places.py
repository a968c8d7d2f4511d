"""Arabic places: gazetteer names over word n-grams, a joined clitic taken off, with evidence."""

from __future__ import annotations

import itertools
import re
from typing import Any

from geo.geocoding import OfflineGeocoder, names
from geo.geocoding.geodesy import haversine_km
from geo.reading.arabic_script import WORD, name_key
from geo.reading.mentions import PlaceMention

MAX_WORDS = 4
"""The longest place name looked for, in words."""

STOP = {
    name_key(word)
    for word in [
        "من",
        "إلى",
        "الى",
        "على",
        "عن",
        "في",
        "مع",
        "بعد",
        "قبل",
        "حيث",
        "أن",
        "ان",
        "إن",
        "كان",
        "كانت",
        "قال",
        "قالت",
        "يوم",
        "اليوم",
        "أمس",
        "غدا",
        "الذي",
        "التي",
        "الذين",
        "هذا",
        "هذه",
        "ذلك",
        "تلك",
        "بين",
        "خلال",
        "عبر",
        "نحو",
        "حوالي",
        "قرابة",
        "أكثر",
        "أقل",
        "منذ",
        "حتى",
        "مدينة",
        "بلدة",
        "قرية",
        "حي",
        "أحياء",
        "مخيم",
        "معبر",
        "منطقة",
        "ريف",
        "محافظة",
        "شمال",
        "جنوب",
        "شرق",
        "غرب",
        "وسط",
        "حافلة",
        "حافلات",
        "الحافلات",
        "قافلة",
        "قوافل",
        "مدني",
        "مدنيين",
        "المدنيين",
        "مقاتل",
        "مقاتلين",
        "المقاتلين",
        "عائلة",
        "عائلات",
        "العائلات",
        "جريح",
        "جرحى",
        "الجرحى",
        "سيارة",
        "سيارات",
        "إسعاف",
        "الإسعاف",
        "شخص",
        "أشخاص",
        "الهلال",
        "الأحمر",
        "العربي",
        "السوري",
        "المرصد",
        "الحكومة",
        "النظام",
        "الجيش",
        "المعارضة",
        "الفصائل",
        "الأحد",
        "الاثنين",
        "الثلاثاء",
        "الأربعاء",
        "الخميس",
        "الجمعة",
        "السبت",
        "الساعة",
        "صباحا",
        "مساء",
        "اتفاق",
        "الاتفاق",
        "عملية",
        "العملية",
        "إجلاء",
        "الإجلاء",
        "خروج",
        "وصول",
        "دخول",
        "الأمم",
        "المتحدة",
        "الشرقية",
        "الغربية",
        "الشمالية",
        "الجنوبية",
        "الشرقي",
        "الغربي",
        "الشمالي",
        "الجنوبي",
        "المحاصرة",
        "النصر",
        "السلام",
        "الحرية",
        "الثورة",
        "الشعب",
        "الوطن",
        "الأمن",
        "الدفاع",
        "المدني",
        "وإن",
        "وان",
        "فإن",
        "لأن",
        "بأن",
        "وأن",
        "وإنه",
        "كما",
        "لكن",
        "ولكن",
        "أيضا",
        "وقد",
        "قد",
        "لقد",
    ]
}
"""Common words of Arabic news that are also some village's name: never a place on their own."""
KINDS_ALONE = ("city", "town", "district", "crossing", "region", "country")
NEAR_KM = 60.0


def find_places(text: str, geocoder: OfflineGeocoder) -> list[PlaceMention]:
    """Every gazetteer name in the text, longest first, a joined clitic taken off when the
    rest is a name; single words that are only a village far from the others are dropped."""
    words = list(WORD.finditer(text))
    found: list[PlaceMention] = []
    taken = [False] * len(words)
    for i in range(len(words)):
        if taken[i]:
            continue
        for size in range(min(MAX_WORDS, len(words) - i), 0, -1):
            span = words[i : i + size]
            if True in taken[i : i + size] or _gap(text, span):
                continue
            mention = _place(text, span, geocoder)
            if mention:
                found.append(mention)
                taken[i : i + size] = [True] * size
                break
    return _with_evidence(found)


def _gap(text: str, span: list[re.Match[str]]) -> bool:
    return any(text[a.end() : b.start()].strip(" \t") for a, b in itertools.pairwise(span))


def _place(text: str, span: list[re.Match[str]], geocoder: OfflineGeocoder) -> Any:
    start, end = span[0].start(), span[-1].end()
    written = text[start:end]
    # a clitic taken off leaves the mention one letter later or more ("للفوعة": the article's
    # alef was dropped after لل, so the mention starts one letter in)
    forms = [(written, 0)]
    forms += [(bare, max(1, len(written) - len(bare))) for bare in names.without_clitics(written)]
    for form, shift in forms:
        if len(form.split()) == 1 and (name_key(form) in STOP or name_key(form) in MORE_STOP):
            continue
        known = geocoder.gazetteer.position(name_key(form)) is not None
        if not known and not (len(span) > 1 and _descriptive(form)):
            continue
        location: Any = geocoder.geocode(form)
        if location is None or not _trusted(location, geocoder, form):
            continue
        if _article_missing(form, geocoder):
            continue
        raw = location.raw
        return PlaceMention(
            text[start + shift : end], start + shift, end, raw["name"], location.latitude,
            location.longitude, raw["country_code"], raw["kind"], raw["precision"],
            raw["score"], raw["id"],
        )  # fmt: skip
    return None


def _article_missing(form: str, geocoder: OfflineGeocoder) -> bool:
    """'قدّم' (he presented) is not 'القدم' (al-Qadam): the name is written with its article."""
    if form.startswith("ال") or " " in form:
        return False
    position = geocoder.gazetteer.position(name_key(form))
    written = geocoder.gazetteer.written[position] if position is not None else ""
    return written.startswith("ال")


_DESCRIPTIVE = re.compile(r"^(?:ريف|محافظة|حي|أحياء|مخيم|معبر|مدينة|بلدة|قرية|شمال|جنوب|شرق|غرب)")


def _descriptive(form: str) -> bool:
    return bool(_DESCRIPTIVE.match(form))


ABROAD = {
    name_key(name)
    for name in [
        "موسكو",
        "أنقرة",
        "انقرة",
        "طهران",
        "بيروت",
        "عمان",
        "جنيف",
        "أستانا",
        "استانا",
        "الدوحة",
        "إسطنبول",
        "اسطنبول",
        "الرياض",
        "بغداد",
        "القاهرة",
        "واشنطن",
        "باريس",
        "لندن",
        "برلين",
        "سوتشي",
        "الموصل",
        "أربيل",
        "اربيل",
        "طرابلس",
        "عرسال",
        "الهرمل",
        "البقاع",
        "كلس",
        "الريحانية",
        "أنطاكيا",
        "هاتاي",
    ]
} | {name_key("غازي عنتاب"), name_key("نيويورك")}
"""The cities abroad that Arabic reports on Syria name: any other foreign town read from an
Arabic word ('ليل' night, 'صور' pictures, 'آب' August) is a namesake."""
MORE_STOP = {
    name_key(word)
    for word in [
        "كانون",
        "شباط",
        "آذار",
        "نيسان",
        "أيار",
        "حزيران",
        "تموز",
        "آب",
        "أيلول",
        "تشرين",
        "يناير",
        "فبراير",
        "مارس",
        "أبريل",
        "مايو",
        "يونيو",
        "يوليو",
        "أغسطس",
        "سبتمبر",
        "أكتوبر",
        "نوفمبر",
        "ديسمبر",
        "الدولة",
        "الحصار",
        "حصار",
    ]
}
"""Month names and words of siege news that some place also bears."""


def _trusted(location: Any, geocoder: OfflineGeocoder, form: str) -> bool:
    """At home a name found exactly; abroad a country, a region or a city of ABROAD."""
    raw = location.raw
    if raw["method"] not in ("exact", "alias", "phrase"):
        return False
    if raw["country_code"] == geocoder.country_bias or raw["kind"] in ("country", "region"):
        return True
    if geocoder.country_bias is None and raw["kind"] == "city":
        return True  # a report read without a home: its cities are where it is
    return name_key(form) in ABROAD


def _with_evidence(found: list[PlaceMention]) -> list[PlaceMention]:
    """A village read from one word stays only near another place of the report."""
    solid = [p for p in found if p.kind in KINDS_ALONE or " " in p.mention]
    kept = []
    for place in found:
        if place.kind in KINDS_ALONE or " " in place.mention:
            kept.append(place)
            continue
        others = [p for p in solid if p.name != place.name]
        if any(
            haversine_km(place.latitude, place.longitude, o.latitude, o.longitude) <= NEAR_KM
            for o in others
        ):
            kept.append(place)
    return kept
