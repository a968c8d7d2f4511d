"""What the command line's commands share: problems told, a scenario summed up, text read."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from geo.errors import CorridorError
from geo.records import Scenario


class Commands(Protocol):
    """Where a command is added (what `argparse`'s `add_subparsers` gives)."""

    @property
    def choices(self) -> Mapping[str, argparse.ArgumentParser]:
        """The commands added, by name."""

    def add_parser(self, name: str, **options: Any) -> argparse.ArgumentParser:
        """Add a command."""


SHIPPED_HINT = " (or a shipped scenario's name, e.g. aleppo-2016-12)"


def tell_problem(line: object) -> None:
    """A problem or warning: to stderr, so that stdout keeps only the results."""
    print(line, file=sys.stderr)


def read_text(path: Path) -> str:
    """A UTF-8 text file's text (a byte order mark dropped); CorridorError when unreadable."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise CorridorError(f"{path}: expected a readable UTF-8 text file ({error})") from error


def summary(scenario: Scenario) -> str:
    """How many records of each kind the scenario holds."""
    parts = [
        f"{len(getattr(scenario, name))} {name}"
        for name in ("sources", "places", "convoys", "figures", "routes", "zones", "events")
    ]
    return ", ".join(parts)
