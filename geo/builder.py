"""The pure scenario builder: raw rows of every kind in, one checked Scenario out.

Every reader ends here, the way osmnx ends each of its readers in one graph builder: the
scenario folder (`geo.scenario`), the workspace (`geo.store`) and the change log
(`geo.changes`) each gather raw rows, and this module parses, cross-checks and builds them.
It reads and writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from geo import _fields as f
from geo import _schema as s
from geo._fields import Field
from geo.errors import ProblemLog
from geo.records import Scenario

META_FILE = "scenario.toml"
"""Where a scenario's own fields are written in a folder, and named in their problems."""


def meta_fields() -> list[Field]:
    """The scenario's own fields (id, title … disclaimer), as scenario.toml holds them."""
    return [
        Field("id", f.identifier),
        Field("title", f.text),
        Field("summary", f.text),
        Field("timezone", s.time_zone),
        Field("start", f.moment),
        Field("end", f.moment),
        Field("disclaimer", f.text),
        COUNTRIES,
    ]


COUNTRIES = Field("countries", s.country_codes, required=False)
"""The countries a scenario is about (optional: else read from its places)."""


def assemble(
    meta: dict[str, Any],
    source_raws: list[s.RawRecord],
    raws: dict[s.Kind, list[s.RawRecord]],
    log: ProblemLog,
    *,
    locate: Callable[[str, str], Any] | None = None,
) -> Scenario | None:
    """Build a Scenario from raw rows of every kind; None when any row has an error (logged).

    `locate` (name, country code) -> a geopy Location or None places rows that have no
    coordinates.
    """
    known = s.Known(
        sources=s.raw_ids(source_raws),
        places=s.raw_ids(raws.get(s.PLACES, [])),
        convoys=s.raw_ids(raws.get(s.CONVOYS, [])),
        locate=locate,
    )
    records = {kind: s.build(kind, raws.get(kind, []), known, log) for kind in raws}
    sources = s.build(s.SOURCES, source_raws, known, log)
    _check_span(meta, log)
    if log.errors:
        return None
    return Scenario(
        **meta,
        sources=tuple(sources),
        places=tuple(records.get(s.PLACES, ())),
        convoys=tuple(records.get(s.CONVOYS, ())),
        figures=tuple(records.get(s.FIGURES, ())),
        routes=tuple(records.get(s.ROUTES, ())),
        zones=tuple(records.get(s.ZONES, ())),
        events=tuple(records.get(s.EVENTS, ())),
    )


def _check_span(meta: dict[str, Any], log: ProblemLog) -> None:
    start, end = meta.get("start"), meta.get("end")
    if start and end and end <= start:
        log.error(
            META_FILE, "", "end", f"a time after start ({start.isoformat()})", end.isoformat()
        )
