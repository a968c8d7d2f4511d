"""Commands on a scenario at a moment: export (a map or the data shown), analyse, track."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from geo.cli.common import SHIPPED_HINT, Commands, tell_problem
from geo.errors import CorridorError
from geo.records import Scenario
from geo.scenario import read_scenario
from geo.store import Workspace, add_positions, open_workspace, positions

SOURCE_HINT = f" (.gpkg, or a PostGIS workspace's postgresql:// URL){SHIPPED_HINT}"


def add_export(
    commands: Commands, source: Callable[[str], Path | Workspace]
) -> argparse.ArgumentParser:
    """`export`: a map snapshot or the data shown."""
    snapshot = commands.add_parser(
        "export", help="a map snapshot (html, png, pdf) or the data shown (geojson, gpkg, csv)"
    )
    snapshot.add_argument(
        "source", type=source, help=f"a scenario folder or a workspace{SOURCE_HINT}"
    )
    snapshot.add_argument("--format", required=True, choices=FORMAT_CHOICES)
    snapshot.add_argument("--out", type=Path, required=True, help="a file, or a folder")
    snapshot.add_argument("--scenario", help="which scenario of a workspace")
    snapshot.add_argument(
        "--at", help="the moment, ISO 8601 with offset (default: the step the dashboard opens on)"
    )
    snapshot.add_argument(
        "--layers", help="comma-separated overlays (default: all but risk, the route analysis)"
    )
    snapshot.add_argument("--base", choices=["offline", "osm"], default="offline")
    snapshot.add_argument(
        "--labels",
        choices=["en", "ar", "both"],
        default="en",
        help="place names on the map: en (English), ar (Arabic), both (default en)",
    )
    snapshot.add_argument(
        "--bbox",
        metavar="SOUTH,WEST,NORTH,EAST",
        help="html, png, pdf: frame these bounds (degrees) instead of the story frame",
    )
    snapshot.add_argument(
        "--center",
        metavar="LAT,LON",
        help="html, png, pdf: open at this centre (with --zoom; else from --bbox or the story)",
    )
    snapshot.add_argument(
        "--zoom", metavar="Z", help="html, png, pdf: open at this zoom level (4 to 18)"
    )
    snapshot.add_argument("--width", type=int, default=1600)
    snapshot.add_argument("--height", type=int, default=1000)
    snapshot.add_argument("--scale", type=float, default=1.0, help="device pixels per px")
    snapshot.add_argument("--paper", choices=["A4", "A3"], default="A4")
    snapshot.add_argument(
        "--hxl",
        action="store_true",
        help="csv: an HXL hashtag row (hxlstandard.org) under every header, for HDX",
    )
    snapshot.set_defaults(command=_export)
    return snapshot


def add_analyse(
    commands: Commands, source: Callable[[str], Path | Workspace]
) -> argparse.ArgumentParser:
    """`analyse`: each route's risk."""
    risk = commands.add_parser(
        "analyse", help="each route's ground by control, front-line crossings and nearby events"
    )
    risk.add_argument("source", type=source, help=f"a scenario folder or a workspace{SOURCE_HINT}")
    risk.add_argument("--scenario", help="which scenario of a workspace")
    risk.add_argument(
        "--at", help="the moment, ISO 8601 with offset (default: the step the dashboard opens on)"
    )
    risk.add_argument("--buffer-km", type=float, default=5.0, help="events this near (default 5)")
    risk.add_argument("--days", type=int, default=7, help="events of the last N days (default 7)")
    risk.add_argument("--json", action="store_true", help="print one JSON object")
    risk.set_defaults(command=_analyse)
    return risk


def add_track(commands: Commands) -> argparse.ArgumentParser:
    """`track`: add position reports; each convoy's progress."""
    track = commands.add_parser(
        "track", help="add position reports to the workspace; print each convoy's progress"
    )
    track.add_argument("files", type=Path, nargs="*", help="CSV, GPX or GeoJSON position reports")
    track.add_argument("--scenario", help="which scenario of the workspace")
    track.add_argument("--at", help="the moment, ISO 8601 with offset (default: the latest report)")
    track.add_argument("--json", action="store_true", help="print one JSON object")
    track.set_defaults(command=_track)
    return track


FORMAT_CHOICES = ["html", "png", "pdf", "geojson", "gpkg", "csv"]


def _export(args: argparse.Namespace) -> int:
    from geo import export, extent, mapview, timeline
    from geo.mapview import ALL_LAYERS, DEFAULT_LAYERS, MapView
    from geo.mapview.place_labels import LabelLanguage

    if args.hxl and args.format != "csv":
        raise CorridorError(f"--hxl: HXL hashtags go in CSV only (--format csv), got {args.format}")
    given = [name for name in ("bbox", "center", "zoom") if getattr(args, name) is not None]
    if given and args.format not in export.MAP_FORMATS:
        raise CorridorError(
            f"--{given[0]}: an extent frames a map (--format html, png or pdf; the data formats "
            f"hold what is shown wherever it lies), got --format {args.format}"
        )
    scenario = _load_source(args.source, args.scenario)
    at = _moment(args.at) if args.at else timeline.opening_step(scenario)
    layers = frozenset(DEFAULT_LAYERS)
    if args.layers is not None:
        wanted = [key.strip() for key in args.layers.split(",") if key.strip()]
        unknown = sorted(set(wanted) - set(ALL_LAYERS))
        if unknown:
            raise CorridorError(
                f"--layers: expected some of {', '.join(ALL_LAYERS)}, got {', '.join(unknown)}"
            )
        layers = frozenset(wanted)
    view = MapView(at=at, layers=layers, base=args.base, labels=LabelLanguage(args.labels))
    story = mapview.story_frame(scenario, view).bounds or []
    frame = extent.asked(bbox=args.bbox, center=args.center, zoom=args.zoom, story=story)
    snapshot = export.Snapshot(
        scenario,
        view,
        width=args.width,
        height=args.height,
        scale=args.scale,
        paper=args.paper,
        hxl=args.hxl,
        frame=frame,
        frame_note=extent.ASKED_NOTE,
    )
    path = export.export(snapshot, args.format, args.out)
    print(f"{path}: {args.format}, {path.stat().st_size:,} bytes")
    return 0


def _analyse(args: argparse.Namespace) -> int:
    from geo import analysis, timeline

    scenario = _load_source(args.source, args.scenario)
    at = _moment(args.at) if args.at else timeline.opening_step(scenario)
    rules = analysis.RiskRules(buffer_km=args.buffer_km, days=args.days)
    risks = analysis.analyse(scenario, at, rules=rules)
    if args.json:
        document = {"scenario": scenario.id, "at": at.isoformat(), "rule": rules.describe(),
                    "routes": [risk.to_json() for risk in risks]}  # fmt: skip
        print(json.dumps(document, ensure_ascii=False, indent=1))
        return 0
    print(f"{scenario.id} at {at.isoformat()}; rule: {rules.describe()}")
    for risk in risks:
        ground = ", ".join(f"{k} {v:.2f}" for k, v in risk.by_control_km.items() if v > 0)
        flag = " ALERT" if risk.alert else ""
        print(f"\n{risk.convoy} ({risk.state}): {risk.level.upper()}{flag} — "
              f"{risk.length_km:.2f} km: {ground} km")  # fmt: skip
        for crossing in risk.crossings:
            kind = "front line" if crossing.front_line else "boundary"
            gap = f" (over {crossing.gap_km:.2f} km unmapped)" if crossing.gap_km else ""
            where = f"({crossing.latitude:.5f}, {crossing.longitude:.5f})"
            print(f"  {kind} at {crossing.along_km:.2f} km {where}: "
                  f"{crossing.before} → {crossing.after}{gap}")  # fmt: skip
        types = ", ".join(f"{k} {v}" for k, v in risk.events_by_type.items()) or "none"
        print(f"  events within {rules.buffer_km:g} km, last {rules.days} days: {risk.events} "
              f"({types}); fatalities {risk.fatalities}")  # fmt: skip
        if risk.nearest_danger is not None:
            print(f"  nearest besieged or contested: {risk.nearest_danger}, "
                  f"{risk.nearest_danger_km:.2f} km")  # fmt: skip
        for reason in risk.reasons:
            print(f"  because: {reason}")
    return 0


def _track(args: argparse.Namespace) -> int:
    from geo import tracking
    from geo.errors import ProblemLog
    from geo.positions import read_positions

    workspace = open_workspace(args.workspace)
    scenario = workspace.load(args.scenario)
    log = ProblemLog()
    for path in args.files:
        added = add_positions(workspace, scenario.id, read_positions(path, log=log))
        print(f"{path}: {added} position reports added")
    reports = positions(workspace, scenario.id)
    at = _moment(args.at) if args.at else (reports[-1].time if reports else scenario.start)
    states = tracking.track_states(scenario, reports, at, log=log)
    for problem in log:
        tell_problem(problem)
    moving = [state for state in states.values() if state.latest is not None]
    if args.json:
        print(json.dumps({"at": at.isoformat(), "convoys": [_state_json(s) for s in moving]},
                         ensure_ascii=False, indent=1))  # fmt: skip
    else:
        print(f"{scenario.id} at {at.isoformat()}: {len(reports)} reports")
        for state in moving:
            print(_state_line(state))
    return 1 if log.errors else 0


def _state_json(state: Any) -> dict[str, Any]:
    def plain(value: Any) -> Any:
        return value.isoformat() if isinstance(value, datetime) else value

    found = {name: plain(getattr(state, name)) for name in (
        "convoy", "state", "age_minutes", "done_m", "left_m", "progress", "off_route_m",
        "speed_kmh", "eta")}  # fmt: skip
    found["flags"] = list(state.flags)
    latest = state.latest
    found["latest"] = {"time": latest.time.isoformat(), "latitude": latest.latitude,
                       "longitude": latest.longitude}  # fmt: skip
    return found


def _state_line(state: Any) -> str:
    parts = [f"{state.convoy}: {state.state}", f"last report {state.age_minutes:.0f} min ago"]
    if state.progress is not None:
        parts.append(f"{state.progress * 100:.0f}% done, {state.left_m / 1000:.1f} km left")
    if state.off_route_m is not None:
        parts.append(f"{state.off_route_m:.0f} m off the route")
    if state.eta is not None:
        parts.append(f"ETA {state.eta:%H:%M} UTC")
    return "; ".join(parts)


def _load_source(source: Path | Workspace, scenario_id: str | None) -> Scenario:
    if isinstance(source, Workspace):
        return source.load(scenario_id)
    if source.suffix.lower() == ".gpkg":
        return open_workspace(source).load(scenario_id)
    return read_scenario(source)


def _moment(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise CorridorError(
            f"--at: expected an ISO 8601 time with an offset (2016-12-15T13:00Z), got {text!r}"
        )
    return moment
