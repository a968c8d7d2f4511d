"""Commands on scenario folders and workspace scenarios: validate, import, dump, new, generate."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import replace
from datetime import date, datetime
from pathlib import Path
from typing import Any

from geo.cli.common import SHIPPED_HINT, Commands, read_text, summary, tell_problem
from geo.errors import CorridorError
from geo.scenario import check_scenario, read_scenario, write_scenario
from geo.store import open_workspace


def add_validate(commands: Commands, shipped: Callable[[str], Path]) -> argparse.ArgumentParser:
    """`validate`: check a scenario folder."""
    validate = commands.add_parser(
        "validate", help="check a scenario folder, listing every problem"
    )
    validate.add_argument("path", type=shipped, help=f"a scenario folder{SHIPPED_HINT}")
    validate.add_argument("--strict", action="store_true", help="treat warnings as errors")
    validate.set_defaults(command=_validate)
    return validate


def add_import(commands: Commands, shipped: Callable[[str], Path]) -> argparse.ArgumentParser:
    """`import`: load a scenario folder, or add a file's rows to a workspace scenario."""
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
    return load


def add_dump(commands: Commands) -> argparse.ArgumentParser:
    """`dump`: write a workspace scenario back as a folder."""
    dump = commands.add_parser("dump", help="write a workspace scenario back as a scenario folder")
    dump.add_argument("--out", type=Path, required=True, help="the folder to write")
    dump.add_argument("--scenario", help="which scenario (needed when the workspace holds several)")
    dump.set_defaults(command=_dump)
    return dump


def add_new(commands: Commands) -> argparse.ArgumentParser:
    """`new`: start an empty scenario folder."""
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
    return new


def add_generate(commands: Commands) -> argparse.ArgumentParser:
    """`generate`: write an invented scenario of any size."""
    synthetic = commands.add_parser(
        "generate", help="write an invented scenario of any size, for load tests (by seed)"
    )
    synthetic.add_argument("--events", type=int, default=100_000)
    synthetic.add_argument("--convoys", type=int, default=10_000, help="each with one route leg")
    synthetic.add_argument("--zones", type=int, default=40)
    synthetic.add_argument("--seed", type=int, default=2016)
    synthetic.add_argument("--out", type=Path, required=True, help="the scenario folder to write")
    synthetic.set_defaults(command=_generate)
    return synthetic


def _validate(args: argparse.Namespace) -> int:
    report = check_scenario(args.path)
    for problem in report.problems:
        tell_problem(problem)
    errors, warnings = len(report.problems.errors), len(report.problems.warnings)
    counts = f"{errors} error(s), {warnings} warning(s)"
    if errors or (args.strict and warnings) or report.scenario is None:
        tell_problem(f"{args.path}: invalid — {counts}")
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
        tell_problem(problem)
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


def _dump(args: argparse.Namespace) -> int:
    scenario = open_workspace(args.workspace).load(args.scenario)
    write_scenario(scenario, args.out)
    print(f"{args.out}: wrote {scenario.id!r} — {summary(scenario)}")
    return 0


def _generate(args: argparse.Namespace) -> int:
    from geo.synthetic import generate

    scenario = generate(events=args.events, convoys=args.convoys, zones=args.zones, seed=args.seed)
    folder = args.out / scenario.id if args.out.is_dir() else args.out
    write_scenario(scenario, folder)
    print(f"{folder}: wrote {scenario.id!r} — {summary(scenario)}")
    return 0


def _new(args: argparse.Namespace) -> int:
    from datetime import timedelta

    from geo import new_scenario as n
    from geo.reading import read_home

    text = read_text(args.report) if args.report else ""
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
