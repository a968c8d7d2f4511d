"""The GeoPackage workspace: save, load, round trips, several scenarios, atomic rewrites, CLI."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyogrio
import pytest

import geo.store.base
import geo.store.geopackage
from geo import synthetic
from geo.cli import main
from geo.errors import ScenarioNotFoundError, WorkspaceError
from geo.records import Scenario
from geo.scenario import read_scenario, write_scenario
from geo.store import Workspace, open_workspace

FEATURES = {"places", "routes", "zones", "events"}
ATTRIBUTES = {"convoys", "figures", "sources", "scenarios"}


@pytest.fixture
def tiny(tiny_dir: Path) -> Scenario:
    return read_scenario(tiny_dir)


@pytest.fixture
def shipped(shipped_dir: Path) -> Scenario:
    return read_scenario(shipped_dir)


@pytest.fixture
def workspace(new_workspace: Workspace) -> Workspace:
    return new_workspace


def test_save_then_load_is_equal(workspace: Workspace, tiny: Scenario) -> None:
    workspace.save(tiny)
    assert workspace.load() == tiny
    assert workspace.load("tiny") == tiny


@pytest.mark.parametrize("name", ["tiny", "shipped"])
def test_round_trip_folder_workspace_folder(
    name: str, request: pytest.FixtureRequest, workspace: Workspace, tmp_path: Path
) -> None:
    scenario: Scenario = request.getfixturevalue(name)
    workspace.save(scenario)
    out = write_scenario(workspace.load(scenario.id), tmp_path / "out" / scenario.id)
    again = read_scenario(out, strict=True)
    assert again == scenario
    for kind in ("sources", "places", "convoys", "figures", "routes", "zones"):
        assert getattr(again, kind) == getattr(scenario, kind), kind


def test_zone_geometry_types_survive(workspace: Workspace, tiny: Scenario) -> None:
    workspace.save(tiny)
    types = [zone.geometry.geom_type for zone in workspace.load().zones]
    assert types == ["Polygon", "MultiPolygon"]


@pytest.mark.geopackage_only
def test_file_is_a_geopackage(workspace: Workspace, tiny: Scenario) -> None:
    workspace.save(tiny)
    with sqlite3.connect(workspace.path) as db:
        [(application_id,)] = db.execute("PRAGMA application_id").fetchall()
        contents = dict(db.execute("SELECT table_name, data_type FROM gpkg_contents").fetchall())
    db.close()
    assert application_id == 0x47504B47  # "GPKG"
    assert contents == {name: "features" for name in FEATURES} | {
        name: "attributes" for name in ATTRIBUTES
    }
    layers = dict(pyogrio.list_layers(workspace.path))
    assert set(layers) == FEATURES | ATTRIBUTES
    assert (layers["places"], layers["routes"], layers["convoys"]) == ("Point", "LineString", None)


def test_a_layer_is_read_whole_or_named_in_the_error(workspace: Workspace, tiny: Scenario) -> None:
    workspace.save(tiny)
    routes = workspace.table("routes")
    assert sorted(routes["id"]) == sorted(route.id for route in tiny.routes)
    assert routes.geometry.geom_type.unique().tolist() == ["LineString"]
    with pytest.raises(
        WorkspaceError, match=rf"{re.escape(workspace.label)}: cannot read layer 'nope'"
    ):
        workspace.table("nope")


def test_two_scenarios_side_by_side(
    workspace: Workspace, tiny: Scenario, shipped: Scenario
) -> None:
    workspace.save(tiny)
    workspace.save(shipped)
    assert sorted(workspace.scenario_ids()) == ["aleppo-2016-12", "tiny"]
    assert workspace.load("tiny") == tiny
    assert workspace.load("aleppo-2016-12") == shipped


def test_resave_replaces(workspace: Workspace, tiny: Scenario, shipped: Scenario) -> None:
    workspace.save(tiny)
    workspace.save(shipped)
    workspace.save(tiny)
    assert sorted(workspace.scenario_ids()) == ["aleppo-2016-12", "tiny"]
    frame = workspace.table("places")
    assert (frame["scenario_id"] == "tiny").sum() == len(tiny.places)
    assert workspace.load("tiny") == tiny
    assert workspace.load("aleppo-2016-12") == shipped


@pytest.mark.geopackage_only
def test_failed_save_leaves_file_as_it_was(
    workspace: Workspace, tiny: Scenario, shipped: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace.save(tiny)
    before = workspace.path.read_bytes()
    real_write = geo.store.geopackage._write
    calls: list[str] = []

    def failing_write(
        frame: Any, path: Path, layer: str, geometry_type: str | None, **options: Any
    ) -> None:
        calls.append(layer)
        if len(calls) == 3:
            raise WorkspaceError(f"{path}: disk full while writing {layer!r}")
        real_write(frame, path, layer, geometry_type)

    monkeypatch.setattr(geo.store.geopackage, "_write", failing_write)
    with pytest.raises(WorkspaceError, match="disk full"):
        workspace.save(shipped)
    assert len(calls) == 3
    assert workspace.path.read_bytes() == before
    assert sorted(p.name for p in workspace.path.parent.iterdir()) == [
        "workspace.gpkg",
        "workspace.gpkg.lock",
    ]
    assert workspace.scenario_ids() == ["tiny"]


@pytest.mark.geopackage_only
def test_failed_first_save_leaves_no_file(
    workspace: Workspace, tiny: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_write(*args: object, **options: object) -> None:
        raise WorkspaceError("cannot write")

    monkeypatch.setattr(geo.store.geopackage, "_write", failing_write)
    with pytest.raises(WorkspaceError, match="cannot write"):
        workspace.save(tiny)
    assert [p.name for p in workspace.path.parent.iterdir()] == ["workspace.gpkg.lock"]


def test_load_unknown_id_names_the_ids_present(
    workspace: Workspace, tiny: Scenario, shipped: Scenario
) -> None:
    workspace.save(tiny)
    workspace.save(shipped)
    with pytest.raises(ScenarioNotFoundError, match=r"'homs'.*found: aleppo-2016-12, tiny"):
        workspace.load("homs")
    with pytest.raises(
        ScenarioNotFoundError, match=r"expected a scenario id .*found: aleppo-2016-12, tiny"
    ):
        workspace.load()


def test_load_from_missing_workspace(workspace: Workspace) -> None:
    with pytest.raises(ScenarioNotFoundError, match=r"found: none"):
        workspace.load()


def test_cli_import_then_dump(
    tiny_dir: Path, tiny: Scenario, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "w.gpkg"
    assert main(["import", str(tiny_dir), "--workspace", str(path)]) == 0
    assert "imported 'tiny'" in capsys.readouterr().out
    out = tmp_path / "dumped" / "tiny"
    assert main(["dump", "--out", str(out), "--workspace", str(path)]) == 0
    assert "wrote 'tiny'" in capsys.readouterr().out
    assert read_scenario(out, strict=True) == tiny


def test_cli_import_if_missing_leaves_workspace_untouched(
    tiny_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "w.gpkg"
    assert main(["import", str(tiny_dir), "--workspace", str(path)]) == 0
    before = (path.stat().st_mtime_ns, path.read_bytes())
    assert main(["import", str(tiny_dir), "--workspace", str(path), "--if-missing"]) == 0
    assert "already holds 'tiny'" in capsys.readouterr().out
    assert (path.stat().st_mtime_ns, path.read_bytes()) == before


def test_cli_import_if_missing_imports_when_absent(tiny_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "w.gpkg"
    assert main(["import", str(tiny_dir), "--workspace", str(path), "--if-missing"]) == 0
    assert open_workspace(path).scenario_ids() == ["tiny"]


def test_cli_import_invalid_folder_fails_without_touching_workspace(
    tiny_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tiny_copy / "routes.geojson").write_text("[]", encoding="utf-8")
    path = tmp_path / "w.gpkg"
    assert main(["import", str(tiny_copy), "--workspace", str(path)]) == 1
    assert "routes.geojson, field 'type': expected a GeoJSON FeatureCollection" in (
        capsys.readouterr().err
    )
    assert not path.exists()


def test_a_scenario_read_from_the_same_file_is_given_again(
    workspace: Workspace, tiny: Scenario
) -> None:
    """Reading 100,000 events back took 4 s: the same file (inode, time, size) gives the same
    records again; a save, or a change made by another program in place, is read anew."""
    workspace.save(tiny)
    first = workspace.load("tiny")
    assert open_workspace(workspace.location).load("tiny") is first
    rename = "UPDATE convoys SET label = 'Renamed in QGIS' WHERE id = 'c1'"
    if isinstance(workspace.location, Path):
        with sqlite3.connect(workspace.path) as db:  # e.g. QGIS editing the file in place
            db.execute(rename)
    else:
        import psycopg

        with psycopg.connect(workspace.location) as db:  # QGIS editing the table: its
            db.execute(rename)  # trigger adds one to the workspace's version
    renamed = workspace.load("tiny")
    assert renamed is not first
    assert renamed.convoys[0].label == "Renamed in QGIS"
    kept = [key for key in geo.store.base._LOADED if key[0] == workspace._cache_key()]
    assert len(kept) == 1  # the older version is dropped, not kept beside it


def test_a_second_scenario_with_open_ended_zones_is_saved_beside_the_first(
    workspace: Workspace,
) -> None:
    first = synthetic.generate(events=5, convoys=2, zones=2, seed=1)  # (zones without an end)
    second = replace(synthetic.generate(events=5, convoys=2, zones=2, seed=2), id="other")
    workspace.save(first)
    workspace.save(second)
    assert workspace.scenario_ids() == sorted([first.id, "other"])
    assert open_workspace(workspace.location).load(first.id) == first
    assert open_workspace(workspace.location).load("other") == second


@pytest.mark.geopackage_only
def test_a_read_that_met_a_write_half_way_is_tried_again(
    tiny_workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from geo.store import base as w

    real, calls = Workspace._load, []

    def met_a_write(self: Workspace, scenario_id: str | None) -> Any:
        calls.append(scenario_id)
        if len(calls) == 1:  # another process appends meanwhile: the file changes
            stamp = self.path.stat().st_mtime_ns + 1_000_000
            os.utime(self.path, ns=(stamp, stamp))
            raise WorkspaceError(f"{self.path}: cannot read layer 'scenarios' (tables missing)")
        return real(self, scenario_id)

    w._LOADED.clear()
    monkeypatch.setattr(Workspace, "_load", met_a_write)
    assert tiny_workspace.load("tiny").id == "tiny"
    assert len(calls) == 2


def test_a_read_that_fails_with_no_writer_about_is_told_at_once(
    tiny_workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    from geo.store import base as w

    calls = []

    def broken(self: Workspace, scenario_id: str | None) -> Any:
        calls.append(scenario_id)
        raise WorkspaceError(f"{self.path}: cannot read layer 'scenarios' (not a GeoPackage)")

    w._LOADED.clear()
    monkeypatch.setattr(Workspace, "_load", broken)
    with pytest.raises(WorkspaceError, match="not a GeoPackage"):
        tiny_workspace.load("tiny")
    assert len(calls) == 1
