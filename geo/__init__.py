"""Corridor's engine: scenario records, validation, the workspace stores (no Streamlit here)."""

from geo.errors import CorridorError, ScenarioNotFoundError, ValidationError, WorkspaceError
from geo.records import Scenario
from geo.scenario import check_scenario, read_scenario, write_scenario
from geo.store import Workspace, open_workspace

__all__ = [
    "CorridorError",
    "Scenario",
    "ScenarioNotFoundError",
    "ValidationError",
    "Workspace",
    "WorkspaceError",
    "check_scenario",
    "open_workspace",
    "read_scenario",
    "write_scenario",
]
