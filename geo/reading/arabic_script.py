"""Arabic script: telling Arabic text, its words, sentences and digits, and the words' keys."""

from __future__ import annotations

import re

from geo.geocoding import names

ARABIC_LETTER = re.compile("[\u0621-\u064a]")
LATIN_LETTER = re.compile("[A-Za-z]")
WORD = re.compile("[\u0621-\u064a\u0640\u064b-\u065f\u0670\u0671-\u06d3]+|[0-9\u0660-\u0669]+")
_SENTENCE = re.compile(r"[^.!?؟\n]+(?:[.!?؟]+|\n|$)")
DIGITS = str.maketrans("٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹", "01234567890123456789")


def is_arabic(text: str) -> bool:
    """True when most of the letters of `text` are Arabic."""
    arabic = len(ARABIC_LETTER.findall(text))
    return arabic > 2 * len(LATIN_LETTER.findall(text))


def sentences(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) for every sentence; '؟' and line ends end one too."""
    return [(m.start(), m.group()) for m in _SENTENCE.finditer(text) if m.group().strip()]


def name_key(word: str) -> str:
    """The word as the gazetteer keys names (`geo.geocoding.names.normalise`)."""
    return names.normalise(word)
