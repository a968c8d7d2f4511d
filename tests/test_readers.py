"""Reading users' files into raw rows per layer: one test per format and per refusal.

Fixtures are in tests/data/import (see its README); every problem must name the file, the row
or feature, and what was expected.
"""

from __future__ import annotations

import inspect
import json
import shutil
import tempfile
import zipfile
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd
import pyogrio
import pytest
import shapely
from shapely.geometry import LineString, Point

from geo import readers
from geo.errors import ProblemLog, ValidationError
from geo.readers import FORMATS, LAYERS, Table, ZipLimits, detect_format, iso_date, read_file

DATA = Path(__file__).parent / "data" / "import"


def read(name: str, **options: object) -> tuple[list[Table], ProblemLog]:
    log = ProblemLog()
    return read_file(DATA / name, log=log, **options), log  # type: ignore[arg-type]


def one(tables: list[Table], layer: str) -> Table:
    (table,) = [table for table in tables if table.layer == layer]
    return table


def test_public_names() -> None:
    assert LAYERS == ("places", "convoys", "figures", "routes", "zones", "events")
    assert FORMATS == ("csv", "xlsx", "ods", "geojson", "kml", "gpx", "gpkg", "zip")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("a.csv", "csv"),
        ("A.GeoJSON", "geojson"),
        ("a.json", "geojson"),
        ("a.kml", "kml"),
        ("a.kmz", "zip"),
        ("a.gpx", "gpx"),
        ("dir/a.gpkg", "gpkg"),
        ("a.zip", "zip"),
    ],
)
def test_detect_format(name: str, expected: str) -> None:
    assert detect_format(name) == expected


def test_detect_format_refuses_other_suffixes() -> None:
    with pytest.raises(ValidationError, match=r"notes\.docx: expected a file ending in \.csv"):
        detect_format(Path("notes.docx"))
    with pytest.raises(ValidationError, match=r"expected a zipped Shapefile"):
        detect_format("zones.shp")


def test_places_csv_reads_lat_lon_columns_as_latitude_longitude() -> None:
    tables, log = read("places.csv")
    table = one(tables, "places")
    assert (len(tables), len(table.rows), list(log)) == (1, 4, [])
    first = table.rows[0]
    assert first.spot.file == "places.csv"
    assert first.spot.where == "row 2 (id 'ramouseh')"
    assert (first.cells["latitude"], first.cells["longitude"]) == ("36.1547", "37.1308")
    assert "lat" not in first.cells
    assert first.geometry is None


def test_places_by_name_have_no_coordinates() -> None:
    tables, _log = read("places_by_name.csv")
    rows = one(tables, "places").rows
    assert [row.cells["name"] for row in rows] == ["Fuaa", "Kafraya", "Idlib"]
    assert not any("latitude" in row.cells for row in rows)


def test_convoy_list_is_guessed_from_its_destination_column() -> None:
    tables, log = read("convoys.csv")
    rows = one(tables, "convoys").rows
    assert len(rows) == 3
    assert not list(log)
    assert rows[1].cells["origin"] == "Kafraya"
    assert rows[1].cells["arrive"] == ""  # blank cells stay blank text


def test_upload_is_named_after_the_users_file(tmp_path: Path) -> None:
    upload = tmp_path / "tmpa81kq"
    shutil.copy(DATA / "places.csv", upload)
    log = ProblemLog()
    tables = read_file(upload, log=log, name="partner list.csv")
    assert {row.spot.file for row in tables[0].rows} == {"partner list.csv"}


def test_acled_export_is_renamed_to_event_fields() -> None:
    tables, log = read("acled.csv")
    rows = one(tables, "events").rows
    assert len(rows) == 12
    assert not list(log)
    cells = rows[1].cells
    assert rows[1].spot.where == "row 3 (id 'SYR900002')"
    assert cells["id"] == "SYR900002"
    assert cells["reported_by"] == "Test Agency A; Test Monitor B"
    assert (cells["latitude"], cells["longitude"], cells["fatalities"]) == (
        "36.1790",
        "37.1560",
        "2",
    )
    assert {"assoc_actor_1", "assoc_actor_2", "actor1", "event_type", "notes"} <= set(cells)
    assert not {"event_id_cnty", "event_date", "source", "year", "iso", "timestamp"} & set(cells)
    # three spellings of a date in the file, one ISO date out
    assert [rows[n].cells["date"] for n in (3, 5, 7)] == ["2016-12-15", "2016-12-15", "2016-12-17"]


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("15 December 2016", "2016-12-15"),
        ("15-December-2016", "2016-12-15"),
        ("5 Dec 2016", "2016-12-05"),
        ("2016-12-15", "2016-12-15"),
        ("31 February 2016", "31 February 2016"),
        ("mid-December", "mid-December"),
    ],
)
def test_iso_date(written: str, expected: str) -> None:
    assert iso_date(written) == expected


def test_mixed_csv_keeps_every_row_but_the_one_with_too_many_cells() -> None:
    tables, log = read("mixed.csv")
    rows = one(tables, "places").rows
    assert len(rows) == 6  # 4 good, latitude 'abc' and a blank name: values are checked later
    assert rows[1].cells["latitude"] == "abc"
    assert rows[3].cells["name"] == ""
    (problem,) = log
    assert (problem.file, problem.where, problem.severity) == (
        "mixed.csv",
        "row 7 (id 'extra-cell')",
        "error",
    )
    assert str(problem) == (
        "mixed.csv, row 7 (id 'extra-cell'): "
        "expected 6 cells, one per column of the header, got '7 cells'"
    )


def test_swapped_coordinates_are_read_as_written() -> None:
    tables, _ = read("swapped.csv")
    rows = one(tables, "places").rows
    assert [(row.cells["latitude"], row.cells["longitude"]) for row in rows] == [
        ("36.63393", "35.93062"),
        ("36.8006", "35.8633"),
        ("36.20124", "37.16117"),
    ]


def test_csv_header_problems_and_encoding(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_bytes("\ufeffid,name,name,\nx,a,b,c\n".encode())
    log = ProblemLog()
    rows = read_file(path, log=log)[0].rows
    assert rows[0].cells == {"id": "x", "name": "a"}  # the BOM is not part of 'id'
    assert [(p.where, p.field) for p in log] == [("header", "name"), ("header", "column 4")]
    path.write_bytes(b"id,name\nx,\xff\n")  # not UTF-8: read as Windows-1252, and said so
    log = ProblemLog()
    [table] = read_file(path, log=log)
    assert table.rows[0].cells == {"id": "x", "name": "ÿ"}
    assert [str(p) for p in log] == [
        "warning: x.csv, byte 10, field 'encoding': expected UTF-8, got "
        "'other bytes: read as Windows-1252 (Latin-1)'"
    ]


def test_zones_geojson() -> None:
    tables, log = read("zones.geojson")
    rows = one(tables, "zones").rows
    assert len(tables) == 1
    assert not list(log)
    assert [row.spot.where for row in rows] == [
        "feature #1 (id 'z-east')",
        "feature #2 (id 'z-fuaa-kafraya')",
    ]
    assert [row.geometry.geom_type for row in rows if row.geometry] == ["Polygon", "MultiPolygon"]
    assert rows[0].geometry is not None
    assert rows[0].geometry.bounds == pytest.approx((37.15, 36.17, 37.20, 36.21), abs=1e-4)


def test_single_feature_and_bare_geometry_are_wrapped(tmp_path: Path) -> None:
    feature = {"type": "Feature", "properties": {"id": "p1"}, "geometry": Point(37.13, 36.15)}
    feature["geometry"] = shapely.geometry.mapping(feature["geometry"])
    (tmp_path / "one.geojson").write_text(json.dumps(feature), encoding="utf-8")
    (tmp_path / "bare.json").write_text(json.dumps(feature["geometry"]), encoding="utf-8")
    for name in ("one.geojson", "bare.json"):
        log = ProblemLog()
        (table,) = read_file(tmp_path / name, log=log)
        assert table.layer == "places"
        assert not list(log)
        (row,) = table.rows
        where = "feature #1" + (" (id 'p1')" if name == "one.geojson" else "")
        assert (row.spot.file, row.spot.where) == (name, where)
        assert (row.cells["latitude"], row.cells["longitude"], row.geometry) == (36.15, 37.13, None)


def test_bow_tie_is_repaired_with_a_warning() -> None:
    tables, log = read("bowtie.geojson")
    (row,) = one(tables, "zones").rows
    assert row.geometry is not None
    assert row.geometry.is_valid
    assert row.geometry.geom_type == "MultiPolygon"
    assert row.geometry.area == pytest.approx(0.005)
    (warning,) = log
    assert warning.severity == "warning"
    assert warning.where == "feature #1 (id 'z-bowtie')"
    assert warning.actual == "Self-intersection[37.15 36.15]"


def test_projected_coordinates_without_crs_are_refused() -> None:
    tables, log = read("projected_no_crs.geojson")
    assert tables == []
    (problem,) = log.errors
    assert problem.where == "feature #1 (id 'z-utm')"
    assert problem.expected.startswith("longitude/latitude in degrees")


def test_kml_folders_become_tables_by_geometry() -> None:
    tables, log = read("zones.kml")
    assert not list(log)
    assert [(t.layer, t.source_layer, len(t.rows)) for t in tables] == [
        ("places", "Crossings (test)", 1),
        ("routes", "Roads (test)", 1),
        ("zones", "Control zones (test)", 2),
    ]
    pocket, besieged = one(tables, "zones").rows
    assert pocket.spot.where == "placemark #1 'East Aleppo pocket (test outline)'"
    assert pocket.cells["id"] == "z-east"
    assert pocket.cells["holder"] == "Armed opposition groups"
    assert pocket.cells["quote"].startswith("Outline traced for the tests")
    assert pocket.geometry is not None
    assert not pocket.geometry.has_z
    assert len(pocket.geometry.interiors) == 1  # type: ignore[attr-defined]
    assert besieged.geometry is not None
    assert besieged.geometry.geom_type == "MultiPolygon"
    (crossing,) = one(tables, "places").rows
    assert crossing.spot.where == "placemark #3 'Ramouseh crossing'"
    assert crossing.cells["latitude"] == pytest.approx(36.1547, abs=1e-4)
    assert crossing.cells["longitude"] == pytest.approx(37.1308, abs=1e-4)
    (road,) = one(tables, "routes").rows
    assert road.geometry is not None
    assert road.geometry.geom_type == "LineString"


def test_kml_without_namespace_and_broken_kml(tmp_path: Path) -> None:
    plain = tmp_path / "plain.kml"
    plain.write_text(
        "<kml><Placemark><name>P</name><Point><coordinates>37.1,36.2</coordinates></Point>"
        "</Placemark><Placemark><name>Q</name></Placemark></kml>",
        encoding="utf-8",
    )
    log = ProblemLog()
    (table,) = read_file(plain, log=log)
    assert (table.layer, len(table.rows)) == ("places", 1)
    assert [(p.where, p.expected) for p in log] == [
        ("placemark #2 'Q'", "a Point, LineString, Polygon, MultiGeometry or gx:Track")
    ]
    broken = tmp_path / "broken.kml"
    broken.write_text("<kml><Placemark>", encoding="utf-8")
    log = ProblemLog()
    assert read_file(broken, log=log) == []
    assert next(p.actual for p in log).startswith("ParseError")


def test_xml_bomb_is_refused_unread() -> None:
    tables, log = read("evil.kml")
    assert tables == []
    (problem,) = log
    assert (problem.file, problem.where, problem.severity) == ("evil.kml", "", "error")
    assert "DTDForbidden" in str(problem.actual)


def test_gpx_track_segments_are_joined_into_one_route() -> None:
    tables, log = read("track.gpx")
    assert not list(log)
    (track,) = one(tables, "routes").rows
    assert track.spot.where == "track #1 'Convoy 1 driver'"
    assert track.geometry is not None
    assert track.geometry.geom_type == "LineString"
    coordinates = list(track.geometry.coords)
    assert len(coordinates) == 20 == track.cells["points"]
    assert coordinates[0] == pytest.approx((37.16, 36.19), abs=1e-4)
    assert coordinates[10] == pytest.approx((37.127, 36.156), abs=1e-4)  # second segment
    assert coordinates[-1] == pytest.approx((37.1, 36.1848), abs=1e-4)
    assert (track.cells["started"], track.cells["ended"]) == (
        "2016-12-15T12:30:00+00:00",
        "2016-12-15T13:27:00+00:00",
    )
    waypoints = one(tables, "places")
    assert waypoints.source_layer == "waypoints"
    first = waypoints.rows[0]
    assert first.spot.where == "waypoint #1 'Ramouseh crossing'"
    assert (first.cells["quote"], first.cells["time"]) == (
        "Convoy stopped here (test).",
        "2016-12-15T12:58:00+00:00",
    )
    assert (first.cells["latitude"], first.cells["longitude"]) == (36.1547, 37.1308)


def test_gpx_track_of_one_point_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "short.gpx"
    path.write_text(
        '<gpx xmlns="http://www.topografix.com/GPX/1/0"><trk><name>Stub</name><trkseg>'
        '<trkpt lat="36.1" lon="37.1"/><trkpt lat="north" lon="37.2"/></trkseg></trk></gpx>',
        encoding="utf-8",
    )
    log = ProblemLog()
    assert read_file(path, log=log) == []
    assert [(p.where, p.field, p.expected) for p in log] == [
        ("track #1 'Stub'", "point #2 lat/lon", "numbers in degrees"),
        ("track #1 'Stub'", "geometry", "at least 2 points"),
    ]


def test_geopackage_layers() -> None:
    tables, log = read("zones.gpkg")
    assert [(t.layer, t.source_layer, len(t.rows)) for t in tables] == [
        ("zones", "zones", 2),
        ("places", "checkpoints", 2),
        ("convoys", "convoys", 2),
    ]
    (warning,) = log
    assert (warning.file, warning.severity) == ("zones.gpkg:notes", "warning")
    east = one(tables, "zones").rows[0]
    assert (east.spot.file, east.spot.where) == ("zones.gpkg:zones", "feature #1 (id 'z-east')")
    assert east.cells["valid_from"] == "2016-12-12T22:00:00+00:00"
    assert one(tables, "zones").rows[1].cells["valid_to"] is None
    assert [row.cells["people"] for row in one(tables, "convoys").rows] == [750, None]
    checkpoint = one(tables, "places").rows[0]
    assert (checkpoint.cells["latitude"], checkpoint.cells["longitude"]) == pytest.approx(
        (36.1547, 37.1308), abs=1e-4
    )


def test_not_a_geopackage(tmp_path: Path) -> None:
    path = tmp_path / "x.gpkg"
    path.write_text("not a database", encoding="utf-8")
    log = ProblemLog()
    assert read_file(path, log=log) == []
    assert [p.expected for p in log] == ["a readable GeoPackage"]


def test_utm_shapefile_in_a_zip_is_reprojected() -> None:
    tables, log = read("zones_shp.zip")
    assert not list(log)
    (table,) = tables
    assert (table.layer, table.source_layer) == ("zones", "qgis_zones")
    (row,) = table.rows
    assert row.spot.file == "zones_shp.zip:qgis_zones"
    assert row.spot.where == "feature #1 (id 'z-east')"
    assert row.geometry is not None
    assert row.geometry.bounds == pytest.approx((37.15, 36.17, 37.20, 36.21), abs=1e-4)


def test_zip_holding_one_geojson(tmp_path: Path) -> None:
    path = tmp_path / "shared.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.write(DATA / "zones.geojson", "export/zones.geojson")
        archive.writestr("__MACOSX/export/._zones.geojson", b"resource fork")
    log = ProblemLog()
    (table,) = read_file(path, log=log)
    assert table.layer == "zones"
    assert not list(log)
    assert table.rows[0].spot.file == "shared.zip:export/zones.geojson"


@pytest.mark.parametrize(
    ("name", "limits", "expected", "actual"),
    [
        ("traversal.zip", ZipLimits(), "member paths inside the archive", "member '../evil.txt'"),
        ("bomb.zip", ZipLimits(), "members compressed at most 200:1", "member 'zones.geojson'"),
        ("zones_shp.zip", ZipLimits(max_members=4), "at most 4 members", "5 members"),
        ("zones_shp.zip", ZipLimits(max_total_bytes=1000), "at most 1,000 bytes", "1,001 bytes"),
    ],
)
def test_unsafe_zips_are_refused_before_extraction(
    name: str,
    limits: ZipLimits,
    expected: str,
    actual: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    work = tmp_path / "work" / "in"
    work.mkdir(parents=True)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    monkeypatch.chdir(work)
    upload = work / name
    shutil.copy(DATA / name, upload)
    log = ProblemLog()
    assert read_file(upload, log=log, limits=limits) == []
    (problem,) = log
    assert (problem.file, problem.where, problem.severity) == (name, "", "error")
    assert problem.expected.startswith(expected)
    assert str(problem.actual).startswith(actual)
    assert sorted(path.name for path in tmp_path.rglob("*")) == sorted(["in", name, "tmp", "work"])
    assert not (DATA.parent / "evil.txt").exists()


def test_not_a_zip(tmp_path: Path) -> None:
    path = tmp_path / "x.zip"
    path.write_text("PK but not really", encoding="utf-8")
    log = ProblemLog()
    assert read_file(path, log=log) == []
    assert [p.expected for p in log] == ["a readable zip archive"]


def test_forced_layer_reports_rows_of_another_geometry() -> None:
    tables, log = read("zones.geojson", layer="routes")
    assert tables == []
    assert [(p.where, p.field, p.expected, p.actual) for p in log] == [
        ("feature #1 (id 'z-east')", "geometry", "a LineString (for the routes layer)", "Polygon"),
        (
            "feature #2 (id 'z-fuaa-kafraya')",
            "geometry",
            "a LineString (for the routes layer)",
            "MultiPolygon",
        ),
    ]


def test_forced_layer_applies_to_every_table() -> None:
    tables, log = read("track.gpx", layer="places")
    assert [(t.layer, len(t.rows)) for t in tables] == [("places", 2)]
    assert [(p.where, p.expected) for p in log] == [
        ("track #1 'Convoy 1 driver'", "a Point (for the places layer)")
    ]
    tables, log = read("places.csv", layer="zones")
    assert tables == []
    assert [p.actual for p in log] == ["a CSV file (it has no geometry)"]


def test_unknown_layer_and_format() -> None:
    tables, log = read("places.csv", layer="people")
    assert tables == []
    assert [(p.field, p.actual) for p in log] == [("layer", "people")]
    log = ProblemLog()
    assert read_file(DATA / "README.md", log=log) == []
    assert [p.expected.split(",")[0] for p in log] == ["a file ending in .csv"]


def test_shapefile_without_prj(tmp_path: Path) -> None:
    path = tmp_path / "no_prj.zip"
    with zipfile.ZipFile(DATA / "zones_shp.zip") as source, zipfile.ZipFile(path, "w") as target:
        for info in source.infolist():
            if not info.filename.endswith(".prj"):
                target.writestr(info, source.read(info))
    log = ProblemLog()
    assert read_file(path, log=log) == []
    (problem,) = log
    assert (problem.file, problem.field) == ("no_prj.zip:qgis_zones", "crs")
    assert problem.expected == "a CRS (.prj file) for these projected coordinates"
    assert str(problem.actual).startswith("x=33")


def test_geopackage_in_degrees_without_crs(tmp_path: Path) -> None:
    path = tmp_path / "traced.gpkg"
    frame = gpd.GeoDataFrame(
        {"seen": pd.to_datetime(["2016-12-15T14:30"]), "buses": np.array([12], dtype="int32")},
        geometry=[LineString([(37.13, 36.15), (37.10, 36.18)])],
    )
    with pytest.warns(UserWarning, match="'crs' was not provided"):
        pyogrio.write_dataframe(frame, path, layer="traced", driver="GPKG")
    log = ProblemLog()
    (table,) = read_file(path, log=log)
    (row,) = table.rows
    assert (table.layer, table.source_layer) == ("routes", "traced")
    assert row.cells == {"seen": "2016-12-15T14:30:00", "buses": 12}  # naive stays naive
    assert type(row.cells["buses"]) is int
    (warning,) = log
    assert (warning.file, warning.severity, warning.expected) == (
        "traced.gpkg:traced",
        "warning",
        "a CRS",
    )
    assert "EPSG:4326 is assumed" in str(warning.actual)


def test_geopackage_naming_a_coordinate_system_gdal_cannot_read(tmp_path: Path) -> None:
    """The file names srs_id 99999 with a broken definition: the message says so (it said
    the file had no CRS at all)."""
    import sqlite3

    path = tmp_path / "odd.gpkg"
    frame = gpd.GeoDataFrame({"name": ["a"]}, geometry=[LineString([(37.1, 36.1), (37.2, 36.2)])],
                             crs="EPSG:4326")  # fmt: skip
    pyogrio.write_dataframe(frame, path, layer="odd", driver="GPKG")
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO gpkg_spatial_ref_sys VALUES ('Made up', 99999, 'NONE', 99999, "
            "'PROJCS[\"broken', NULL)"
        )
        db.execute("UPDATE gpkg_geometry_columns SET srs_id = 99999")
        db.execute("UPDATE gpkg_contents SET srs_id = 99999")
    log = ProblemLog()
    read_file(path, log=log)
    crs = next(problem for problem in log if problem.field == "crs")
    assert crs.severity == "warning"
    assert "srs_id 99999 (Made up) whose definition GDAL cannot read" in str(crs.actual)
    assert "EPSG:4326 is assumed" in str(crs.actual)


def test_kmz_and_gpx_route(tmp_path: Path) -> None:
    kmz = tmp_path / "shared.kmz"
    with zipfile.ZipFile(kmz, "w") as archive:
        archive.write(DATA / "zones.kml", "doc.kml")
        archive.writestr("files/icon.png", b"\x89PNG")
    log = ProblemLog()
    assert [t.layer for t in read_file(kmz, log=log)] == ["places", "routes", "zones"]
    assert not list(log)
    gpx = tmp_path / "plan.gpx"
    gpx.write_text(
        '<gpx xmlns="http://www.topografix.com/GPX/1/1"><rte><name>Plan</name>'
        '<rtept lat="36.15" lon="37.13"/><rtept lat="36.18" lon="37.10"/></rte></gpx>',
        encoding="utf-8",
    )
    (table,) = read_file(gpx, log=log)
    assert (table.layer, table.source_layer, table.rows[0].spot.where) == (
        "routes",
        "routes",
        "route #1 'Plan'",
    )


def test_zip_of_several_files_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "several.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.write(DATA / "places.csv", "places.csv")
        archive.write(DATA / "zones.kml", "zones.kml")
    log = ProblemLog()
    assert read_file(path, log=log) == []
    assert [p.actual for p in log] == ["places.csv, zones.kml"]


def test_a_geopackage_named_by_a_relative_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checks that open a GeoPackage with SQLite take a path typed relative, as a user of
    `python -m geo import traced.gpkg` types it."""
    frame = gpd.GeoDataFrame({"name": ["a"]}, geometry=[LineString([(37.1, 36.1), (37.2, 36.2)])])
    with pytest.warns(UserWarning, match="'crs' was not provided"):
        pyogrio.write_dataframe(frame, tmp_path / "traced.gpkg", layer="traced", driver="GPKG")
    monkeypatch.chdir(tmp_path)
    log = ProblemLog()
    (table,) = read_file(Path("traced.gpkg"), log=log)
    assert len(table.rows) == 1
    assert "EPSG:4326 is assumed" in str(next(iter(log)).actual)


@pytest.mark.parametrize(
    ("start", "kind"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "a PNG image"),
        (b"%PDF-1.7\n", "a PDF document"),
        (b"SQLite format 3\x00", "an SQLite database (a GeoPackage? name it .gpkg)"),
        (b"PK\x03\x04" + b"\x00" * 26 + b"xl/workbook.xml", "an Excel workbook (name it .xlsx)"),
        (b"id,name\n1," + bytes(64), "a binary file"),
    ],
)
def test_a_file_that_is_not_text_is_refused_unread_as_a_csv(
    start: bytes, kind: str, tmp_path: Path
) -> None:
    path = tmp_path / "table.csv"
    path.write_bytes(start + bytes(range(1, 256)) * 4)
    log = ProblemLog()
    assert read_file(path, log=log) == []
    assert [(p.file, p.expected, p.actual) for p in log] == [
        ("table.csv", "a CSV file (text)", f"{kind}, not a CSV: nothing read")
    ]


def test_text_in_utf16_is_still_text(tmp_path: Path) -> None:
    path = tmp_path / "utf16.csv"
    path.write_bytes("id,name,latitude,longitude\np1,Idlib,35.93,36.63\n".encode("utf-16"))
    log = ProblemLog()
    [table] = read_file(path, log=log)
    assert [row.cells["name"] for row in table.rows] == ["Idlib"]


def test_every_registered_reader_answers_the_reader_interface(tmp_path: Path) -> None:
    assert set(readers.SUFFIXES.values()) == set(FORMATS) == set(readers.READERS)
    for module in readers.MODULES:
        assert all(readers.READERS[found] is module.read for found in module.SUFFIXES.values())
    for found, reader in readers.READERS.items():
        assert list(inspect.signature(reader).parameters)[:5] == [
            "path", "file", "layer", "log", "limits",
        ]  # fmt: skip
        log = ProblemLog()
        name = f"absent.{found}"
        assert reader(tmp_path / name, name, None, log, ZipLimits()) == []
        assert [(problem.file, problem.severity) for problem in log] == [(name, "error")]


def test_the_upload_types_are_every_suffix_read() -> None:
    assert tuple(suffix[1:] for suffix in readers.SUFFIXES) == readers.UPLOAD_TYPES
    for suffix in readers.SUFFIXES:
        assert detect_format(f"file{suffix.upper()}") == readers.SUFFIXES[suffix]
    assert {"kmz", "xlsm", "json", "gpkg"} <= set(readers.UPLOAD_TYPES)
