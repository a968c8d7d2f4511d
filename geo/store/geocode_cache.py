"""Online geocoder answers kept in a workspace, so that each name is asked only once."""

from __future__ import annotations

import json
from collections.abc import Iterator, MutableMapping
from datetime import UTC, datetime
from typing import Any

import pandas as pd

from geo.errors import WorkspaceError
from geo.store.base import Workspace
from geo.store.frames import row_cells, typed_frame
from geo.store.layout import GEOCODE_CACHE_LAYER


class GeocodeCache(MutableMapping[str, dict[str, Any] | None]):
    """Online geocoder answers kept in the workspace, so each name is asked only once.

    A key is ``provider:normalised name``; a value is the answer's Location.raw, or None for
    "the service knows no such place". Every new answer is appended to the layer at once.
    """

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._answers: dict[str, dict[str, Any] | None] = {}
        if workspace.exists() and GEOCODE_CACHE_LAYER in workspace.layer_names():
            for row in row_cells(workspace.table(GEOCODE_CACHE_LAYER)):
                self._answers[str(row["key"])] = (
                    json.loads(row["answer"]) if row["answer"] else None
                )

    def __getitem__(self, key: str) -> dict[str, Any] | None:
        return self._answers[key]

    def __setitem__(self, key: str, value: dict[str, Any] | None) -> None:
        row = {
            "key": key,
            "answer": json.dumps(value) if value else "",
            "asked_at": datetime.now(UTC),
        }
        frame = typed_frame(pd.DataFrame([row]), {"asked_at"})
        self.workspace.append_rows(GEOCODE_CACHE_LAYER, frame, None)
        self._answers[key] = value

    def __delitem__(self, key: str) -> None:
        raise WorkspaceError(f"{self.workspace.label}: the geocode cache only grows")

    def __iter__(self) -> Iterator[str]:
        return iter(self._answers)

    def __len__(self) -> int:
        return len(self._answers)
