"""Dumps: each scenario's last good state kept as a scenario folder, and a workspace rebuilt
from them when its file is broken."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from geo import _schema as s
from geo._atomic import write_text
from geo.errors import WorkspaceError
from geo.event_table import EventTable
from geo.records import Scenario
from geo.scenario import append_events, read_scenario, write_scenario
from geo.store import Workspace


def dump_folder(workspace: Workspace, scenario_id: str) -> Path:
    """Where the last good state of a scenario is kept as a scenario folder (see `dump`)."""
    return workspace.path.with_name(f"{workspace.path.stem}.dumps") / scenario_id


def dumps(workspace: Workspace) -> list[Path]:
    """Every dump folder of the workspace's scenarios."""
    root = workspace.path.with_name(f"{workspace.path.stem}.dumps")
    return sorted(p for p in root.glob("*") if (p / "scenario.toml").is_file())


def recover(workspace: Workspace, *, fallback: Path | None = None) -> list[str]:
    """Set a broken workspace file aside (it is kept) and rebuild it from its scenario dumps.

    With no dump, the `fallback` scenario folder (the shipped scenario) is loaded instead.
    Returns the ids of the scenarios restored.
    """
    with workspace.transaction():
        if workspace.path.exists():
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            workspace.path.replace(
                workspace.path.with_name(f"{workspace.path.name}.broken-{stamp}")
            )
        folders = dumps(workspace) or ([fallback] if fallback else [])
        restored = []
        for folder in folders:
            scenario = read_scenario(folder)
            workspace.save(scenario)
            restored.append(scenario.id)
    return restored


def dump(
    workspace: Workspace,
    scenario: Scenario,
    layers: set[str] | None = None,
    *,
    written_over: Any = None,
    appended: EventTable | None = None,
) -> None:
    """Keep the scenario's new state as a folder too: the way back if the file is ever lost.

    Only the files of the `layers` changed are written again, when the folder is known to hold
    the state this write started from (`written_over`, the workspace's version then, is what
    the last dump recorded); otherwise, after a save that wrote no dump or a dump that failed,
    every file is written. `appended`: the scenario's last events, new, with no other event
    changed: added to the folder's events.csv rather than it written again.
    """
    folder = dump_folder(workspace, scenario.id)
    marker = folder / DUMPED_VERSION
    try:
        known = marker.read_text(encoding="utf-8") if marker.is_file() else None
        current = layers is not None and known == repr(written_over)
        if current and appended is not None and layers is not None:
            write_scenario(scenario, folder, kinds=layers - {s.EVENTS.name})
            append_events(scenario, appended, folder)
        else:
            write_scenario(scenario, folder, kinds=layers if current else None)
        write_text(marker, repr(workspace.version()))
    except OSError as error:
        raise WorkspaceError(
            f"{workspace.label}: the change was saved but its dump could not be written ({error})"
        ) from error


DUMPED_VERSION = ".workspace-version"
"""In a dump folder: the workspace file's version (inode, time, size) the dump is of."""
