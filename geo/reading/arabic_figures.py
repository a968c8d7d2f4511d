"""Arabic figures: counts of people or vehicles in words or either script's digits."""

from __future__ import annotations

import re

from geo.reading.arabic_script import DIGITS, WORD, name_key
from geo.reading.mentions import FigureMention, Skipped
from geo.reading.rules import attribution, read_figures

ONES = {
    "واحد": 1, "واحدة": 1, "اثنان": 2, "اثنين": 2, "اثنتين": 2, "ثلاث": 3, "ثلاثة": 3,
    "أربع": 4, "أربعة": 4, "خمس": 5, "خمسة": 5, "ست": 6, "ستة": 6, "سبع": 7, "سبعة": 7,
    "ثمان": 8, "ثماني": 8, "ثمانية": 8, "تسع": 9, "تسعة": 9, "عشر": 10, "عشرة": 10,
    "عشرون": 20, "عشرين": 20, "ثلاثون": 30, "ثلاثين": 30, "أربعون": 40, "أربعين": 40,
    "خمسون": 50, "خمسين": 50, "ستون": 60, "ستين": 60, "سبعون": 70, "سبعين": 70,
    "ثمانون": 80, "ثمانين": 80, "تسعون": 90, "تسعين": 90, "مئة": 100, "مائة": 100,
    "مئتان": 200, "مئتين": 200, "مائتان": 200, "مائتين": 200,
}  # fmt: skip
HUNDREDS = {
    f"{unit}مئة": value * 100
    for unit, value in (
        ("ثلاث", 3),
        ("أربع", 4),
        ("خمس", 5),
        ("ست", 6),
        ("سبع", 7),
        ("ثمان", 8),
        ("تسع", 9),
    )
}
HUNDREDS.update({key.replace("مئة", "مائة"): value for key, value in HUNDREDS.items()})
THOUSANDS = {"ألفي": 2000, "ألفا": 1000, "ألف": 1000, "الف": 1000, "آلاف": 1000, "الاف": 1000,
             "ألفاً": 1000, "ألفان": 2000, "ألفين": 2000, "مليون": 1_000_000,
             "ملايين": 1_000_000}  # fmt: skip
NUMBER_WORDS = {**ONES, **HUNDREDS}
VAGUE = {"عشرات الآلاف": (20_000, 99_999), "عشرات الاف": (20_000, 99_999),
         "العشرات": (24, 99), "عشرات": (24, 99), "المئات": (200, 999), "مئات": (200, 999),
         "الآلاف": (2000, 9999), "آلاف": (2000, 9999), "الاف": (2000, 9999)}  # fmt: skip
HEDGES = {"نحو": "about", "قرابة": "about", "حوالي": "about", "حوالى": "about",
          "ما يقارب": "about", "زهاء": "about", "أكثر من": "more than", "اكثر من": "more than",
          "ما يزيد عن": "more than", "ما يزيد على": "more than", "ما لا يقل عن": "at least",
          "أقل من": "fewer than", "أقل من ": "fewer than", "قرابة الـ": "about",
          "نحو الـ": "about", "حتى": "up to"}  # fmt: skip
NOUNS = {
    name_key(word): kind
    for kind, words in (
        ("vehicles", "حافلة حافلات باص باصات سيارة سيارات آلية آليات شاحنة شاحنات"),
        ("convoys", "قافلة قوافل دفعة دفعات"),
        (
            "people",
            "شخص أشخاص شخصا شخصاً مدني مدنيين مدنيا مدنياً مقاتل مقاتلين مقاتلا "
            "مسلح مسلحين مسلحا عنصر عناصر جريح جرحى مريض مرضى عائلة عائلات عوائل "
            "طفل أطفال امرأة نساء مواطن مواطنين نازح نازحين مهجر مهجرين معتقل "
            "معتقلين مصاب مصابين حالة حالات فرد أفراد ساكن سكان مدنيون مقاتلون "
            "مسلحون نازحون مهجرون مسن مسنون مسنين قتيل قتيلا قتلى ضحية ضحايا نسمة "
            "عنصرا مواطنا طفلا امرأة سيدة رجل رجال شاب شبان",
        ),
    )
    for word in words.split()
}
"""The nouns an Arabic count is followed by, and whether they count vehicles or people."""
NOT_COUNTED = {
    name_key(word)
    for word in [
        "كم", "كيلومتر", "كيلومترات", "ساعة", "ساعات", "يوم", "أيام", "عام", "أعوام", "سنة",
        "سنوات", "شهر", "أشهر", "دقيقة", "دقائق", "بالمئة", "بالمائة", "%", "متر", "أمتار",
        "دولار",
    ]
}  # fmt: skip
_NUMBER_WORD = "|".join(sorted(map(re.escape, {**NUMBER_WORDS, **THOUSANDS}), key=len,
                               reverse=True))  # fmt: skip
_DIGIT = r"[0-9\u0660-\u0669]{1,3}(?:[,٬.][0-9\u0660-\u0669]{3})+|[0-9\u0660-\u0669]+"
_AMOUNT = (
    rf"(?:(?:{_DIGIT})(?:\s+(?:ألف|آلاف|الف|مليون))?"
    rf"|(?:{_NUMBER_WORD})(?:\s+(?:و\s?)?(?:{_NUMBER_WORD}))*)"
)
_HEDGE = "|".join(sorted(map(re.escape, HEDGES), key=len, reverse=True))
_FIGURE = re.compile(
    rf"(?:(?<=\sو)|(?<![\w\u0621-\u064a]))(?:(?P<vague>{'|'.join(map(re.escape, VAGUE))})"
    rf"|(?:(?P<hedge>{_HEDGE})\s*)?(?:(?P<between>ما\s+بين|بين)\s+)?(?P<low>{_AMOUNT})"
    rf"(?:\s*(?:-|–|و\s?|إلى\s+|الى\s+)(?P<high>{_AMOUNT}))?)"
    r"(?![\w\u0621-\u064a])"
)


def parse_amount(text: str) -> int | None:
    """'1500', '١٥٠٠', '1,500', 'خمسة آلاف', 'ألف ومئة', 'عشرين ألف', '3 آلاف' as a number."""
    text = text.translate(DIGITS).replace("٬", ",")
    total, current = 0, 0
    for word in re.split(r"\s+|(?<=\s)و|^و", text.strip()):
        word = word.removeprefix("و") if word not in NUMBER_WORDS else word
        if not word:
            continue
        digits = word.replace(",", "")
        if re.fullmatch(r"\d+(?:\.\d{3})+", word):
            digits = word.replace(".", "")
        if digits.isdigit():
            current += int(digits)
        elif word in NUMBER_WORDS:
            current += NUMBER_WORDS[word]
        elif word in THOUSANDS:
            scale = THOUSANDS[word]
            if word in ("ألفان", "ألفين", "ألفي"):
                current, scale = current or 1, 2000
            total += (current or 1) * scale
            current = 0
        else:
            return None
    return total + current or None


def find_figures(
    sentence_list: list[tuple[int, str]], skipped: list[Skipped]
) -> list[FigureMention]:
    """Counts of people or vehicles, with hedge and range, in either script's digits."""
    return read_figures(sentence_list, skipped, pattern=_FIGURE, read=_figure)


def _figure(sentence: str, offset: int, match: re.Match[str]) -> FigureMention | None:
    after = sentence[match.end() :]
    what = _noun(after)
    if not what:
        return None
    value: int | None = None
    low: int | None
    high: int | None
    if match["vague"]:
        low, high = VAGUE[match["vague"]]
    else:
        before = sentence[max(0, match.start() - 12) : match.start()]
        if re.search(r"(?:الساعة|عام|العام|سنة)\s*$", before):
            return None  # a clock time or a year
        low = parse_amount(match["low"])
        high = parse_amount(match["high"]) if match["high"] else None
        if not low or (high is not None and high < low):
            return None
        if high is None:
            value, low = low, None
    return FigureMention(
        what=what, qualifier=HEDGES.get(match["hedge"] or ""), sentence=sentence.strip(),
        attribution=attribution(sentence), start=offset + match.start(),
        end=offset + match.end(), value=value, low=low, high=high, kind=noun_kind(what),
    )  # fmt: skip


def noun_kind(what: str) -> str:
    """'vehicles', 'convoys' or 'people' for an Arabic counted noun ('' for another)."""
    for word in what.split():
        kind = NOUNS.get(name_key(word)) or NOUNS.get(name_key(word.removeprefix("ال")))
        if kind:
            return str(kind)
    return ""


def _noun(after: str) -> str:
    """The counted noun among the next words ('1500 مدني', '20 من الجرحى', 'آلاف العائلات')."""
    words = WORD.findall(after)[:3]
    for number, word in enumerate(words):
        bare = word.removeprefix("ال")
        key = name_key(word)
        if key in NOT_COUNTED and number == 0:
            return ""
        if key in NOUNS or name_key(bare) in NOUNS:
            return str(word)
    return ""
