"""Odd real files (Fiona's and pyogrio's test data, in ../shared/malformed-corpus/) and crafted
ones: each import ends within seconds with records or problems that name file, row, field,
expected and got; none raises, none leaks a temporary path or GDAL's words on standard error."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from geo import importing
from geo.records import Scenario
from geo.scenario import read_scenario
from geo.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
CORPUS = next(
    (
        folder
        for folder in (
            ROOT.parent / "shared" / "malformed-corpus",
            Path("/work/shared/malformed-corpus"),
        )
        if folder.is_dir()
    ),
    ROOT / "missing-corpus",
)
FILES = sorted(p for p in CORPUS.glob("*") if p.name != "README.md")


@pytest.fixture(scope="module")
def shipped() -> Scenario:
    return read_scenario(Settings.from_environment().default_scenario_dir)


def test_the_corpus_is_here() -> None:
    assert len(FILES) >= 14, "the malformed corpus (../shared/malformed-corpus/) is missing"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_corpus_file_gives_records_or_clear_problems_quickly(
    path: Path, shipped: Scenario, capfd: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    prepared = importing.prepare(path, shipped)
    assert time.monotonic() - started < 60
    assert prepared.accepted or prepared.problems
    for problem in prepared.problems:
        assert problem.file.startswith(path.name), problem
        assert "/tmp/" not in str(problem), problem  # no temporary folder of ours
    captured = capfd.readouterr()
    assert captured.err == ""  # GDAL's warnings are the import's, not the server's stderr


def problems_of(path: Path, scenario: Scenario) -> list[str]:
    return [str(problem) for problem in importing.prepare(path, scenario).problems]


def test_a_tin_shapefile_is_refused_by_its_geometry(shipped: Scenario) -> None:
    [problem] = problems_of(CORPUS / "fiona_test_tin_shapefile_noprj.zip", shipped)
    assert "field 'geometry': expected points, lines or polygons" in problem
    assert "WKB type 16" in problem


def test_a_zipped_shapefile_without_its_index_names_the_missing_part(shipped: Scenario) -> None:
    [problem] = problems_of(CORPUS / "own_shp_missing_shx.zip", shipped)
    assert problem == (
        "own_shp_missing_shx.zip: expected gre.shx (the Shapefile's index) beside gre.shp, "
        "got 'no such member in the zip'"
    )


def test_measured_lines_are_read_with_a_warning(shipped: Scenario) -> None:
    found = problems_of(CORPUS / "pyogrio_line_zm.gpkg", shipped)
    assert any(p.startswith("warning: ") and "Measured (M) geometry" in p for p in found)


def test_a_feature_whose_id_is_an_object_is_refused_alone(
    tmp_path: Path, shipped: Scenario
) -> None:
    path = tmp_path / "places.geojson"
    point = {"type": "Point", "coordinates": [37.1, 36.2]}
    features = [
        {"type": "Feature", "properties": {"id": {"a": 1}, "name": "X"}, "geometry": point},
        {"type": "Feature", "properties": {"id": "good", "name": "Aleppo"}, "geometry": point},
    ]
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    prepared = importing.prepare(path, shipped, options=importing.Options(layer="places"))
    assert [str(p) for p in prepared.problems] == [
        "places.geojson, feature #1 (id {'a': 1}), field 'id': expected a text or a whole "
        "number, got {'a': 1}"
    ]
    assert prepared.accepted == 1  # the valid feature is kept


def test_geojson_nested_past_any_depth_is_refused(tmp_path: Path, shipped: Scenario) -> None:
    path = tmp_path / "deep.geojson"
    nested = "[" * 100_000 + "]" * 100_000
    path.write_text(
        '{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},'
        f'"geometry":{{"type":"Point","coordinates":{nested}}}}}]}}'
    )
    [problem] = problems_of(path, shipped)
    assert problem.endswith(
        "expected GeoJSON nested as geometries are, got 'arrays nested past any depth'"
    )


# --- everyday files from spreadsheets -------------------------------------------------------

PLACES = [("Alépo centre", "36.2012", "37.1612"), ("Saraqib", "35.8644", "36.8006")]


def spreadsheet_csv(delimiter: str, decimal: str) -> str:
    lines = [delimiter.join(("id", "name", "latitude", "longitude", "country_code", "kind"))]
    for number, (name, lat, lon) in enumerate(PLACES, start=1):
        cells = (f"p{number}", name, lat.replace(".", decimal), lon.replace(".", decimal), "SY")
        lines.append(delimiter.join((*cells, "town")))
    return "\r\n".join(lines) + "\r\n"


@pytest.mark.parametrize(
    ("encoding", "delimiter", "decimal", "warnings"),
    [
        ("utf-8", ",", ".", []),
        ("cp1252", ";", ",", ["encoding", "separated by ','"]),  # a French or German Excel
        ("utf-16", "\t", ".", ["separated by ','"]),  # Excel's "Unicode text"
    ],
)
def test_spreadsheet_csvs_are_read_and_what_was_guessed_is_said(
    encoding: str,
    delimiter: str,
    decimal: str,
    warnings: list[str],
    tmp_path: Path,
    shipped: Scenario,
) -> None:
    path = tmp_path / "places.csv"
    path.write_bytes(spreadsheet_csv(delimiter, decimal).encode(encoding))
    prepared = importing.prepare(path, shipped)
    assert prepared.accepted == 2, [str(p) for p in prepared.problems]
    places = {p.id: p for p in prepared.records["places"]}
    assert places["p1"].name == "Alépo centre"
    assert (places["p1"].latitude, places["p1"].longitude) == (36.2012, 37.1612)
    said = [str(p) for p in prepared.problems]
    assert len(said) == len(warnings)
    for expected, problem in zip(warnings, said, strict=True):
        assert problem.startswith("warning: places.csv")
        assert expected in problem


# --- what was once accepted silently --------------------------------------------------------

KML = """<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">
<Document>
  <NetworkLink><name>Live</name><Link><href>http://example.invalid/feed.kml</href></Link></NetworkLink>
  <Placemark><name>Track</name>
    <gx:Track><when>2016-12-15T12:30:00Z</when><when>2016-12-15T13:00:00Z</when>
      <gx:coord>37.15 36.18 0</gx:coord><gx:coord>37.10 36.15 0</gx:coord></gx:Track>
  </Placemark>
  <Placemark><name>Zone</name><MultiPolygon><coordinates>1,2</coordinates></MultiPolygon></Placemark>
</Document></kml>"""


def test_kml_tracks_are_read_and_what_is_not_is_named(tmp_path: Path) -> None:
    from geo.errors import ProblemLog
    from geo.readers import read_file

    path = tmp_path / "tracks.kml"
    path.write_text(KML, encoding="utf-8")
    log = ProblemLog()
    [table] = read_file(path, log=log)
    assert [row.geometry.wkt for row in table.rows] == ["LINESTRING (37.15 36.18, 37.1 36.15)"]
    said = [str(problem) for problem in log]
    assert said[0].startswith("warning: tracks.kml, field 'NetworkLink': expected placemarks")
    assert said[0].endswith("got 'http://example.invalid/feed.kml'")
    assert said[1].endswith("or gx:Track, got 'MultiPolygon'")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Idlib\x00.exe", "text without control characters (this has U+0000)"),
        ("\u202egnp.exe", "text without control characters (this has U+202E)"),
        ("\u200b", "visible text (this is only zero-width or direction characters)"),
    ],
)
def test_names_that_hide_what_they_are_are_refused_and_the_rest_kept(
    name: str, expected: str, tmp_path: Path, shipped: Scenario
) -> None:
    path = tmp_path / "places.csv"
    path.write_text(
        "id,name,latitude,longitude,country_code,kind\n"
        f"bad,{name},36.2,37.1,SY,town\ngood,Saraqib,35.8644,36.8006,SY,town\n",
        encoding="utf-8",
    )
    prepared = importing.prepare(path, shipped)
    assert [str(p) for p in prepared.problems] == [
        f"places.csv, row 2 (id 'bad'), field 'name': expected {expected}, got {name!r}"
    ]
    assert [p.id for p in prepared.records["places"]] == ["good"]


def test_columns_that_are_not_read_are_named(tmp_path: Path, shipped: Scenario) -> None:
    path = tmp_path / "places.csv"
    extra = [f"extra_{i}" for i in range(20_000)]
    header = ["id", "name", "latitude", "longitude", "country_code", "kind", *extra]
    row = ["p1", "Saraqib", "35.8644", "36.8006", "SY", "town", *([""] * len(extra))]
    path.write_text(",".join(header) + "\n" + ",".join(row) + "\n", encoding="utf-8")
    prepared = importing.prepare(path, shipped)
    [warning] = [str(p) for p in prepared.problems]
    assert warning.startswith("warning: places.csv: expected columns that places have (")
    assert warning.endswith(
        "got '20,000 others, not read: extra_0, extra_1, extra_2, extra_3, extra_4, extra_5, "
        "extra_6, extra_7 and 19,992 more'"
    )
    assert prepared.accepted == 1


def test_a_corrupt_geometry_blob_is_refused_not_placed_by_name(
    tmp_path: Path, shipped: Scenario
) -> None:
    import sqlite3

    import geopandas as gpd
    import shapely

    path = tmp_path / "places.gpkg"
    points = [shapely.Point(36.63, 35.93), shapely.Point(36.72, 34.73), shapely.Point(36.8, 35.86)]
    frame = gpd.GeoDataFrame(
        {"name": ["Idlib", "Homs", "Saraqib"], "country_code": ["SY"] * 3, "kind": ["city"] * 3},
        geometry=points,
        crs="EPSG:4326",
    )
    frame.to_file(path, layer="places", engine="pyogrio")
    with sqlite3.connect(path) as db:  # (the R-tree triggers need SpatiaLite's functions)
        for (trigger,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"):
            db.execute(f'DROP TRIGGER "{trigger}"')
        db.execute("UPDATE places SET geom = x'4750000102030405' WHERE name != 'Saraqib'")
    prepared = importing.prepare(path, shipped)
    assert [(p.where, p.field, p.actual) for p in prepared.problems] == [
        ("feature #1", "geometry", "a corrupt geometry blob"),
        ("feature #2", "geometry", "a corrupt geometry blob"),
    ]
    assert [p.name for p in prepared.records["places"]] == ["Saraqib"]
