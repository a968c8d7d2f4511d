"""Corridor's settings: one read-only object, read from the environment once."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = PROJECT_ROOT / "data"
USER_AGENT = "corridor/0.1 (offline-first evacuation maps)"
"""What Corridor calls itself to a web service (geopy's geocoders send it)."""


@dataclass(frozen=True)
class Settings:
    """Where Corridor keeps its data.

    Attributes
    ----------
    workspace
        The GeoPackage workspace; ``CORRIDOR_WORKSPACE`` overrides ``data/workspace.gpkg``.
    scenarios_dir
        The folder of shipped scenarios, ``data/scenarios``.
    default_scenario
        The scenario `make run` prepares the workspace from.
    """

    workspace: Path
    scenarios_dir: Path
    default_scenario: str

    @classmethod
    def from_environment(cls) -> Settings:
        workspace = os.environ.get("CORRIDOR_WORKSPACE") or DATA_DIR / "workspace.gpkg"
        return cls(
            workspace=Path(workspace),
            scenarios_dir=DATA_DIR / "scenarios",
            default_scenario="aleppo-2016-12",
        )

    @property
    def default_scenario_dir(self) -> Path:
        return self.scenarios_dir / self.default_scenario
