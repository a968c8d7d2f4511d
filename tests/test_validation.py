"""Validation of scenario folders: one test per rule, each on an edited copy of the tiny scenario.

Every error message must say where (file, row or feature), which field, and what was expected.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
import shapely

from geo.cli import main
from geo.errors import ScenarioNotFoundError, ValidationError
from geo.scenario import check_scenario, read_scenario

C1 = "row 2 (id 'c1')"  # convoys.csv
F1 = "row 2 (id 'f1')"  # figures.csv
ALEPPO = "row 2 (id 'aleppo')"  # places.csv
R1 = "feature #1 (id 'r1')"  # routes.geojson
Z1 = "feature #1 (id 'z1')"  # zones.geojson

BOW_TIE_RING = [[37.1, 36.1], [37.2, 36.2], [37.2, 36.1], [37.1, 36.2], [37.1, 36.1]]
BOW_TIE = {"type": "Polygon", "coordinates": [BOW_TIE_RING]}
# r1's line (Aleppo to the crossing) in EPSG:3857 metres
R1_METRES = [
    [4136762.521682274, 4328347.133601579],
    [4134405.88806218, 4325417.444570537],
    [4132179.498246315, 4323348.933669341],
]
R1_DEGREES = [[37.16117, 36.20124], [37.14, 36.18], [37.12, 36.165]]


def problem(file: str, where: str, field: str, expected: str) -> str:
    """A regex for one problem line: file, row or feature, field, and the start of `expected`."""
    return re.escape(f"{file}, {where}, field {field!r}: expected {expected}")


def test_tiny_fixture_is_valid_and_strict(tiny_dir: Path) -> None:
    scenario = read_scenario(tiny_dir, strict=True)
    assert (scenario.id, len(scenario.places), len(scenario.zones)) == ("tiny", 3, 2)


def test_missing_required_column(tiny_copy: Path) -> None:
    path = tiny_copy / "places.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    # drop the 4th column, `kind`, from every line (no cell of the fixture holds a comma before it)
    path.write_text(
        "\n".join(",".join(line.split(",")[:3] + line.split(",")[4:]) for line in lines) + "\n",
        encoding="utf-8",
    )
    pattern = problem("places.csv", "header", "kind", "this column, got 'no such column'")
    with pytest.raises(ValidationError, match=pattern):
        read_scenario(tiny_copy)


def test_unknown_column_is_a_warning(tiny_copy: Path, edit_csv: Callable[..., None]) -> None:
    edit_csv("places.csv", "aleppo", population="2000000")
    report = check_scenario(tiny_copy)
    assert report.scenario is not None
    [warning] = report.problems.warnings
    assert (warning.file, warning.where, warning.field) == ("places.csv", "header", "population")
    assert "unknown column" in str(warning)
    with pytest.raises(ValidationError, match=r"warning: places\.csv, header, field 'population'"):
        read_scenario(tiny_copy, strict=True)


def test_required_value_empty(tiny_copy: Path, edit_csv: Callable[..., None]) -> None:
    edit_csv("convoys.csv", "c1", label="  ")
    with pytest.raises(ValidationError, match=problem("convoys.csv", C1, "label", "a value")):
        read_scenario(tiny_copy)


def test_bad_enum_value(tiny_copy: Path, edit_csv: Callable[..., None]) -> None:
    edit_csv("convoys.csv", "c1", status="Arrived")
    expected = "one of planned, under_way, arrived, halted, cancelled, got 'Arrived'"
    with pytest.raises(ValidationError, match=problem("convoys.csv", C1, "status", expected)):
        read_scenario(tiny_copy)


def test_time_without_offset(tiny_copy: Path, edit_csv: Callable[..., None]) -> None:
    edit_csv("convoys.csv", "c1", depart="2016-12-15T14:30")
    expected = "an ISO 8601 date-time with a UTC offset"
    with pytest.raises(ValidationError, match=problem("convoys.csv", C1, "depart", expected)):
        read_scenario(tiny_copy)
    with pytest.raises(ValidationError, match=r"no offset\), got '2016-12-15T14:30'"):
        read_scenario(tiny_copy)


@pytest.mark.parametrize("value", ["15 Dec 2016 2:30 pm", "2016-12-32T14:30+02:00", "soon"])
def test_invalid_date_time(tiny_copy: Path, edit_csv: Callable[..., None], value: str) -> None:
    edit_csv("figures.csv", "f1", reported=value)
    expected = "an ISO 8601 date-time with a UTC offset, such as 2016-12-15T14:30+02:00"
    pattern = problem("figures.csv", F1, "reported", f"{expected}, got {value!r}")
    with pytest.raises(ValidationError, match=pattern):
        read_scenario(tiny_copy)


def test_negative_count(tiny_copy: Path, edit_csv: Callable[..., None]) -> None:
    edit_csv("convoys.csv", "c1", fighters="-5")
    with pytest.raises(ValidationError, match=problem("convoys.csv", C1, "fighters", "a count")):
        read_scenario(tiny_copy)
    with pytest.raises(ValidationError, match=r"not negative, low <= high\), got '-5'"):
        read_scenario(tiny_copy)


def test_range_low_above_high(tiny_copy: Path, edit_csv: Callable[..., None]) -> None:
    edit_csv("figures.csv", "f1", count="5000-1500")
    with pytest.raises(ValidationError, match=problem("figures.csv", F1, "count", "a count")):
        read_scenario(tiny_copy)
    with pytest.raises(ValidationError, match=r"low <= high\), got '5000-1500'"):
        read_scenario(tiny_copy)


ONE_PLACE = "the id of a place in places.csv, got 'atlantis'"
LIST = "ids separated by ';', each the id of a"
VIA = f"{LIST} place in places.csv (unknown: atlantis), got 'crossing;atlantis'"


@pytest.mark.parametrize(
    ("file", "row", "field", "value", "expected"),
    [
        ("convoys.csv", "c1", "origin", "atlantis", ONE_PLACE),
        ("convoys.csv", "c1", "destination", "atlantis", ONE_PLACE),
        ("convoys.csv", "c1", "via", "crossing;atlantis", VIA),
        ("figures.csv", "f1", "place", "atlantis", ONE_PLACE),
    ],
)
def test_unknown_place_id(
    tiny_copy: Path,
    edit_csv: Callable[..., None],
    file: str,
    row: str,
    field: str,
    value: str,
    expected: str,
) -> None:
    edit_csv(file, row, **{field: value})
    pattern = problem(file, f"row 2 (id {row!r})", field, expected)
    with pytest.raises(ValidationError, match=pattern):
        read_scenario(tiny_copy)


def test_unknown_source_id(tiny_copy: Path, edit_csv: Callable[..., None]) -> None:
    edit_csv("places.csv", "aleppo", source="report;gazetteer")
    expected = f"{LIST} source (unknown: gazetteer), got 'report;gazetteer'"
    with pytest.raises(ValidationError, match=problem("places.csv", ALEPPO, "source", expected)):
        read_scenario(tiny_copy)


def test_unknown_convoy_id_in_routes(tiny_copy: Path, edit_feature: Callable[..., None]) -> None:
    edit_feature("routes.geojson", "r1", convoy="c9")
    expected = "the id of a convoy in convoys.csv, got 'c9'"
    with pytest.raises(ValidationError, match=problem("routes.geojson", R1, "convoy", expected)):
        read_scenario(tiny_copy)


def test_duplicate_id(tiny_copy: Path, edit_csv: Callable[..., None]) -> None:
    edit_csv("figures.csv", "f2", id="f1")
    expected = "a unique id (also used at row 2 (id 'f1')), got 'f1'"
    pattern = problem("figures.csv", "row 3 (id 'f1')", "id", expected)
    with pytest.raises(ValidationError, match=pattern):
        read_scenario(tiny_copy)


def test_duplicate_feature_id(tiny_copy: Path, edit_feature: Callable[..., None]) -> None:
    edit_feature("zones.geojson", "z2", id="z1")
    pattern = problem("zones.geojson", "feature #2 (id 'z1')", "id", "a unique id")
    with pytest.raises(ValidationError, match=pattern):
        read_scenario(tiny_copy)


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("latitude", "91", "a number from -90 to 90, got '91'"),
        ("latitude", "north", "a number from -90 to 90, got 'north'"),
        ("longitude", "-180.5", "a number from -180 to 180, got '-180.5'"),
    ],
)
def test_coordinate_out_of_range(
    tiny_copy: Path, edit_csv: Callable[..., None], field: str, value: str, expected: str
) -> None:
    edit_csv("places.csv", "aleppo", **{field: value})
    with pytest.raises(ValidationError, match=problem("places.csv", ALEPPO, field, expected)):
        read_scenario(tiny_copy)


def test_swapped_latitude_longitude_is_a_warning(
    tiny_copy: Path, edit_csv: Callable[..., None]
) -> None:
    # Aleppo (36.20124 N, 37.16117 E) with its two numbers swapped lands in southern Turkey.
    edit_csv("places.csv", "aleppo", latitude="37.16117", longitude="36.20124")
    report = check_scenario(tiny_copy)
    assert report.scenario is not None
    assert not report.problems.errors
    [warning] = report.problems.warnings
    assert (warning.file, warning.where, warning.field) == ("places.csv", ALEPPO, "latitude")
    assert "look swapped" in str(warning)


def test_place_far_outside_its_country_is_a_warning(
    tiny_copy: Path, edit_csv: Callable[..., None]
) -> None:
    edit_csv("places.csv", "idlib", latitude="48.85", longitude="2.35")
    [warning] = check_scenario(tiny_copy).problems.warnings
    assert "a point within 60 km of a town in SY" in str(warning)
    assert "swapped" not in str(warning)


def test_arrive_before_depart(tiny_copy: Path, edit_csv: Callable[..., None]) -> None:
    edit_csv("convoys.csv", "c1", arrive="2016-12-15T12:00Z")
    expected = "a time after depart (2016-12-15T12:30:00+00:00), got '2016-12-15T12:00:00+00:00'"
    with pytest.raises(ValidationError, match=problem("convoys.csv", C1, "arrive", expected)):
        read_scenario(tiny_copy)


def test_valid_to_before_valid_from(tiny_copy: Path, edit_feature: Callable[..., None]) -> None:
    edit_feature("zones.geojson", "z1", valid_to="2016-12-14T00:00+02:00")
    expected = "a time after valid_from (2016-12-14T22:00:00+00:00)"
    with pytest.raises(ValidationError, match=problem("zones.geojson", Z1, "valid_to", expected)):
        read_scenario(tiny_copy)


def _edit_toml(folder: Path, old: str, new: str) -> None:
    path = folder / "scenario.toml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_end_before_start(tiny_copy: Path) -> None:
    _edit_toml(tiny_copy, "end = 2016-12-16T00:00:00+02:00", "end = 2016-12-14T00:00:00+02:00")
    pattern = re.escape("scenario.toml, field 'end': expected a time after start (2016-12-14T22:00")
    with pytest.raises(ValidationError, match=pattern):
        read_scenario(tiny_copy)


def test_bad_time_zone(tiny_copy: Path) -> None:
    _edit_toml(tiny_copy, '"Asia/Damascus"', '"Syria/Aleppo"')
    pattern = re.escape(
        "scenario.toml, field 'timezone': expected an IANA time zone name such as Asia/Damascus,"
        " got 'Syria/Aleppo'"
    )
    with pytest.raises(ValidationError, match=pattern):
        read_scenario(tiny_copy)


def test_self_intersecting_zone(tiny_copy: Path, edit_feature: Callable[..., None]) -> None:
    edit_feature("zones.geojson", "z1", geometry=BOW_TIE)
    pattern = problem("zones.geojson", Z1, "geometry", "a valid Polygon, got 'Self-intersection")
    with pytest.raises(ValidationError, match=pattern):
        read_scenario(tiny_copy)


def test_point_where_linestring_required(
    tiny_copy: Path, edit_feature: Callable[..., None]
) -> None:
    edit_feature("routes.geojson", "r1", geometry={"type": "Point", "coordinates": [37.1, 36.2]})
    pattern = problem("routes.geojson", R1, "geometry", "LineString, got 'Point'")
    with pytest.raises(ValidationError, match=pattern):
        read_scenario(tiny_copy)


def test_projected_coordinates_without_crs(
    tiny_copy: Path, edit_feature: Callable[..., None]
) -> None:
    edit_feature("routes.geojson", "r1", geometry={"type": "LineString", "coordinates": R1_METRES})
    expected = "longitude/latitude in degrees (EPSG:4326), or a 'crs' member naming the projection"
    with pytest.raises(ValidationError, match=problem("routes.geojson", R1, "geometry", expected)):
        read_scenario(tiny_copy)


def test_projected_coordinates_with_crs_are_reprojected(tiny_copy: Path) -> None:
    crs = '{"type": "name", "properties": {"name": "EPSG:3857"}}'
    feature = (
        '{"type": "Feature", "properties": {"id": "r1", "convoy": "c1", "leg": 1,'
        ' "from": "aleppo", "to": "crossing", "precision": "traced", "source": "editors"},'
        f' "geometry": {{"type": "LineString", "coordinates": {R1_METRES}}}}}'
    )
    (tiny_copy / "routes.geojson").write_text(
        f'{{"type": "FeatureCollection", "crs": {crs}, "features": [{feature}]}}', encoding="utf-8"
    )
    [route] = read_scenario(tiny_copy, strict=True).routes
    expected = shapely.LineString(R1_DEGREES)
    assert route.geometry.equals_exact(expected, tolerance=1e-7)


def test_unreadable_crs(tiny_copy: Path) -> None:
    crs = '{"type": "name", "properties": {"name": "EPSG:999999"}}'
    (tiny_copy / "routes.geojson").write_text(
        f'{{"type": "FeatureCollection", "crs": {crs}, "features": []}}', encoding="utf-8"
    )
    pattern = r"routes\.geojson, field 'crs': expected a crs member .*, got .*EPSG:999999"
    with pytest.raises(ValidationError, match=pattern):
        read_scenario(tiny_copy)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("figures.csv", r"figures\.csv: expected a readable UTF-8 CSV file, got 'no such file'"),
        ("routes.geojson", r"routes\.geojson: expected a readable GeoJSON .*, got 'no such file'"),
    ],
)
def test_missing_file(tiny_copy: Path, name: str, message: str) -> None:
    (tiny_copy / name).unlink()
    with pytest.raises(ValidationError, match=message):
        read_scenario(tiny_copy)


def test_missing_scenario_toml(tiny_copy: Path) -> None:
    (tiny_copy / "scenario.toml").unlink()
    with pytest.raises(ScenarioNotFoundError, match=r"not a scenario folder \(no scenario\.toml"):
        read_scenario(tiny_copy)


def test_row_with_too_many_cells(tiny_copy: Path) -> None:
    path = tiny_copy / "convoys.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[1] += ",surplus"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ValidationError, match=re.escape(f"convoys.csv, {C1}: expected 20 cells")):
        read_scenario(tiny_copy)


def test_malformed_json(tiny_copy: Path) -> None:
    (tiny_copy / "zones.geojson").write_text('{"type": "FeatureCollection", "features": [', "utf-8")
    pattern = r"zones\.geojson: expected a readable GeoJSON FeatureCollection, got 'Expecting"
    with pytest.raises(ValidationError, match=pattern):
        read_scenario(tiny_copy)


# --- every problem at once ---------------------------------------------------------------------

FIVE = [
    ("convoys.csv", C1, "depart"),
    ("convoys.csv", "row 3 (id 'c2')", "fighters"),
    ("figures.csv", "row 3 (id 'f2')", "place"),
    ("zones.geojson", Z1, "geometry"),
    ("routes.geojson", R1, "geometry"),
]


@pytest.fixture
def five_mistakes(
    tiny_copy: Path, edit_csv: Callable[..., None], edit_feature: Callable[..., None]
) -> Path:
    edit_csv("convoys.csv", "c1", depart="2016-13-15T14:30+02:00")
    edit_csv("convoys.csv", "c2", fighters="-200")
    edit_csv("figures.csv", "f2", place="atlantis")
    edit_feature("zones.geojson", "z1", geometry=BOW_TIE)
    edit_feature("routes.geojson", "r1", geometry={"type": "LineString", "coordinates": R1_METRES})
    return tiny_copy


def test_all_problems_are_collected(five_mistakes: Path) -> None:
    with pytest.raises(ValidationError, match=r": 5 problems\n") as caught:
        read_scenario(five_mistakes)
    assert len(caught.value.problems) >= 5
    assert {(p.file, p.where, p.field) for p in caught.value.problems} >= set(FIVE)
    for file, where, field in FIVE:
        assert f"{file}, {where}, field {field!r}: expected " in str(caught.value)


def test_cli_validate_lists_every_problem(
    five_mistakes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(five_mistakes)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""  # problems and the verdict go to stderr, stdout stays clean
    for file, where, field in FIVE:
        assert f"{file}, {where}, field {field!r}: expected " in captured.err
    last = captured.err.splitlines()[-1]
    assert last == f"{five_mistakes}: invalid — 5 error(s), 0 warning(s)"


@pytest.mark.parametrize("folder", ["tiny_dir", "shipped_dir"])
def test_cli_validate_valid_scenario(
    folder: str, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    path = request.getfixturevalue(folder)
    assert main(["validate", "--strict", str(path)]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert line.startswith(f"{path}: valid — ")
    assert "(0 error(s), 0 warning(s))" in line


def test_cli_validate_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path / "nowhere")]) == 1
    assert "not a scenario folder" in capsys.readouterr().err
