"""The CSV zip with HXL hashtags (`--hxl`), read back with libhxl; its sources and README."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
import zipfile
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path

import hxl
import pytest

from geo import export, export_data
from geo import hxl as tags
from geo._spreadsheet import csv_text
from geo.cli import main
from geo.export import Snapshot
from geo.mapview import ALL_LAYERS, MapView
from geo.records import Event, Scenario, Source
from geo.scenario import read_scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIO_DIR = ROOT / "data" / "scenarios" / "aleppo-2016-12"
LATER = datetime(2016, 12, 15, 16, 0, tzinfo=UTC)
CREATED = datetime(2026, 1, 1, tzinfo=UTC)
EVENT = Event("e-1", date(2016, 12, 14), "Protests", 36.21, 37.12, ("seed-report",))
LAYER_OF = {"convoys.csv": "convoys", "figures.csv": "figures", "events.csv": "events",
            "places.csv": "places"}  # fmt: skip


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    return replace(read_scenario(SCENARIO_DIR), events=(EVENT,))


def csv_zip(scenario: Scenario, *, hxl: bool) -> zipfile.ZipFile:
    view = MapView(at=LATER, layers=frozenset(ALL_LAYERS), event_days=7)
    body = export.render(Snapshot(scenario, view, created=CREATED, hxl=hxl), "csv")
    return zipfile.ZipFile(io.BytesIO(body))


def rows_of(archive: zipfile.ZipFile, name: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(archive.read(name).decode("utf-8"))))


def tables(archive: zipfile.ZipFile) -> list[str]:
    return [name for name in archive.namelist() if name.endswith(".csv")]


def test_libhxl_reads_the_places_coordinates_under_geo_lat_and_geo_lon(
    scenario: Scenario,
) -> None:
    archive = csv_zip(scenario, hxl=True)
    options = hxl.InputOptions(allow_local=True)
    dataset = hxl.data(io.BytesIO(archive.read("places.csv")), options)
    assert {"#geo+lat", "#geo+lon", "#loc+id"} <= set(dataset.display_tags)
    read = {row.get("#loc+id"): (row.get("#geo+lat"), row.get("#geo+lon")) for row in dataset}
    shown = [place for place in scenario.places if place.kind.value != "country"]
    assert len(read) == len(shown) > 10
    for place in shown:
        latitude, longitude = read[place.id]
        assert (float(latitude), float(longitude)) == (place.latitude, place.longitude)


def test_every_csv_has_a_hashtag_row_as_long_as_its_header(scenario: Scenario) -> None:
    archive = csv_zip(scenario, hxl=True)
    names = tables(archive)
    assert sorted(names) == sorted([*LAYER_OF, "sources.csv"])
    for name in names:
        rows = rows_of(archive, name)
        assert tags.hashtag_row(rows) == 1, name
        header, hashtags = rows[0], rows[1]
        assert len(hashtags) == len(header), name
        assert all(tags.parse(tag) is not None for tag in hashtags), (name, hashtags)


def test_stored_fields_carry_the_tags_of_geo_hxl(scenario: Scenario) -> None:
    archive = csv_zip(scenario, hxl=True)
    for name, layer in LAYER_OF.items():
        header, hashtags = rows_of(archive, name)[:2]
        written = dict(zip(header, hashtags, strict=True))
        stored = {column: tag for column, tag in written.items() if column in tags.TAGS[layer]}
        assert stored == {column: tags.TAGS[layer][column] for column in stored}, name
        assert len(stored) >= 9, name


def test_corridor_reads_its_own_hashtags_back_as_the_same_columns(scenario: Scenario) -> None:
    """geo.hxl's reading rules give each table's layer and every column its own name again."""
    archive = csv_zip(scenario, hxl=True)
    for name, layer in LAYER_OF.items():
        header, hashtags = rows_of(archive, name)[:2]
        parsed = [tags.parse(tag) for tag in hashtags]
        assert tags.layer_of(parsed) == layer, name
        assert tags.tagged_columns(header, parsed, layer).keys == header, name
    assert tags.layer_of([tags.parse(tag) for tag in rows_of(archive, "sources.csv")[1]]) is None


def test_columns_that_are_not_stored_fields_have_no_tag_of_a_new_name() -> None:
    """Corridor's own columns: `#x_…` or `#meta`, or a standard tag (a place's name, a time
    in UTC, a count's low end) that says what the column holds."""
    standard = {"#meta", "#loc", "#date", "#affected"}
    for own, layer in ((export_data.CONVOY_TAGS, "convoys"), (export_data.FIGURE_TAGS, "figures")):
        for column in set(own) - set(tags.TAGS[layer]):
            tag = tags.parse(own[column])
            assert tag is not None, column
            assert tag.name.startswith("#x_") or tag.name in standard, (column, tag)


def test_without_hxl_no_csv_has_a_hashtag_row(scenario: Scenario) -> None:
    archive = csv_zip(scenario, hxl=False)
    assert sorted(tables(archive)) == sorted([*LAYER_OF, "sources.csv"])
    for name in tables(archive):
        rows = rows_of(archive, name)
        assert tags.hashtag_row(rows) is None, name
        assert len(rows) > 1, name


@pytest.mark.parametrize("with_hxl", [True, False])
def test_the_zip_carries_the_cited_sources_their_licences_and_the_disclaimer(
    scenario: Scenario, with_hxl: bool
) -> None:
    uncited = Source("uncited", "Never cited", "Nobody", date(2016, 1, 1), licence="CC0")
    archive = csv_zip(replace(scenario, sources=(*scenario.sources, uncited)), hxl=with_hxl)
    sources = list(csv.DictReader(io.StringIO(archive.read("sources.csv").decode("utf-8"))))
    if with_hxl:
        assert sources.pop(0)["id"] == "#meta+source+id"
    assert [row["id"] for row in sources] == [source.id for source in scenario.sources]
    assert {row["licence"] for row in sources} == {"", "CC BY 4.0", "Public domain"}
    readme = archive.read(export_data.README).decode("utf-8")
    assert scenario.disclaimer in readme
    assert "GeoNames gazetteer (GeoNames, 2026-07-01). https://www.geonames.org/" in readme
    assert "Licence: CC BY 4.0." in readme
    assert "Never cited" not in readme
    assert ("HXL hashtags" in readme) is with_hxl


def test_a_formula_is_made_inert_and_the_hashtags_are_left_as_they_are(
    scenario: Scenario,
) -> None:
    place = replace(scenario.places[1], name='=HYPERLINK("http://x")', quote="+cmd")
    places = (scenario.places[0], place, *scenario.places[2:])
    archive = csv_zip(replace(scenario, places=places), hxl=True)
    rows = rows_of(archive, "places.csv")
    header = rows[0]
    assert rows[1] == [tags.TAGS["places"][column] for column in header]
    written = dict(zip(header, next(row for row in rows if row[0] == place.id), strict=True))
    assert (written["name"], written["quote"]) == ('\'=HYPERLINK("http://x")', "'+cmd")


def test_csv_text_refuses_a_hashtag_row_of_another_length() -> None:
    with pytest.raises(ValueError, match="hashtags: expected 2, one per column, got 1"):
        csv_text([], ["id", "name"], hashtags=["#loc+id"])


def test_the_command_line_writes_the_hxl_zip(tmp_path: Path) -> None:
    out = tmp_path / "shown.csv.zip"
    argv = ["export", str(SCENARIO_DIR), "--format", "csv", "--hxl", "--at", "2016-12-15T16:00Z"]
    done = subprocess.run(
        [sys.executable, "-m", "geo", *argv, "--out", str(out)],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(out) as archive:
        assert sorted(archive.namelist()) == [
            "README.txt", "convoys.csv", "figures.csv", "places.csv", "sources.csv"
        ]  # fmt: skip
        dataset = hxl.data(io.BytesIO(archive.read("convoys.csv")), hxl.InputOptions())
        assert "#loc+destination+id" in dataset.display_tags
        assert len(list(dataset)) >= 3


def test_the_command_line_refuses_hxl_for_a_picture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["export", str(SCENARIO_DIR), "--format", "html", "--hxl", "--out", str(tmp_path)]
    assert main(argv) == 1
    assert "--hxl: HXL hashtags go in CSV only (--format csv), got html" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
