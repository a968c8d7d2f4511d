"""English figures: numbers that count people or vehicles, with their hedge, range and noun."""

from __future__ import annotations

import re

from geo.reading.english_words import COUNT_NOUNS, MONTHS, UNITS, noun_kind
from geo.reading.mentions import FigureMention, Skipped
from geo.reading.rules import attribution, read_figures
from geo.reading.spoken_numbers import NUMBER, VAGUE, VAGUE_PATTERN
from geo.reading.spoken_numbers import parse as parse_number
from geo.records import QUALIFIER_WORDS, Qualifier

_NUMBER = NUMBER
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
    r"|drove|drive|driven|from"
    r"|were\s+evacuated|have\s+(?:fled|left|crossed)|had\s+(?:fled|left|crossed))"
)
"""Verbs of moving that make a bare 'thousands' people: 'Thousands flee Khartoum'."""
_FIGURE = re.compile(
    rf"(?<![\w.,])(?:(?P<vague>{VAGUE_PATTERN})"
    rf"(?:\s+of(?=\s)|\s+more(?=\s)|(?=\s+(?:more\s+)?{_MOVES}\b))"
    r"|(?P<several>(?:several|a\s+few)\s+(?:hundred|thousand))(?=\s)"
    rf"|(?:(?P<qualifier>{_QUALIFIER})\s+)?(?:(?P<between>between)\s+)?"
    rf"(?P<low>{_NUMBER})(?:\s*(?:-|–|to|and)\s*(?P<high>{_NUMBER}))?(?![\d:]))",
    re.IGNORECASE,
)


def find_figures(
    sentences: list[tuple[int, str]], skipped: list[Skipped] | None = None
) -> list[FigureMention]:
    """Numbers that count people or vehicles, with qualifier, range, what and who said it."""
    return read_figures(sentences, skipped, pattern=_FIGURE, read=_figure)


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
    if _A_NAME_BEFORE.search(sentence, 0, match.start()) or (
        _AGE.fullmatch(match[0])
        and _A_NAME_AND_COMMA.search(sentence, 0, match.start())
        and re.match(r"[ \t]*,", after)
    ):
        return None  # "Highway 63", "C-130 planes", "Naw Htoo, 29, who ...": a name, an age
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
        kind=noun_kind(what),
    )


_A_NAME_BEFORE = re.compile(
    r"(?:\b(?:[Hh]ighway|[Rr]oute|[Mm]otorway|[Ff]light|[Pp]latform|[Gg]ate|[Kk]ilo|No\.?)[ \t]+"
    r"|\b[A-Z][a-z]?-)$"  # a model: "C-130", "Mi-8", "An-26"
)
_A_NAME_AND_COMMA = re.compile(r"\b[A-Z][\w'’-]+,[ \t]*$")
_AGE = re.compile(r"\d{1,2}")
"""What makes a number part of a name, or a person's age, rather than a count."""
_PRONOUN = re.compile(r"\s*(?:the|these|those|them|their|others|whom)\b", re.IGNORECASE)


def _vague_figure(sentence: str, offset: int, match: re.Match[str]) -> FigureMention | None:
    """'Hundreds of families': a range (200-999), counting what follows 'of' ('hundreds of
    them fighters' counts fighters; 'thousands of them', 'scores of others' count people)."""
    if match["several"]:  # "several hundred Americans", "a few thousand"
        low, high = SEVERAL[match["several"].split()[-1].lower()]
    else:
        low, high = VAGUE[" ".join(match["vague"].lower().split())]
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
        kind=noun_kind(what),
    )  # fmt: skip


SEVERAL = {"hundred": (200, 999), "thousand": (2_000, 9_999)}


def _number(text: str | None) -> int | None:
    return parse_number(text) if text else None


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
