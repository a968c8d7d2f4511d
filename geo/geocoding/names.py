"""Place-name normalisation: one key for the many ways Arabic (and other) names are written."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

# Letters that Unicode decomposition leaves alone, and marks that are dropped outright.
_LETTERS = {
    "ı": "i", "ł": "l", "ø": "o", "đ": "d", "ħ": "h", "ŧ": "t", "ß": "ss", "æ": "ae",
    "œ": "oe", "þ": "th", "ð": "d",
    "أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "ة": "ه", "ى": "ي",  # Arabic letter variants
    "ی": "ي", "ک": "ك", "ە": "ه", "ۀ": "ه", "ؤ": "و", "ئ": "ي", "ء": "",  # Persian, hamza seats
    **{chr(0x0660 + d): str(d) for d in range(10)},  # Arabic-Indic digits
    **{chr(0x06F0 + d): str(d) for d in range(10)},  # Persian digits
}  # fmt: skip
ARABIC_CLITICS = ("وال", "بال", "فال", "كال", "لل", "وب", "ول", "وك", "و", "ب", "ل", "ك", "ف")
"""Letters joined to the front of an Arabic word ('and', 'in', 'to', 'like', 'so'), longest
first; 'وال' and 'لل' leave the article ('والفوعة' → 'الفوعة', 'للفوعة' → 'الفوعة')."""
_ARABIC_SCRIPT = re.compile("[\u0600-\u06ff]")


def without_clitics(name: str) -> list[str]:
    """The ways `name` reads with a clitic taken off its first word, most likely first.

    Only forms whose first word keeps three letters or more are given; the caller keeps the
    one that is a known name (a name can begin with the same letters: 'بستان', 'كفريا')."""
    if not _ARABIC_SCRIPT.match(name.strip()):
        return []
    first, _, rest = name.strip().partition(" ")
    forms = []
    for clitic in ARABIC_CLITICS:
        if first.startswith(clitic) and len(first) - len(clitic) >= 3:
            bare = first[len(clitic) :]
            if clitic in ("وال", "بال", "فال", "كال", "لل"):
                bare = "ال" + bare
            forms.append(f"{bare} {rest}".strip())
    return forms


# Cyrillic is read as Latin, so 'Запорожье', 'Запоріжжя' and 'Zaporozhye' meet: Ukrainian words
# (those with і ї є ґ) by Ukraine's national romanisation, others by the usual English one for
# Russian (BGN-like, 'ye' after a vowel or soft sign, 'y' for й and ы).
_CYRILLIC = {
    "а": "a", "б": "b", "в": "v", "д": "d", "ж": "zh", "з": "z", "к": "k", "л": "l", "м": "m",
    "н": "n", "о": "o", "п": "p", "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f", "х": "kh",
    "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ь": "", "ъ": "", "ґ": "g", "ў": "u",
    "ј": "j", "љ": "lj", "њ": "nj", "ћ": "c", "ђ": "dj", "џ": "dz", "ѓ": "g", "ќ": "k",
    "ѕ": "dz", "қ": "k", "ғ": "g", "ң": "n", "ү": "u", "ұ": "u", "һ": "h", "ө": "o", "ә": "a",
}  # fmt: skip
_UKRAINIAN = {"г": "h", "е": "e", "и": "y", "і": "i", "ї": "i", "й": "i", "є": "ie", "ю": "iu",
              "я": "ia"}  # fmt: skip
_UKRAINIAN_FIRST = {"ї": "yi", "й": "y", "є": "ye", "ю": "yu", "я": "ya"}
_RUSSIAN = {"г": "g", "е": "e", "ё": "yo", "и": "i", "й": "y", "ы": "y", "э": "e", "ю": "yu",
            "я": "ya", "і": "i", "ї": "yi", "є": "ye"}  # fmt: skip
_RUSSIAN_VOWELS = set("аеёиоуыэюяьъ")
_UKRAINIAN_MARKERS = set("іїєґ")
_CYRILLIC_WORD = re.compile("[\u0400-\u04ff][\u0400-\u04ff\u0300-\u036f]*")


def _latin_word(match: re.Match[str]) -> str:
    """One Cyrillic word in Latin letters (see the tables above)."""
    word = unicodedata.normalize("NFC", match.group().casefold())
    ukrainian = not _UKRAINIAN_MARKERS.isdisjoint(word)
    out = []
    for i, letter in enumerate(word):
        if ukrainian:
            table = _UKRAINIAN_FIRST if i == 0 and letter in _UKRAINIAN_FIRST else _UKRAINIAN
        elif letter == "е" and (i == 0 or word[i - 1] in _RUSSIAN_VOWELS):
            out.append("ye")
            continue
        else:
            table = _RUSSIAN
        out.append(table.get(letter) or _CYRILLIC.get(letter, letter))
    return "".join(out)


def to_latin(text: str) -> str:
    """Cyrillic words in Latin letters ('Київ' → 'kyiv', 'Запорожье' → 'zaporozhye'), the rest
    unchanged; the transliterated words come out in lower case."""
    return _CYRILLIC_WORD.sub(_latin_word, text)


_MARKS = re.compile(
    "[\u0300-\u036f\u064b-\u065f\u0670\u06d6-\u06ed"  # combining accents, Arabic harakat
    "\u02bf\u02be\u02bb\u02bc\u2018\u2019'`\u00b4\u02c8\u2032\u02b9"  # ayn, hamza, apostrophes
    "\u200e\u200f\u0640]"  # direction marks, Arabic tatweel
)
_SEPARATORS = re.compile(r"[^\w\n]+|_")
_SPACES = re.compile(r" {2,}")
_EDGE_SPACES = re.compile(r"(?m)^ | $")
_ARTICLE = re.compile(
    r"(?m)(?<![^\s])(?:al|el|il|ul|ad|adh|ar|as|ash|at|ath|az|an|ed|er|es|esh|et|eth|ez|en) "
    r"(?=[^\s])"
)
_ARABIC_ARTICLE = re.compile(r"(?m)(?<![^\s])ال(?=[^\s]{2,})")
_DIPHTHONG = re.compile(r"(?:ay|ai|ey|ei)(?![aeiouy])")
_AW = re.compile(r"aw(?![aeiouy])")
_Y_GLIDE = re.compile(r"iy(?=[aeiou])")
_ENDING = re.compile(r"(?m)(?:ah|eh|ih|a|e)(?=[ \n]|$)")
_DOUBLED = re.compile(r"([a-z])\1+")
_VOWELS = re.compile(r"[aeiouy]")


def normalise_many(names: Sequence[str]) -> list[str]:
    """The match key of every name, computed on all of them at once (fast for whole gazetteers).

    Steps: Cyrillic to Latin (`to_latin`); decompose and drop diacritics, ʿayn/hamza marks and
    apostrophes; lower case; punctuation to spaces; drop Arabic articles (al-, el-, ad-, ash-,
    an- ... and ال); q→k, o→u; ay/ai/ey/ei before a consonant → e, aw → u; iy before a vowel → i;
    final -ah/-eh/-a/-e → a; e→i; doubled letters → one.
    """
    if not names:
        return []  # "".split("\n") would give one key for no name
    text = "\n".join(name.replace("\n", " ") for name in names)
    text = to_latin(text)
    text = unicodedata.normalize("NFKD", text).casefold()
    for letter, replacement in _LETTERS.items():
        if letter in text:
            text = text.replace(letter, replacement)
    text = _MARKS.sub("", text)
    text = _SEPARATORS.sub(" ", text)
    text = _EDGE_SPACES.sub("", _SPACES.sub(" ", text))
    text = _ARABIC_ARTICLE.sub("", _ARTICLE.sub("", text))
    text = text.replace("q", "k").replace("o", "u")
    text = _Y_GLIDE.sub("i", _AW.sub("u", _DIPHTHONG.sub("e", text)))
    text = _ENDING.sub("a", text).replace("e", "i")
    text = _DOUBLED.sub(r"\1", text)
    return text.split("\n")


@lru_cache(maxsize=65536)
def normalise(name: str) -> str:
    """The match key of one name: 'al-Fu'ah', 'Fouaa' and 'Fuaa' all give 'fua'."""
    if not name.isascii():
        return normalise_many([name])[0]
    # The same steps as normalise_many, skipping those that cannot apply to plain ASCII.
    # Each step is guarded by a cheap test of whether it can change anything (the common case).
    text = name.lower()
    if not text.isalnum():
        text = text.replace("\n", " ").replace("'", "").replace("`", "")
        text = _SEPARATORS.sub(" ", text)
        if "  " in text:
            text = _SPACES.sub(" ", text)
        text = text.strip(" ")
        if " " in text:
            text = _ARTICLE.sub("", text)
    text = text.replace("q", "k").replace("o", "u")
    if "y" in text or "i" in text:
        text = _DIPHTHONG.sub("e", text)
    if "aw" in text:
        text = _AW.sub("u", text)
    if "iy" in text:
        text = _Y_GLIDE.sub("i", text)
    text = _ENDING.sub("a", text).replace("e", "i")
    return _DOUBLED.sub(r"\1", text)


def skeleton_many(keys: Sequence[str]) -> list[str]:
    """Match keys with their vowels removed ('kafraya', 'kifraya', 'kafria' all give 'kfr')."""
    return _VOWELS.sub("", "\n".join(keys)).split("\n") if keys else []


def skeleton(key: str) -> str:
    return _VOWELS.sub("", key)
