"""Reading Arabic reports: places by gazetteer look-up over word n-grams, figures, times."""

from __future__ import annotations

import bisect
import itertools
import re
from datetime import date
from typing import TYPE_CHECKING, Any

from geo import names
from geo.geocoding import OfflineGeocoder, haversine_km

if TYPE_CHECKING:
    from geo.extract import ConvoyDraft, FigureMention, PlaceMention, Skipped, TimeMention

ARABIC_LETTER = re.compile("[\u0621-\u064a]")
LATIN_LETTER = re.compile("[A-Za-z]")
_WORD = re.compile("[\u0621-\u064a\u0640\u064b-\u065f\u0670\u0671-\u06d3]+|[0-9\u0660-\u0669]+")
_SENTENCE = re.compile(r"[^.!?؟\n]+(?:[.!?؟]+|\n|$)")
MAX_WORDS = 4
DIGITS = str.maketrans("٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹", "01234567890123456789")


def is_arabic(text: str) -> bool:
    """True when most of the letters of `text` are Arabic."""
    arabic = len(ARABIC_LETTER.findall(text))
    return arabic > 2 * len(LATIN_LETTER.findall(text))


def sentences(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) for every sentence; '؟' and line ends end one too."""
    return [(m.start(), m.group()) for m in _SENTENCE.finditer(text) if m.group().strip()]


def _key(word: str) -> str:
    return names.normalise(word)


# --- places --------------------------------------------------------------------------------

STOP = {
    _key(word)
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
    words = list(_WORD.finditer(text))
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
    from geo.extract import PlaceMention

    start, end = span[0].start(), span[-1].end()
    written = text[start:end]
    # a clitic taken off leaves the mention one letter later or more ("للفوعة": the article's
    # alef was dropped after لل, so the mention starts one letter in)
    forms = [(written, 0)]
    forms += [(bare, max(1, len(written) - len(bare))) for bare in names.without_clitics(written)]
    for form, shift in forms:
        if len(form.split()) == 1 and (_key(form) in STOP or _key(form) in MORE_STOP):
            continue
        known = geocoder.gazetteer.position(_key(form)) is not None
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
    position = geocoder.gazetteer.position(_key(form))
    written = geocoder.gazetteer.written[position] if position is not None else ""
    return written.startswith("ال")


_DESCRIPTIVE = re.compile(r"^(?:ريف|محافظة|حي|أحياء|مخيم|معبر|مدينة|بلدة|قرية|شمال|جنوب|شرق|غرب)")


def _descriptive(form: str) -> bool:
    return bool(_DESCRIPTIVE.match(form))


ABROAD = {
    _key(name)
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
} | {_key("غازي عنتاب"), _key("نيويورك")}
"""The cities abroad that Arabic reports on Syria name: any other foreign town read from an
Arabic word ('ليل' night, 'صور' pictures, 'آب' August) is a namesake."""
MORE_STOP = {
    _key(word)
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
    return _key(form) in ABROAD


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


# --- figures -------------------------------------------------------------------------------

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
    _key(word): kind
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
    _key(word)
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
    text: str, sentence_list: list[tuple[int, str]], skipped: list[Skipped]
) -> list[FigureMention]:
    """Counts of people or vehicles, with hedge and range, in either script's digits."""
    from geo import extract

    return extract.find_figures(text, sentence_list, skipped, pattern=_FIGURE, read=_figure)


def _figure(sentence: str, offset: int, match: re.Match[str]) -> FigureMention | None:
    from geo.extract import FigureMention, attribution

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
        end=offset + match.end(), value=value, low=low, high=high,
    )  # fmt: skip


def noun_kind(what: str) -> str:
    """'vehicles', 'convoys' or 'people' for an Arabic counted noun ('' for another)."""
    for word in what.split():
        kind = NOUNS.get(_key(word)) or NOUNS.get(_key(word.removeprefix("ال")))
        if kind:
            return str(kind)
    return ""


def _noun(after: str) -> str:
    """The counted noun among the next words ('1500 مدني', '20 من الجرحى', 'آلاف العائلات')."""
    words = _WORD.findall(after)[:3]
    for number, word in enumerate(words):
        bare = word.removeprefix("ال")
        key = _key(word)
        if key in NOT_COUNTED and number == 0:
            return ""
        if key in NOUNS or _key(bare) in NOUNS:
            return str(word)
    return ""


# --- times ---------------------------------------------------------------------------------

WEEKDAYS = {"الاثنين": 0, "الإثنين": 0, "الثلاثاء": 1, "الأربعاء": 2, "الاربعاء": 2,
            "الخميس": 3, "الجمعة": 4, "السبت": 5, "الأحد": 6, "الاحد": 6}  # fmt: skip
MONTHS = {
    "كانون الثاني": 1, "شباط": 2, "آذار": 3, "اذار": 3, "نيسان": 4, "أيار": 5, "ايار": 5,
    "حزيران": 6, "تموز": 7, "آب": 8, "اب": 8, "أيلول": 9, "ايلول": 9, "تشرين الأول": 10,
    "تشرين الاول": 10, "تشرين الثاني": 11, "كانون الأول": 12, "كانون الاول": 12, "يناير": 1,
    "فبراير": 2, "مارس": 3, "أبريل": 4, "ابريل": 4, "إبريل": 4, "مايو": 5, "يونيو": 6,
    "يوليو": 7, "أغسطس": 8, "اغسطس": 8, "سبتمبر": 9, "أكتوبر": 10, "اكتوبر": 10,
    "نوفمبر": 11, "ديسمبر": 12,
}  # fmt: skip
HOURS = {"الواحدة": 1, "الثانية": 2, "الثالثة": 3, "الرابعة": 4, "الخامسة": 5, "السادسة": 6,
         "السابعة": 7, "الثامنة": 8, "التاسعة": 9, "العاشرة": 10, "الحادية عشرة": 11,
         "الثانية عشرة": 12}  # fmt: skip
ENGLISH_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = re.compile(
    r"(?<![\u0621-\u064a])(?:يوم\s+)?(?P<day>" + "|".join(WEEKDAYS) + r")(?![\u0621-\u064a])"
)
_AHEAD = re.compile(r"\s+(?:المقبل|القادم)")
"""'يوم السبت المقبل': next Saturday."""
_MONTH = "|".join(sorted(map(re.escape, MONTHS), key=len, reverse=True))
_DATE = re.compile(rf"(?P<day>[0-9\u0660-\u0669]{{1,2}})\s+(?:من\s+)?(?P<month>{_MONTH})")
_HOUR = "|".join(sorted(HOURS, key=len, reverse=True))
_CLOCK = re.compile(
    rf"الساعة\s+(?P<hour>[0-9\u0660-\u0669]{{1,2}}|{_HOUR})(?:[:.](?P<minute>[0-9\u0660-\u0669]{{2}}))?"
    r"(?:\s+(?:من\s+)?(?P<half>صباح|ظهر|بعد الظهر|عصر|مساء|ليل)\w*)?"
)


def find_times(text: str, published: date | None) -> list[TimeMention]:
    """Weekdays, dates in Levantine or Egyptian month names, and clock times."""
    from geo.extract import TimeMention, _date, _weekday

    found = []
    for match in _WEEKDAY.finditer(text):
        english = ENGLISH_DAYS[WEEKDAYS[match["day"]]]
        future = bool(_AHEAD.match(text, match.end()))
        found.append(TimeMention(match.group(), match.start(), match.end(), "weekday",
                                 _weekday(english, published, future=future)))  # fmt: skip
    for match in _DATE.finditer(text):
        day = int(match["day"].translate(DIGITS))
        found.append(TimeMention(match.group(), match.start(), match.end(), "date",
                                 _date(MONTHS[match["month"]], day, published)))  # fmt: skip
    for match in _CLOCK.finditer(text):
        hour_text = match["hour"]
        hour = HOURS.get(hour_text) or int(hour_text.translate(DIGITS))
        if not 0 <= hour <= 24:
            continue
        if match["half"] in ("مساء", "ليل", "عصر", "بعد الظهر") and hour < 12:
            hour += 12
        minute = int((match["minute"] or "0").translate(DIGITS))
        found.append(TimeMention(match.group(), match.start(), match.end(), "clock", "",
                                 f"{hour % 24:02d}:{minute:02d}", ""))  # fmt: skip
    return sorted(found, key=lambda moment: moment.start)


# --- convoys -------------------------------------------------------------------------------

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
    from geo.extract import ConvoyDraft, _between, _count_text, is_people, is_vehicle

    drafts = []
    starts = [[item.start for item in items] for items in (places, figures, times)]
    for offset, sentence in sentence_list:
        if not _MOVEMENT.search(_plain(sentence)):
            continue
        end = offset + len(sentence)
        inside = _between(places, starts[0], offset, end)
        counted = _between(figures, starts[1], offset, end)
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
        moments = _between(times, starts[2], offset, end)
        drafts.append(ConvoyDraft(
            sentence=sentence.strip(), start=offset, origin=roles["origin"],
            destination=roles["destination"], via=roles["via"],
            vehicles=[_count_text(f) for f in counted if is_vehicle(f)],
            people=[_count_text(f) for f in counted if is_people(f)],
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
