"""Numbers as news prose writes them: digits, number words, compounds and vague amounts."""

from __future__ import annotations

import re

UNITS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000}
WORDS = {**UNITS, **TENS, "dozen": 12}
VAGUE = {
    "dozens": (24, 99),
    "scores": (40, 99),
    "hundreds": (200, 999),
    "thousands": (2_000, 9_999),
    "tens of thousands": (20_000, 99_999),
    "hundreds of thousands": (200_000, 999_999),
}
"""'Hundreds of families': the range a reader takes the plural to mean (two of it or more)."""

_SPACE = "[ \u00a0\u202f]"
_DIGITS = rf"\d{{1,3}}(?:,\d{{3}})+|\d{{1,3}}(?:{_SPACE}\d{{3}})+(?![\d,])|\d+(?:\.\d+)?"
_ONES = "one|two|three|four|five|six|seven|eight|nine"
_TENS = "|".join(TENS)
_UNITS = "|".join(sorted(UNITS, key=len, reverse=True))
_WORD = rf"(?:(?:{_TENS})[-\s](?:{_ONES})|{_TENS}|{_UNITS})(?!\w)"
_SCALED = rf"(?:{_DIGITS}|{_WORD}|a)(?:\s+(?:hundred|thousand|million)(?!\w))+"
NUMBER = rf"(?:{_SCALED}|{_DIGITS}|{_WORD})"
"""A number: '1,500', '8 000', '3.5', 'twenty-five', 'two thousand', '1.5 million'."""
VAGUE_PATTERN = "|".join(sorted((re.escape(v) for v in VAGUE), key=len, reverse=True))


def parse(text: str) -> int | None:
    """The value of a NUMBER match ('Twenty-five' → 25, '8 000' → 8000), or None."""
    words = re.split(r"[-\s\u00a0\u202f]+", text.lower().strip())
    if all(re.fullmatch(r"\d{1,3}", word) for word in words) and len(words) > 1:
        return int("".join(words))  # "8 000", with a space for the thousands
    total, current = 0.0, 0.0
    for word in words:
        digits = word.replace(",", "")
        if re.fullmatch(r"\d+(?:\.\d+)?", digits):
            current += float(digits)
        elif word == "a":
            current += 1
        elif word in SCALES:
            scale = SCALES[word]
            current = (current or 1) * scale
            if scale >= 1_000:
                total, current = total + current, 0
        elif word in WORDS:
            current += WORDS[word]
        else:
            return None
    return int(total + current)
