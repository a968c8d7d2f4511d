"""The command line: `python -m geo validate|import|dump|new|geocode|export|extract|…`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from geo.cli import reading, scenarios, situation, stores
from geo.errors import CorridorError
from geo.settings import Settings
from geo.store import Workspace, open_workspace


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.command(args))
    except CorridorError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


def _parser() -> argparse.ArgumentParser:
    """Every command, in the order `--help` lists them (each family's in its module)."""
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
    scenarios.add_validate(commands, shipped)
    load = scenarios.add_import(commands, shipped)
    dump = scenarios.add_dump(commands)
    geocode = reading.add_geocode(commands)
    situation.add_export(commands, source)
    reading.add_extract(commands)
    scenarios.add_new(commands)
    situation.add_analyse(commands, source)
    track = situation.add_track(commands)
    scenarios.add_generate(commands)
    store_commands = stores.add_workspace(commands)
    team_commands = stores.add_team(commands)
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


EXIT_CODES = """\
Results go to stdout; problems, warnings and errors to stderr.
exit codes:
  0  done (validate: the scenario is valid)
  1  problems: an invalid scenario, refused rows (valid rows are still added unless
     --dry-run), a name not found, or an error that stopped the command
  2  wrong usage: an unknown command or option, a missing argument"""


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


def _source(shipped: Callable[[str], Path]) -> Callable[[str], Path | Workspace]:
    """A scenario folder or a workspace: its path as `shipped` takes it, or a shared workspace
    (a PostGIS URL) opened."""

    def source(text: str) -> Path | Workspace:
        workspace = open_workspace(text)
        return workspace if workspace.shared else shipped(text)

    return source
