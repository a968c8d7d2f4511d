"""The command line: `python -m geo validate|import|dump|new|geocode|export|extract|…`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import date, datetime
from pathlib import Path
from typing import Any

from geo.errors import CorridorError
from geo.records import Scenario
from geo.scenario import check_scenario, read_scenario, write_scenario
from geo.settings import Settings
from geo.store import (
    GeocodeCache,
    Workspace,
    add_positions,
    copy_workspace,
    holds_workspace,
    open_workspace,
    positions,
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.command(args))
    except CorridorError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


def _parser() -> argparse.ArgumentParser:
    settings = Settings.from_environment()
    parser = argparse.ArgumentParser(
        prog=_program(),
        description=__doc__,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    shipped = _shipped(settings)
    source = _source(shipped)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    validate = commands.add_parser(
        "validate", help="check a scenario folder, listing every problem"
    )
    validate.add_argument("path", type=shipped, help=f"a scenario folder{SHIPPED_HINT}")
    validate.add_argument("--strict", action="store_true", help="treat warnings as errors")
    validate.set_defaults(command=_validate)

    load = commands.add_parser(
        "import",
        help="load a scenario folder, or add a file's rows (CSV, Excel, OpenDocument, GeoJSON, "
        "KML, GPX, GeoPackage, zipped Shapefile; ACLED, IOM DTM and HXL-tagged tables) to a "
        "workspace scenario",
    )
    load.add_argument("path", type=shipped, help=f"a scenario folder, or a file{SHIPPED_HINT}")
    load.add_argument(
        "--if-missing",
        action="store_true",
        help="(a folder) do nothing when the workspace already holds this scenario",
    )
    load.add_argument("--layer", choices=IMPORT_LAYERS, help="(a file) the layer its rows go to")
    load.add_argument("--scenario", help="(a file) which workspace scenario it goes into")
    load.add_argument(
        "--sheet", help="(a workbook) the one sheet to read (default: every sheet it can read)"
    )
    load.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="(a file) a value for a field the file leaves blank, e.g. --set control=government",
    )
    load.add_argument(
        "--swap-flagged",
        action="store_true",
        help="(a file) swap latitude and longitude in rows flagged as swapped",
    )
    load.add_argument("--report", type=Path, help="(a file) write every problem to this CSV")
    load.add_argument(
        "--max-mb",
        type=float,
        default=CLI_MAX_MB,
        help=f"(a file) the largest file read, in MB (default {CLI_MAX_MB:g}; the dashboard's "
        "uploads stop at 20)",
    )
    load.add_argument("--dry-run", action="store_true", help="(a file) check only; add nothing")
    load.add_argument("--who", default=_user(), help="your name, for the change log")
    load.set_defaults(command=_import)

    dump = commands.add_parser("dump", help="write a workspace scenario back as a scenario folder")
    dump.add_argument("--out", type=Path, required=True, help="the folder to write")
    dump.add_argument("--scenario", help="which scenario (needed when the workspace holds several)")
    dump.set_defaults(command=_dump)

    geocode = commands.add_parser("geocode", help="geocode place names offline (one line each)")
    geocode.add_argument("names", nargs="+", metavar="NAME", help="a place name or phrase")
    geocode.add_argument(
        "--country", default=None, help="favour this country's places, ISO code (default: none)"
    )
    geocode.add_argument("--near", help="what 'the city' in a phrase refers to, e.g. Aleppo")
    geocode.add_argument("--json", action="store_true", help="print one JSON object per line")
    geocode.add_argument(
        "--online",
        action="store_true",
        help="ask OpenStreetMap's Nominatim (1 request/s) for names not found offline; "
        "answers are cached in the workspace",
    )
    geocode.set_defaults(command=_geocode)

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

    reading = commands.add_parser(
        "extract", help="places, figures, times and convoy drafts found in a news report"
    )
    reading.add_argument("file", type=Path, help="a UTF-8 text file (or - for standard input)")
    reading.add_argument("--published", help="the report's date, YYYY-MM-DD (resolves weekdays)")
    reading.add_argument(
        "--country", action="append", default=[],
        help="a country the report is about, ISO code (repeatable; default: read from the text)",
    )  # fmt: skip
    reading.add_argument("--json", action="store_true", help="print one JSON object")
    reading.set_defaults(command=_extract)

    new = commands.add_parser(
        "new", help="start an empty scenario folder for a new crisis (then add to it and import it)"
    )
    new.add_argument("--title", required=True, help="the scenario's title")
    new.add_argument("--report", type=Path, help="a report to start from: its country and date")
    new.add_argument(
        "--country", help="the crisis's country, ISO code (default: read from --report)"
    )
    new.add_argument("--timezone", help="IANA time zone (default: proposed from the country)")
    new.add_argument("--published", help="the first source's date, YYYY-MM-DD")
    new.add_argument(
        "--start", help="YYYY-MM-DD or YYYY-MM-DDTHH:MM (default: the day before --published)"
    )
    new.add_argument("--end", help="as --start (default: two days after the start)")
    new.add_argument(
        "--source-title",
        default="",
        help="the first source's title (default: the report's first line)",
    )
    new.add_argument("--publisher", default="", help="who published the first source")
    new.add_argument("--url", default="", help="the first source's address")
    new.add_argument("--summary", default="", help="one paragraph on what happened")
    new.add_argument("--disclaimer", default="", help="shown on the map and every export")
    new.add_argument(
        "--out", type=Path, default=Path("."), help="folder to create it in (default: here)"
    )
    new.set_defaults(command=_new)

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

    track = commands.add_parser(
        "track", help="add position reports to the workspace; print each convoy's progress"
    )
    track.add_argument("files", type=Path, nargs="*", help="CSV, GPX or GeoJSON position reports")
    track.add_argument("--scenario", help="which scenario of the workspace")
    track.add_argument("--at", help="the moment, ISO 8601 with offset (default: the latest report)")
    track.add_argument("--json", action="store_true", help="print one JSON object")
    track.set_defaults(command=_track)

    synthetic = commands.add_parser(
        "generate", help="write an invented scenario of any size, for load tests (by seed)"
    )
    synthetic.add_argument("--events", type=int, default=100_000)
    synthetic.add_argument("--convoys", type=int, default=10_000, help="each with one route leg")
    synthetic.add_argument("--zones", type=int, default=40)
    synthetic.add_argument("--seed", type=int, default=2016)
    synthetic.add_argument("--out", type=Path, required=True, help="the scenario folder to write")
    synthetic.set_defaults(command=_generate)

    stores = commands.add_parser(
        "workspace", help="copy a whole workspace, GeoPackage <-> PostGIS (postgresql:// URL)"
    )
    store_commands = stores.add_subparsers(required=True, metavar="ACTION")
    copy = store_commands.add_parser(
        "copy", help="copy every layer and the change log; a round trip compares equal"
    )
    copy.add_argument("source", help="a GeoPackage path or a postgresql:// URL")
    copy.add_argument("target", help="a GeoPackage path or a postgresql:// URL")
    kept = copy.add_mutually_exclusive_group()
    kept.add_argument(
        "--replace", action="store_true", help="overwrite a target that holds a workspace"
    )
    kept.add_argument(
        "--if-missing", action="store_true", help="do nothing when the target holds a workspace"
    )
    copy.set_defaults(command=_copy_workspace)

    team = commands.add_parser(
        "team", help="roles a PostGIS workspace's database enforces (viewer, editor, admin)"
    )
    team_commands = team.add_subparsers(required=True, metavar="ACTION")
    init = team_commands.add_parser(
        "init",
        help="create the roles corridor_viewer, corridor_editor and corridor_admin, grant them "
        "on the workspace, and add people to them (run again to add more)",
    )
    init.add_argument("url", help="the PostGIS workspace, a postgresql:// URL")
    for role in ("viewer", "editor", "admin"):
        init.add_argument(
            f"--{role}", action="append", default=[], metavar="LOGIN",
            help=f"a login role to make a {role} (created without a password where missing)",
        )  # fmt: skip
    init.set_defaults(command=_team_init)

    for command in (load, dump, geocode, track):
        command.add_argument(
            "--workspace",
            default=settings.workspace,
            help="the workspace: a GeoPackage, or a PostGIS database's postgresql:// URL "
            f"(default: {settings.workspace})",
        )
    for group in (commands, store_commands, team_commands):
        for command in group.choices.values():
            command.epilog = EXIT_CODES
            command.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


def _problem(line: object) -> None:
    """A problem or warning: to stderr, so that stdout keeps only the results."""
    print(line, file=sys.stderr)


def _copy_workspace(args: argparse.Namespace) -> int:
    shown = open_workspace(args.target).label
    if args.if_missing and holds_workspace(args.target):
        print(f"{shown}: holds a workspace already; left as it is")
        return 0
    copied = copy_workspace(args.source, args.target, replace=args.replace)
    print(f"{shown}: {len(copied)} layers copied")
    for line in copied:
        print(f"  {line}")
    return 0


def _team_init(args: argparse.Namespace) -> int:
    from geo.store import team

    members = team.Members(viewers=args.viewer, editors=args.editor, admins=args.admin)
    for line in team.init(args.url, members):
        print(line)
    return 0


def _validate(args: argparse.Namespace) -> int:
    report = check_scenario(args.path)
    for problem in report.problems:
        _problem(problem)
    errors, warnings = len(report.problems.errors), len(report.problems.warnings)
    counts = f"{errors} error(s), {warnings} warning(s)"
    if errors or (args.strict and warnings) or report.scenario is None:
        _problem(f"{args.path}: invalid — {counts}")
        return 1
    print(f"{args.path}: valid — {summary(report.scenario)} ({counts})")
    return 0


def _import(args: argparse.Namespace) -> int:
    workspace = open_workspace(args.workspace)
    if args.path.is_file():
        return _import_file(args, workspace)
    scenario = read_scenario(args.path)
    if args.if_missing and scenario.id in workspace.scenario_ids():
        print(f"{workspace.label}: already holds {scenario.id!r}; left as it is")
        return 0
    workspace.save(scenario)
    print(f"{workspace.label}: imported {scenario.id!r} — {summary(scenario)}")
    return 0


def _import_file(args: argparse.Namespace, workspace: Any) -> int:
    from geo import changes, importing

    read = changes.read_mark(workspace)  # (an event revised that someone changes meanwhile)
    scenario = workspace.load(args.scenario)
    defaults = {}
    for item in args.set:
        field, equals, value = item.partition("=")
        if not equals or not field.strip():
            raise CorridorError(f"--set: expected FIELD=VALUE, got {item!r}")
        defaults[field.strip()] = value.strip()
    largest = int(args.max_mb * 2**20)
    options = importing.Options(
        layer=args.layer, defaults=defaults, max_bytes=largest, sheet=args.sheet,
        check_only=args.dry_run,
    )  # fmt: skip
    prepared = importing.prepare(args.path, scenario, options=options, who=args.who)
    if args.swap_flagged and prepared.swappable:
        options = replace(options, swap=frozenset(prepared.swappable))
        prepared = importing.prepare(args.path, scenario, options=options, who=args.who)
    for problem in prepared.problems:
        _problem(problem)
    if args.report:
        from geo._atomic import write_text

        write_text(args.report, prepared.report_csv())
    print(prepared.summary())
    if prepared.writes and not args.dry_run:
        importing.commit_import(workspace, scenario.id, prepared, who=args.who, read=read)
        done = prepared.done.replace("Added", "added", 1)
        print(f"{workspace.label}: {done} to {scenario.id!r}")
    elif prepared.accepted and not args.dry_run:
        print(f"{workspace.label}: nothing to write, every valid row is in {scenario.id!r} already")
    return 1 if prepared.rejected or not prepared.accepted else 0


EXIT_CODES = """\
Results go to stdout; problems, warnings and errors to stderr.
exit codes:
  0  done (validate: the scenario is valid)
  1  problems: an invalid scenario, refused rows (valid rows are still added unless
     --dry-run), a name not found, or an error that stopped the command
  2  wrong usage: an unknown command or option, a missing argument"""

SHIPPED_HINT = " (or a shipped scenario's name, e.g. aleppo-2016-12)"


def _program() -> str:
    """How the user called this: the installed `corridor` command or `python -m geo`."""
    return "corridor" if Path(sys.argv[0]).name == "corridor" else "python -m geo"


def _shipped(settings: Settings) -> Callable[[str], Path]:
    """A path as typed; a name that is no path here but a shipped scenario's, that scenario."""

    def path(text: str) -> Path:
        typed = Path(text)
        folder = settings.scenarios_dir / text
        if not typed.exists() and typed.name == text and (folder / "scenario.toml").is_file():
            return folder
        return typed

    return path


SOURCE_HINT = f" (.gpkg, or a PostGIS workspace's postgresql:// URL){SHIPPED_HINT}"


def _source(shipped: Callable[[str], Path]) -> Callable[[str], Path | Workspace]:
    """A scenario folder or a workspace: its path as `shipped` takes it, or a shared workspace
    (a PostGIS URL) opened."""

    def source(text: str) -> Path | Workspace:
        workspace = open_workspace(text)
        return workspace if workspace.shared else shipped(text)

    return source


def _user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "command line"


CLI_MAX_MB = 1024.0
"""The largest file `import` reads by default: a user's own file on their own machine (an
ACLED export of 1,000,000 events is about 300 MB)."""
IMPORT_LAYERS = ["places", "convoys", "figures", "routes", "zones", "events"]


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
        _problem(problem)
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


def _generate(args: argparse.Namespace) -> int:
    from geo.synthetic import generate

    scenario = generate(events=args.events, convoys=args.convoys, zones=args.zones, seed=args.seed)
    folder = args.out / scenario.id if args.out.is_dir() else args.out
    write_scenario(scenario, folder)
    print(f"{folder}: wrote {scenario.id!r} — {summary(scenario)}")
    return 0


def _dump(args: argparse.Namespace) -> int:
    scenario = open_workspace(args.workspace).load(args.scenario)
    write_scenario(scenario, args.out)
    print(f"{args.out}: wrote {scenario.id!r} — {summary(scenario)}")
    return 0


def _geocode(args: argparse.Namespace) -> int:
    from geo.geocoding import OfflineGeocoder
    from geo.online import Fallback, nominatim

    geocoder: Any = OfflineGeocoder(country_bias=args.country or None)
    if args.online:
        cache = GeocodeCache(open_workspace(args.workspace))
        geocoder = Fallback(geocoder, nominatim(), cache=cache)
    missing = 0
    for name in args.names:
        location = geocoder.geocode(name, near=args.near)
        if location is None:
            missing += 1
        print(_geocoded(name, location, as_json=args.json))
    return 1 if missing else 0


def _geocoded(name: str, location: Any, *, as_json: bool) -> str:
    if as_json:
        raw = location.raw if location else {}
        return json.dumps({"query": name, "found": location is not None, **raw}, ensure_ascii=False)
    if location is None:
        return f"{name}: not found"
    raw = location.raw
    flags = [flag for flag in ("ambiguous", "uncertain") if raw.get(flag)]
    line = (
        f"{name}: {raw['name']} ({raw['kind']}, {raw['admin1']}, {raw['country_code']}) "
        f"{location.latitude:.5f}, {location.longitude:.5f} score {raw['score']:.2f} "
        f"[{raw['method']} '{raw['matched_name']}', {raw['precision']}, {raw['source']}, "
        f"{raw['id']}]"
    )
    if flags:
        line += " " + " ".join(flag.upper() for flag in flags)
    for other in raw.get("alternatives", []):
        line += f"\n    also: {other['name']} ({other['country_code']}) {other['latitude']:.5f}, "
        line += f"{other['longitude']:.5f}"
    return line


FORMAT_CHOICES = ["html", "png", "pdf", "geojson", "gpkg", "csv"]


def _export(args: argparse.Namespace) -> int:
    from geo import export, extent, mapview, timeline
    from geo.mapview import ALL_LAYERS, DEFAULT_LAYERS, MapView
    from geo.place_labels import LabelLanguage

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


def _extract(args: argparse.Namespace) -> int:
    from geo.reading import extract

    text = sys.stdin.read() if str(args.file) == "-" else _read_text(args.file)
    published = None
    if args.published:
        try:
            published = datetime.strptime(args.published, "%Y-%m-%d").date()
        except ValueError:
            raise CorridorError(
                f"--published: expected a date as YYYY-MM-DD, got {args.published!r}"
            ) from None
    found = extract(text, published=published, home=args.country)
    if args.json:
        print(json.dumps(found.to_json(), ensure_ascii=False, indent=1))
        return 0
    print(f"read as about {', '.join(found.homes) or 'no country'}")
    for place in found.places:
        print(f"place  {place.mention!r} -> {place.name} ({place.kind}, {place.country_code}) "
              f"{place.latitude:.4f}, {place.longitude:.4f} [{place.precision}]")  # fmt: skip
    for figure in found.figures:
        number = figure.value if figure.value is not None else f"{figure.low}-{figure.high}"
        qualifier = f"{figure.qualifier} " if figure.qualifier else ""
        said = f" (said by {figure.attribution})" if figure.attribution else ""
        print(f"figure {qualifier}{number} {figure.what}{said}")
    for moment in found.times:
        print(f"time   {moment.text!r} -> {moment.date} {moment.local_time} {moment.utc_time}")
    for convoy in found.convoys:
        print(f"convoy {convoy.origin or '?'} -> {convoy.destination or '?'}"
              f" via {', '.join(convoy.via) or '-'}; vehicles {', '.join(convoy.vehicles) or '-'};"
              f" people {', '.join(convoy.people) or '-'}; {convoy.time or 'no time'}")  # fmt: skip
    for item in found.skipped:
        print(f"skipped {item.kind} at character {item.start}: {item.text!r} ({item.reason})")
    return 0


def _new(args: argparse.Namespace) -> int:
    from datetime import timedelta

    from geo import new_scenario as n
    from geo.reading import read_home

    text = _read_text(args.report) if args.report else ""
    country = args.country or (next(iter(read_home(text)), "") if text else "")
    timezone = args.timezone or (n.propose_timezone(country) if country else None)
    if not timezone:
        raise CorridorError(
            f"--timezone: expected an IANA time zone, got none and none could be proposed "
            f"from the country {country or '(none given or read)'!r}"
        )
    published = _date_option("--published", args.published)
    start = _moment_option("--start", args.start) or (
        published - timedelta(days=1) if published else None
    )
    if start is None:
        raise CorridorError("--start: expected a date (or --published), got none")
    source = n.source_from(
        args.source_title or n.title_line(text) or args.title,
        args.publisher,
        published or (start if not isinstance(start, datetime) else start.date()),
        url=args.url,
    )
    scenario = n.new_scenario(
        title=args.title,
        timezone=timezone,
        start=start,
        end=_moment_option("--end", args.end),
        source=source,
        summary=args.summary,
        disclaimer=args.disclaimer,
        countries=(country,) if country else (),
    )
    folder = n.create(scenario, args.out)
    about = f" about {country}" if country else ""
    print(f"created {folder}{about}, time zone {timezone}, {scenario.start:%Y-%m-%d %H:%M} to "
          f"{scenario.end:%Y-%m-%d %H:%M}; add places, convoys and zones, then "
          f"`python -m geo import {folder}`")  # fmt: skip
    return 0


def _date_option(name: str, value: str | None) -> date | None:
    if not value:
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%d").date()
    except ValueError:
        raise CorridorError(f"{name}: expected a date as YYYY-MM-DD, got {value!r}") from None


def _moment_option(name: str, value: str | None) -> datetime | date | None:
    if not value:
        return None
    if len(value) <= 10:
        return _date_option(name, value)
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise CorridorError(
            f"{name}: expected YYYY-MM-DD or YYYY-MM-DDTHH:MM, got {value!r}"
        ) from None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise CorridorError(f"{path}: expected a readable UTF-8 text file ({error})") from error


def summary(scenario: Scenario) -> str:
    parts = [
        f"{len(getattr(scenario, name))} {name}"
        for name in ("sources", "places", "convoys", "figures", "routes", "zones", "events")
    ]
    return ", ".join(parts)
