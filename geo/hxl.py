"""HXL hashtags (the Humanitarian Exchange Language): Corridor's fields by tag, in and out.

HDX tables carry a row of hashtags under their header (`#geo+lat`, `#adm1+name`,
`#affected+idps`). The rules here are the HXL standard's (hxlstandard.org, 1.1): a tag is `#`
and a name, then attributes each after a `+`, letters first, then letters, digits and
underscores, in any case; a hashtag row is the first of a table's first 25 rows in which at
least half of the cells that are not blank are such tags (libhxl's threshold), and the row
above it, if any, is the header.

A column's tag names a field of a layer when the tag is the rule's and the column has all of
the rule's attributes; when two rules fit, the one naming more attributes wins. `TAGS` is
what Corridor writes under each CSV's header (``geo export --format csv --hxl``); the rules
that read are those same tags plus the ones other publishers use (`READ_ALSO`). Fields of
Corridor's own (convoys and their counts, precision, confidence) have no HXL tag of the
standard's, so they are written as the standard's extension tags (`#x_…`) or under `#meta`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

__all__ = [
    "HASHTAG_ROWS_SCANNED",
    "READ_ALSO",
    "TAGS",
    "Tag",
    "Tagged",
    "hashtag_row",
    "layer_of",
    "parse",
    "tagged_columns",
]

HASHTAG_ROWS_SCANNED = 25
"""How many rows from the top a hashtag row is looked for in (the standard's and libhxl's)."""
HASHTAG_SHARE = 0.5
"""The share of a row's non-blank cells that must be tags for it to be the hashtag row."""
_TOKEN = r"[A-Za-z][0-9A-Za-z_]*"
_TAG = re.compile(rf"^\s*#({_TOKEN})((?:\s*\+\s*{_TOKEN})*)\s*$")

TAGS: Mapping[str, Mapping[str, str]] = {
    "places": {
        "id": "#loc+id", "name": "#loc+name", "aliases": "#loc+name+alt", "kind": "#loc+type",
        "latitude": "#geo+lat", "longitude": "#geo+lon", "admin1": "#adm1+name",
        "country_code": "#country+code+iso2", "precision": "#geo+precision",
        "source": "#meta+source+id", "quote": "#description+quote",
    },
    "convoys": {
        "id": "#x_convoy+id", "label": "#x_convoy+name", "origin": "#loc+origin+id",
        "destination": "#loc+destination+id", "via": "#loc+via+id", "depart": "#date+start",
        "arrive": "#date+end", "time_precision": "#date+precision", "status": "#status",
        "organisation": "#org+name", "vehicles": "#x_count+vehicles", "buses": "#x_count+buses",
        "ambulances": "#x_count+ambulances", "people": "#affected+ind+evacuated",
        "civilians": "#affected+ind+evacuated+civilians",
        "wounded": "#affected+ind+evacuated+wounded",
        "fighters": "#affected+ind+evacuated+fighters", "source": "#meta+source+id",
        "quote": "#description+quote", "confidence": "#meta+confidence",
    },
    "figures": {
        "id": "#meta+id", "kind": "#indicator+type", "what": "#indicator+name",
        "count": "#affected+ind", "place": "#loc+id", "reported": "#date+reported",
        "attribution": "#org+name", "source": "#meta+source+id", "quote": "#description+quote",
    },
    "routes": {
        "id": "#meta+id", "convoy": "#x_convoy+id", "leg": "#x_convoy+leg",
        "from": "#loc+origin+id", "to": "#loc+destination+id", "precision": "#geo+precision",
        "source": "#meta+source+id", "quote": "#description+quote",
    },
    "events": {
        "id": "#event+id", "date": "#date+occurred", "event_type": "#event+type",
        "sub_event_type": "#event+type+sub", "actor1": "#group+name+first",
        "actor2": "#group+name+second", "location": "#loc+name", "admin1": "#adm1+name",
        "country": "#country+name", "latitude": "#geo+lat", "longitude": "#geo+lon",
        "geo_precision": "#geo+precision", "time_precision": "#date+precision",
        "fatalities": "#affected+killed", "notes": "#description", "reported_by": "#meta+source",
        "source": "#meta+source+id",
    },
    "zones": {
        "id": "#meta+id", "name": "#x_zone+name", "control": "#x_zone+control",
        "holder": "#org+name", "valid_from": "#date+start", "valid_to": "#date+end",
        "precision": "#geo+precision", "source": "#meta+source+id",
        "quote": "#description+quote",
    },
}  # fmt: skip
"""The tag written under each field's column, by layer (Corridor's CSV columns)."""

READ_ALSO: Mapping[str, Mapping[str, str]] = {
    "places": {"#loc": "name", "#country+code": "country_code", "#loc+code": "id"},
    "figures": {
        "#loc+name": "place", "#loc": "place", "#date": "reported", "#affected": "count",
        "#population": "count", "#inneed": "count", "#geo+lat": "latitude",
        "#geo+lon": "longitude", "#adm1+name": "admin1", "#country+code": "country_code",
    },
    "events": {"#event+code": "id", "#date": "date", "#loc": "location", "#group+first": "actor1",
               "#group+second": "actor2", "#org+first": "actor1", "#org+second": "actor2",
               "#meta+notes": "notes"},
    "convoys": {"#date+depart": "depart", "#date+arrive": "arrive", "#org": "organisation",
                "#loc+origin": "origin", "#loc+destination": "destination", "#loc+via": "via"},
}  # fmt: skip
"""Tags other publishers use for a field: ACLED on HDX (`#event+code`, `#date`), IOM DTM's
counts of people (`#affected+idps+ind`) and the point and province of their place (a figure's
place, made where the row says when the scenario has none of that name), names where
Corridor writes ids (`#loc+origin`)."""

FIGURE_KINDS = {
    "idps": "displaced", "displaced": "displaced", "refugees": "displaced",
    "returnees": "displaced", "killed": "killed", "dead": "killed", "injured": "wounded",
    "wounded": "wounded", "evacuated": "evacuated", "trapped": "trapped",
    "besieged": "trapped",
}  # fmt: skip
"""A count's attribute and the figure kind it says, when the file has no kind column."""
NOT_PEOPLE = frozenset({"hh", "households", "families", "shelters", "sites", "pct", "ratio"})
"""Attributes of a count that is not of people (households, a share): never a figure's count."""


@dataclass(frozen=True)
class Tag:
    """One HXL hashtag: its name (with `#`, lower case) and attributes (lower case)."""

    name: str
    attributes: frozenset[str] = frozenset()

    def __str__(self) -> str:
        return self.name + "".join(f"+{a}" for a in sorted(self.attributes))


def parse(cell: object) -> Tag | None:
    """The tag a cell holds (`#adm1 +name` as `#adm1+name`); None for any other cell."""
    if not isinstance(cell, str):
        return None
    match = _TAG.match(cell)
    if match is None:
        return None
    attributes = frozenset(a.strip().lower() for a in match[2].split("+") if a.strip())
    return Tag("#" + match[1].lower(), attributes)


def _is_hashtag_row(cells: Sequence[object]) -> bool:
    filled = [cell for cell in cells if isinstance(cell, str) and cell.strip()]
    tags = sum(parse(cell) is not None for cell in filled)
    return bool(filled) and tags >= HASHTAG_SHARE * len(filled)


def hashtag_row(rows: Sequence[Sequence[object]]) -> int | None:
    """The index of the hashtag row among a table's first rows, or None when there is none."""
    for index, cells in enumerate(rows[:HASHTAG_ROWS_SCANNED]):
        if _is_hashtag_row(cells):
            return index
    return None


@dataclass(frozen=True)
class Tagged:
    """A tagged table's columns read: the cell key of each (None: not read), and what a
    tag implies for a row (a count of `#affected+idps` is a figure of displaced people)."""

    keys: list[str | None]
    implied: dict[str, str] = field(default_factory=dict)


@cache
def _rules(layer: str) -> tuple[tuple[Tag, str], ...]:
    written = [(parse(tag), name) for name, tag in TAGS.get(layer, {}).items()]
    extra = [(parse(tag), name) for tag, name in READ_ALSO.get(layer, {}).items()]
    return tuple((tag, name) for tag, name in [*written, *extra] if tag is not None)


def _field(tag: Tag, layer: str) -> tuple[str, int] | None:
    """The field a tag names in a layer and how many of its attributes the rule used."""
    best: tuple[str, int] | None = None
    for rule, name in _rules(layer):
        fits = rule.name == tag.name and rule.attributes <= tag.attributes
        if fits and (best is None or len(rule.attributes) > best[1]):
            best = (name, len(rule.attributes))
    if best and best[0] == "count" and tag.attributes & NOT_PEOPLE:
        return None
    return best


def layer_of(tags: Sequence[Tag | None]) -> str | None:
    """The layer a table's tags say its rows are (None: they do not say)."""
    names = {tag.name for tag in tags if tag}
    attributes = {a for tag in tags if tag for a in tag.attributes}
    if "#event" in names:
        return "events"
    if "#x_convoy" in names and "destination" not in attributes and "#x_zone" not in names:
        return "routes" if "leg" in attributes else "convoys"
    if "destination" in attributes:
        return "convoys"
    if "#x_zone" in names:
        return "zones"
    if names & {"#affected", "#population", "#inneed"} or "#indicator" in names:
        return "figures"
    if "#geo" in names or "#loc" in names:
        return "places"
    return None


def tagged_columns(header: Sequence[str], tags: Sequence[Tag | None], layer: str) -> Tagged:
    """Each column's cell key for `layer`: the field its tag names, else its header (a column
    of a tag Corridor does not read keeps its header, so the import names it as unread)."""
    keys: list[str | None] = []
    claimed: dict[str, tuple[int, int]] = {}  # field -> (column, extra attributes)
    for number, tag in enumerate(tags):
        title = header[number].strip() if number < len(header) else ""
        found = _field(tag, layer) if tag else None
        keys.append(title or (str(tag) if tag else None))
        if found is None or tag is None:
            continue
        name, used = found
        extra = len(tag.attributes) - used
        if name in claimed and claimed[name][1] <= extra:
            continue  # (`#affected+idps+ind` beside `#affected+idps+ind+f`: the total wins)
        if name in claimed:
            column = claimed[name][0]
            keys[column] = header[column].strip() or str(tags[column])
        claimed[name] = (number, extra)
        keys[number] = name
    return Tagged(keys, _implied(header, tags, layer, claimed))


def _implied(
    header: Sequence[str],
    tags: Sequence[Tag | None],
    layer: str,
    claimed: dict[str, tuple[int, int]],
) -> dict[str, str]:
    if layer != "figures" or "count" not in claimed:
        return {}
    column = claimed["count"][0]
    tag = tags[column]
    assert tag is not None
    implied: dict[str, str] = {}
    if "kind" not in claimed:
        kinds = [FIGURE_KINDS[a] for a in sorted(tag.attributes) if a in FIGURE_KINDS]
        implied["kind"] = kinds[0] if kinds else "other"
    if "what" not in claimed:
        title = header[column].strip() if column < len(header) else ""
        implied["what"] = title or str(tag)
    return implied
