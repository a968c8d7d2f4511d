"""Arabic movements: a convoy draft per sentence that moves people (من, إلى, عبر)."""

from __future__ import annotations

import bisect
import re
from typing import Any

from geo.reading.arabic_script import ARABIC_LETTER
from geo.reading.mentions import ConvoyDraft, FigureMention, PlaceMention, TimeMention
from geo.reading.rules import between, counts_of

_MARKS = re.compile("[\u064b-\u065f\u0670\u0640]")


def _plain(text: str) -> str:
    """Arabic without harakat and tatweel ('نُقلت' → 'نقلت'), for finding words."""
    return _MARKS.sub("", text)


_MOVEMENT = re.compile(
    r"(?:خرج|خروج|إخراج|اخراج|أخرج|مهجر|غادر|مغادرة|وصل|وصول|انطلق|انطلاق|نقل|إجلاء|اجلاء|تهجير|هجر|أجلي|دخل|دخول"
    r"|توجه|حافلات|حافلة|قافلة|قوافل|سيارات الإسعاف|أقلت|تقل|يقل)"
)
ROLE_WORDS = {
    "origin": ("من", "مغادرة", "غادر", "غادرت", "غادروا", "خروجهم من", "أحياء"),
    "destination": ("إلى", "الى", "باتجاه", "نحو", "صوب", "حتى", "لـ"),
    "via": ("عبر", "مرورا", "مروراً", "مرورا ب", "مروراً ب", "طريق"),
}
_ROLE = {word: role for role, words in ROLE_WORDS.items() for word in words}
_ROLE_BEFORE = re.compile(  # the greedy start finds the role word nearest the place
    r".*(?<![\u0621-\u064a])(?P<word>"
    + "|".join(sorted(map(re.escape, _ROLE), key=len, reverse=True))
    + r")\s+(?:\S+\s+){0,5}$"
)


def find_convoys(
    sentence_list: list[tuple[int, str]],
    places: list[PlaceMention],
    figures: list[FigureMention],
    times: list[TimeMention],
) -> list[ConvoyDraft]:
    """A draft per sentence that moves people: من origin, إلى/باتجاه destination, عبر via."""
    drafts = []
    starts = [[item.start for item in items] for items in (places, figures, times)]
    for offset, sentence in sentence_list:
        if not _MOVEMENT.search(_plain(sentence)):
            continue
        end = offset + len(sentence)
        inside = between(places, starts[0], offset, end)
        counted = between(figures, starts[1], offset, end)
        roles: dict[str, Any] = {"origin": "", "destination": "", "via": []}
        for place in inside:
            role = _role(sentence, offset, place)
            if role == "via":
                roles["via"].append(place.name)
            elif role and not roles[role]:
                roles[role] = place.name
        earlier = places[: bisect.bisect_left(starts[0], offset)]
        for role in ("origin", "destination"):
            roles[role] = roles[role] or _named_before(sentence, role, earlier)
        if not (inside or counted or roles["origin"] or roles["destination"]):
            continue
        moments = between(times, starts[2], offset, end)
        drafts.append(ConvoyDraft(
            sentence=sentence.strip(), start=offset, origin=roles["origin"],
            destination=roles["destination"], via=roles["via"],
            vehicles=counts_of(counted, "vehicles"),
            people=counts_of(counted, "people"),
            time=moments[0].text if moments else "",
        ))  # fmt: skip
    return drafts


_BACK_REFERENCE = re.compile(
    r"(?P<role>من|غادر\w*|إلى|الى|باتجاه|نحو)\s+(?:[^\s]+\s+){0,2}?"
    r"(?P<noun>المدينة|مدينتهم|مدينته|البلدة|بلدتهم|البلدات|القرية|القريتين|البلدتين|الحي"
    r"|الأحياء|حيهم|المخيم)(?![\u0621-\u064a])"
)
"""'غادرت الحافلات المدينة', 'إلى البلدة': a place named before, by the noun's kind."""
_REFERRED = {
    "المدينة": ("city", "town"), "مدينتهم": ("city", "town"), "مدينته": ("city", "town"),
    "البلدة": ("town", "village", "city"), "بلدتهم": ("town", "village", "city"),
    "البلدات": ("town", "village", "city"), "البلدتين": ("town", "village", "point"),
    "القرية": ("village", "town"), "القريتين": ("village", "point"), "الحي": ("district",),
    "الأحياء": ("district",), "حيهم": ("district",), "المخيم": ("district", "point"),
}  # fmt: skip


def _named_before(sentence: str, role: str, earlier: list[PlaceMention]) -> str:
    """The place a back-reference in a movement sentence means: the last one of its kind."""
    for match in _BACK_REFERENCE.finditer(_plain(sentence)):
        is_origin = match["role"] == "من" or match["role"].startswith("غادر")
        if is_origin != (role == "origin"):
            continue
        kinds = _REFERRED[match["noun"]]
        for place in reversed(earlier):
            if place.kind in kinds:
                return place.name
    return ""


def _role(sentence: str, offset: int, place: PlaceMention) -> str:
    """The part a place plays, from the word before it or the clitic joined to it."""
    local = place.start - offset
    joined = sentence[max(0, local - 1) : local]
    word_start = local - 1 if joined and ARABIC_LETTER.match(joined) else local
    if joined == "ل" and word_start < local and _MOVEMENT.search(_plain(sentence[:local])[-30:]):
        return "destination"  # "خرجوا لإدلب": to (after a movement word; else "of")
    tail = sentence[: word_start if word_start < local else local]
    match = _ROLE_BEFORE.match(tail[-40:])
    if match:
        return _ROLE[match["word"]]
    if joined == "ب" and re.search(r"مرورا?ً?\s*$", tail):
        return "via"
    return ""
