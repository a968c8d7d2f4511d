"""Corridor's engine: scenario records, validation, the GeoPackage workspace (no Streamlit here)."""

from geo.errors import CorridorError, ScenarioNotFoundError, ValidationError, WorkspaceError
from geo.records import Scenario
from geo.scenario import check_scenario, read_scenario, write_scenario
from geo.workspace import Workspace

__all__ = [
    "CorridorError",
    "Scenario",
    "ScenarioNotFoundError",
    "ValidationError",
    "Workspace",
    "WorkspaceError",
    "check_scenario",
    "read_scenario",
    "write_scenario",
]
