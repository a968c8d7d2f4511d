"""Edits to a workspace scenario: validated, written in one transaction, logged, and undoable.

`edits`: the edit model and how edits apply to a scenario (pure); `log`: committing edits,
the change log, its history and undo; `recovery`: each scenario's last good state kept as a
folder (a dump), and a broken workspace rebuilt from them.
"""

from __future__ import annotations

from geo.changes.edits import Edit, edits_between
from geo.changes.log import (
    ADDED_VALUES,
    CHANGES_LAYER,
    Change,
    NothingToUndoError,
    ReadMark,
    commit,
    conflicts,
    history,
    read_mark,
    undo,
    undoable,
)
from geo.changes.recovery import dump_folder, dumps, recover

__all__ = [
    "ADDED_VALUES",
    "CHANGES_LAYER",
    "Change",
    "Edit",
    "NothingToUndoError",
    "ReadMark",
    "commit",
    "conflicts",
    "dump_folder",
    "dumps",
    "edits_between",
    "history",
    "read_mark",
    "recover",
    "undo",
    "undoable",
]
