"""Scenario records as display tables: place names, counts as written, local and UTC times."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pandas as pd

from geo import _memo, timeline
from geo import _schema as s
from geo.analysis import RouteRisk
from geo.changes import Change, Edit
from geo.errors import Problem
from geo.records import CONVOY_COUNTS, Count, Figure, Scenario
from geo.scenario import iso_local
from geo.timeline import ConvoyState
from geo.tracking import TrackState


def local_time(moment: datetime | None, zone: str) -> str:
    """'2016-12-15 14:30 EET' in the scenario's zone; empty for an unknown time."""
    if moment is None:
        return ""
    return moment.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M %Z")


def short_time(moment: datetime, zone: str) -> str:
    """'15 Dec 14:30' in the scenario's zone, for tight places such as a slider."""
    return moment.astimezone(ZoneInfo(zone)).strftime("%d %b %H:%M")


def step_labels(scenario: Scenario, minutes: int = 15) -> dict[datetime, str]:
    """Every step of `timeline.steps` with its `short_time`, made once per scenario (read only).

    The time slider formats each of its steps twice on every rerun: for a month of 15-minute
    steps (2,900) that took 12 ms a rerun.
    """

    def made() -> dict[datetime, str]:
        zone = scenario.timezone
        return {moment: short_time(moment, zone) for moment in timeline.steps(scenario, minutes)}

    return _memo.derived(scenario, f"step-labels-{minutes}", made)


def utc_time(moment: datetime | None) -> str:
    return "" if moment is None else moment.strftime("%Y-%m-%d %H:%M UTC")


def _count(value: Count | None) -> str:
    return "" if value is None else str(value)


def _names(scenario: Scenario) -> dict[str, str]:
    return {place.id: place.name for place in scenario.places}


def convoys_table(scenario: Scenario, at: datetime | None = None) -> pd.DataFrame:
    """One row per convoy; with `at`, its state at that moment comes first.

    That state follows from the convoy's times; `status` is what the latest report says of it
    (a convoy that arrived in the afternoon has 'not departed' at noon beside 'arrived').
    """
    fixed = _memo.derived(scenario.convoys, "convoys-table", lambda: _convoy_rows(scenario))
    frame = fixed.copy()
    if at is not None:
        states = [timeline.state_at(convoy, at).value for convoy in scenario.convoys]
        frame.insert(2, "state at this moment", states)
    return frame


def shown_convoys(
    scenario: Scenario,
    at: datetime,
    shown: set[str],
    *,
    selected: str | None = None,
    risks: dict[str, RouteRisk] | None = None,
) -> pd.DataFrame:
    """The convoys table as the dashboard lists it: the `shown` convoys (those the filters pass),
    the `selected` one marked, and each route's risk level and alert where `risks` has them."""
    frame = convoys_table(scenario, at)
    if len(shown) < len(frame):  # (Series.isin on Arrow strings: 23 ms for 10,000; this 1 ms)
        frame = frame[[cid in shown for cid in frame["id"].tolist()]].reset_index(drop=True)
    frame.insert(0, "selected", ["●" if cid == selected else "" for cid in frame["id"]])
    if risks is not None:
        frame.insert(2, "risk", [risks[c].level if c in risks else "" for c in frame["id"]])
        frame.insert(3, "alert", ["⚠ ALERT" if c in risks and risks[c].alert else ""
                                  for c in frame["id"]])  # fmt: skip
    return frame


def convoy_details(scenario: Scenario, convoy_id: str, at: datetime) -> pd.DataFrame:
    """One convoy's row of `convoys_table` turned into a column of facts, one per line."""
    frame = convoys_table(scenario, at).set_index("id").loc[[convoy_id]].T
    return frame.rename(columns={convoy_id: ""})


def _convoy_rows(scenario: Scenario) -> pd.DataFrame:
    """What does not change with the moment (made once per scenario)."""
    names, zone = _names(scenario), scenario.timezone
    rows = [
        {
            "id": convoy.id,
            "convoy": convoy.label,
            "status": convoy.status.value.replace("_", " "),
            "from": names.get(convoy.origin, "(not stated)"),
            "via": ", ".join(names[place] for place in convoy.via),
            "to": names[convoy.destination],
            "departs": local_time(convoy.depart, zone),
            "departs (UTC)": utc_time(convoy.depart),
            "arrives": local_time(convoy.arrive, zone),
            "times": convoy.time_precision.value,
            **{name: _count(getattr(convoy, name)) for name in CONVOY_COUNTS},
            "organisation": convoy.organisation,
            "confidence": convoy.confidence.value,
            "source": ", ".join(convoy.source),
            "quote": convoy.quote,
        }
        for convoy in scenario.convoys
    ]
    columns = ["id", "convoy", "status", "from", "via", "to", "departs", "departs (UTC)",
               "arrives", "times", *CONVOY_COUNTS, "organisation", "confidence", "source",
               "quote"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)  # (the columns even of a scenario with none)


EDITABLE_CONVOY_FIELDS = ("status", "depart", "arrive", "time_precision", *CONVOY_COUNTS,
                          "confidence")  # fmt: skip
"""What the convoy editor lets a user change; the rest comes from sources and is edited there."""


def editable_convoys(scenario: Scenario) -> pd.DataFrame:
    """The convoys' editable cells as text, as a scenario file writes them (local ISO times)."""
    rows = []
    for convoy in scenario.convoys:
        cells = s.to_cells(convoy, s.CONVOYS)
        row = {"id": convoy.id, "convoy": convoy.label}
        for name in EDITABLE_CONVOY_FIELDS:
            value = cells[name]
            if isinstance(value, datetime):
                value = iso_local(value, scenario.timezone)
            row[name] = "" if value is None else str(value)
        rows.append(row)
    return pd.DataFrame(rows, columns=["id", "convoy", *EDITABLE_CONVOY_FIELDS])


def convoy_edits(before: pd.DataFrame, after: pd.DataFrame) -> list[Edit]:
    """One update per convoy whose editable cells the user changed (blank clears a cell)."""
    old = before.set_index("id")
    edits = []
    for row in after.to_dict("records"):
        record_id = str(row["id"])
        changed = {
            name: _edited(row[name])
            for name in EDITABLE_CONVOY_FIELDS
            if _edited(row[name]) != _edited(old.at[record_id, name])
        }
        if changed:
            edits.append(Edit("update", "convoys", record_id, changed))
    return edits


def _edited(value: object) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    text = str(value).strip()
    return text or None


def figures_table(scenario: Scenario) -> pd.DataFrame:
    names = _names(scenario)
    rows = [
        {
            "kind": figure.kind.value.replace("_", " "),
            "count": str(figure.count),
            "what": figure.what,
            "place": names[figure.place],
            "reported": local_time(figure.reported, scenario.timezone),
            "said by": figure.attribution,
            "source": ", ".join(figure.source),
            "quote": figure.quote,
        }
        for figure in scenario.figures
    ]
    return pd.DataFrame(rows)


def places_table(scenario: Scenario) -> pd.DataFrame:
    rows = [
        {
            "name": place.name,
            "kind": place.kind.value,
            "latitude": place.latitude,
            "longitude": place.longitude,
            "precision": place.precision.value,
            "also written": ", ".join(place.aliases),
            "admin1": place.admin1,
            "source": ", ".join(place.source),
        }
        for place in scenario.places
    ]
    return pd.DataFrame(rows)


def zones_table(scenario: Scenario) -> pd.DataFrame:
    zone = scenario.timezone
    rows = [
        {
            "zone": item.name,
            "control": item.control.value,
            "held by": item.holder,
            "valid from": local_time(item.valid_from, zone),
            "valid to": local_time(item.valid_to, zone) or "(open)",
            "precision": item.precision.value,
            "source": ", ".join(item.source),
        }
        for item in scenario.zones
    ]
    return pd.DataFrame(rows)


def sources_table(scenario: Scenario) -> pd.DataFrame:
    rows = [
        {
            "id": source.id,
            "title": source.title,
            "publisher": source.publisher,
            "published": source.published.isoformat(),
            "url": source.url,
            "licence": source.licence,
            "note": source.note,
        }
        for source in scenario.sources
    ]
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Metric:
    """One headline number for the dashboard: label, value as text, and what it rests on."""

    label: str
    value: str
    help: str


def headline_metrics(scenario: Scenario, at: datetime) -> list[Metric]:
    """The figures a reader wants first at `at`: evacuated, convoys by state, still trapped."""
    head = timeline.headline(scenario, at)
    states = head.convoys
    under_way = states.get(ConvoyState.UNDER_WAY, 0)
    waiting = states.get(ConvoyState.NOT_DEPARTED, 0) + states.get(ConvoyState.PLANNED, 0)
    halted, cancelled = states.get(ConvoyState.HALTED, 0), states.get(ConvoyState.CANCELLED, 0)
    called_off = f"; {cancelled} called off before leaving (not counted)" if cancelled else ""
    return [
        Metric(
            "Evacuated so far (reported)",
            _figures_text(head.evacuated) or "none reported yet",
            _sources_text(head.evacuated),
        ),
        Metric("Arrived", str(states.get(ConvoyState.ARRIVED, 0)), "convoys arrived by then"),
        Metric("Under way", str(under_way), f"convoys; {waiting} more planned or not yet left"),
        Metric("Halted", str(halted), f"convoys stopped on the way{called_off}"),
        Metric(
            "Still trapped (reported)",
            _figures_text(head.trapped) or "no figure yet",
            _sources_text(head.trapped),
        ),
    ]


def _figures_text(figures: list[Figure]) -> str:
    return "; ".join(f"{timeline.count_text(f.count)} {f.what}" for f in figures)


def _sources_text(figures: list[Figure]) -> str:
    said = [f"{f.attribution or 'unattributed'} ({', '.join(f.source)})" for f in figures]
    return "Reported by: " + "; ".join(dict.fromkeys(said)) if said else ""


def risk_table(risks: list[RouteRisk]) -> pd.DataFrame:
    """One row per convoy route: its risk level, the figures behind it and the rule that made it
    (kilometres and the nearest danger's distance to 2 decimals; 0 km where a route crosses none
    of a kind of ground another route crosses, never a blank)."""
    grounds = list(dict.fromkeys(k for r in risks for k, v in r.by_control_km.items() if v))
    rows = [
        {"convoy": r.convoy, "state": r.state.replace("_", " "), "level": r.level,
         "alert": r.alert, "length (km)": round(r.length_km, 2),
         **{f"{k} (km)": round(r.by_control_km.get(k, 0.0), 2) for k in grounds},
         "front lines": r.front_line_crossings, "events": r.events,
         "fatalities": r.fatalities, "nearest besieged/contested": r.nearest_danger or "",
         "distance (km)": None if r.nearest_danger_km is None else round(r.nearest_danger_km, 2),
         "because": "; ".join(r.reasons)}
        for r in risks
    ]  # fmt: skip
    return pd.DataFrame(rows)


def tracking_table(states: list[TrackState]) -> pd.DataFrame:
    """One row per convoy that has reported: its state, flags, last report and age, progress,
    distance off its route, speed and ETA (times UTC, to the minute)."""

    def rounded(value: float | None, scale: float = 1, digits: int | None = None) -> Any:
        return None if value is None else round(value / scale, digits)

    rows = [
        {"convoy": state.convoy, "state": str(state.state), "flags": ", ".join(state.flags),
         "last report (UTC)": f"{state.latest.time:%H:%M}",
         "age (min)": round(state.age_minutes or 0),
         "done (km)": rounded(state.done_m, 1000, 1), "left (km)": rounded(state.left_m, 1000, 1),
         "off route (m)": rounded(state.off_route_m), "speed (km/h)": rounded(state.speed_kmh),
         "ETA (UTC)": f"{state.eta:%H:%M}" if state.eta else ""}
        for state in states if state.latest is not None
    ]  # fmt: skip
    return pd.DataFrame(rows)


def problems_table(problems: Iterable[Problem]) -> pd.DataFrame:
    """An import's problems as rows: severity, file, where, field, expected, got."""
    return pd.DataFrame([{
        "severity": p.severity, "file": p.file, "where": p.where, "field": p.field,
        "expected": p.expected, "got": "" if p.actual is None else str(p.actual),
    } for p in problems])  # fmt: skip


def changes_table(log: Sequence[Change]) -> pd.DataFrame:
    """The change log, newest first, its old and new values cut to 80 characters."""
    return pd.DataFrame([{
        "when (UTC)": f"{c.at:%Y-%m-%d %H:%M:%S}", "who": c.who, "what": c.action,
        "layer": c.layer, "record": c.record_id, "field": c.field,
        "old": _short(c.old), "new": _short(c.new), "note": c.note,
    } for c in reversed(log)])  # fmt: skip


def _short(value: Any, limit: int = 80) -> str:
    """A logged value as a person reads it: a record's fields as 'name: value; …' (not a Python
    dict), cut to `limit` characters."""
    if isinstance(value, dict):
        value = "; ".join(f"{k}: {v}" for k, v in value.items() if v not in (None, "", [], ()))
    text = "" if value is None else str(value)
    return text if len(text) <= limit else text[: limit - 3] + "…"
