"""Corridor's dashboard: widgets, caching and session state only; the engine is in geo/."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from geo import tables
from geo.errors import CorridorError
from geo.records import Scenario
from geo.scenario import read_scenario
from geo.settings import Settings
from geo.workspace import Workspace

SETTINGS = Settings.from_environment()


def _modified(path: Path) -> float:
    return path.stat().st_mtime if path.exists() else 0.0


@st.cache_data(show_spinner=False)
def workspace_ids(path: str, modified: float) -> list[str]:
    return Workspace(path).scenario_ids()


@st.cache_data(show_spinner="Loading the scenario…")
def load_from_workspace(path: str, scenario_id: str, modified: float) -> Scenario:
    return Workspace(path).load(scenario_id)


@st.cache_data(show_spinner="Loading the scenario…")
def load_from_folder(folder: str) -> Scenario:
    return read_scenario(folder)


def choose_scenario() -> Scenario:
    """The scenario picked in the sidebar, from the workspace or else the shipped folder."""
    workspace = SETTINGS.workspace
    modified = _modified(workspace)
    ids = workspace_ids(str(workspace), modified) if modified else []
    if not ids:
        st.sidebar.info(f"No workspace at {workspace}; showing the shipped scenario.")
        return load_from_folder(str(SETTINGS.default_scenario_dir))
    default = ids.index(SETTINGS.default_scenario) if SETTINGS.default_scenario in ids else 0
    chosen = st.sidebar.selectbox("Scenario", ids, index=default, key="scenario")
    st.sidebar.caption(f"Workspace: `{workspace}`")
    return load_from_workspace(str(workspace), chosen, modified)


def show(scenario: Scenario) -> None:
    st.title(scenario.title)
    zone = scenario.timezone
    st.caption(
        f"{tables.local_time(scenario.start, zone)} to {tables.local_time(scenario.end, zone)}"
        f" · times shown in {zone}"
    )
    st.write(scenario.summary)
    tabs = st.tabs(["Convoys", "Figures", "Places", "Zones", "Sources"])
    frames = (
        tables.convoys_table(scenario),
        tables.figures_table(scenario),
        tables.places_table(scenario),
        tables.zones_table(scenario),
        tables.sources_table(scenario),
    )
    for tab, frame in zip(tabs, frames, strict=True):
        tab.dataframe(frame, hide_index=True, width="stretch")
    st.caption(f"Disclaimer: {scenario.disclaimer}")


def main() -> None:
    st.set_page_config(page_title="Corridor", layout="wide")
    try:
        show(choose_scenario())
    except CorridorError as error:
        st.error(f"Corridor could not load the scenario:\n\n{error}")


main()
