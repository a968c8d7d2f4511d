"""The dashboard through Streamlit's AppTest: it runs, shows the scenario, survives errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from geo.scenario import read_scenario
from geo.settings import Settings
from geo.workspace import Workspace

APP = str(Path(__file__).resolve().parent.parent / "dashboard.py")


def run_app(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("CORRIDOR_WORKSPACE", str(workspace))
    return AppTest.from_file(APP, default_timeout=60).run()


@pytest.fixture
def shipped_workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace.gpkg"
    Workspace(path).save(read_scenario(Settings.from_environment().default_scenario_dir))
    return path


def test_app_shows_the_shipped_scenario_from_the_workspace(
    shipped_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = run_app(shipped_workspace, monkeypatch)
    assert not app.exception
    assert app.title[0].value == "East Aleppo evacuation, 15 December 2016"
    assert app.selectbox(key="scenario").value == "aleppo-2016-12"
    convoys = app.dataframe[0].value
    first = convoys.set_index("id").loc["convoy-1"]
    assert first["departs"] == "2016-12-15 14:30 EET"
    assert first["departs (UTC)"] == "2016-12-15 12:30 UTC"
    assert first["fighters"] == "about 200"


def test_app_falls_back_to_the_shipped_folder_without_a_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = run_app(tmp_path / "absent.gpkg", monkeypatch)
    assert not app.exception
    assert "No workspace" in app.sidebar.info[0].value
    assert len(app.dataframe) == 5


def test_app_reports_a_broken_workspace_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "broken.gpkg"
    broken.write_bytes(b"this is not a GeoPackage")
    app = run_app(broken, monkeypatch)
    assert not app.exception
    assert "could not load" in app.error[0].value
    assert "broken.gpkg" in app.error[0].value
