"""Places without coordinates are geocoded offline on reading; unknown names are reported by row."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from geo.cli import main
from geo.errors import ValidationError
from geo.scenario import check_scenario, read_scenario

IDLIB_ROW = re.escape("places.csv, row 4 (id 'idlib')")
IDLIB_WHERE = "row 4 (id 'idlib')"


def test_a_place_without_coordinates_is_geocoded_and_said_so(
    tiny_copy: Path, edit_csv: Callable[..., None]
) -> None:
    edit_csv("places.csv", "idlib", name="Idleb", latitude="", longitude="")
    report = check_scenario(tiny_copy)
    assert report.scenario is not None
    idlib = report.scenario.place("idlib")
    assert (idlib.latitude, idlib.longitude) == pytest.approx((35.93062, 36.63393))
    [warning] = report.problems.warnings
    assert (warning.where, warning.field) == (IDLIB_WHERE, "latitude")
    assert "'Idleb' was geocoded: Idlib (geonames:169389)" in str(warning)


def test_an_alias_is_tried_when_the_name_is_unknown(
    tiny_copy: Path, edit_csv: Callable[..., None]
) -> None:
    edit_csv("places.csv", "idlib", name="Our depot", aliases="Idleb", latitude="", longitude="")
    scenario = read_scenario(tiny_copy)
    assert scenario.place("idlib").latitude == pytest.approx(35.93062)


def test_an_unknown_name_is_an_error_naming_the_row(
    tiny_copy: Path, edit_csv: Callable[..., None]
) -> None:
    edit_csv("places.csv", "idlib", name="Qwxzt", aliases="", latitude="", longitude="")
    pattern = rf"{IDLIB_ROW}, field 'name': expected a name the offline gazetteer knows in SY"
    with pytest.raises(ValidationError, match=pattern):
        read_scenario(tiny_copy)


def test_one_coordinate_alone_is_an_error(tiny_copy: Path, edit_csv: Callable[..., None]) -> None:
    edit_csv("places.csv", "idlib", longitude="")
    with pytest.raises(ValidationError, match=rf"{IDLIB_ROW}, field 'longitude': expected both"):
        read_scenario(tiny_copy)


def test_geocoding_can_be_turned_off(tiny_copy: Path, edit_csv: Callable[..., None]) -> None:
    edit_csv("places.csv", "idlib", latitude="", longitude="")
    with pytest.raises(ValidationError, match="geocoding is off"):
        read_scenario(tiny_copy, geocode=False)


def test_cli_geocode_prints_each_name_and_fails_on_unknown(
    capsys: pytest.CaptureFixture[str],
) -> None:
    names = ["Foua", "Kefraya", "Idlib province", "5 km west of Aleppo"]
    assert main(["geocode", "--country", "SY", *names]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Foua: Fuaa (village, Idlib, SY) 35.98200, 36.70200 score 1.00")
    assert lines[2].startswith("Idlib province: Idlib Governorate (region")
    assert "5 km west of Aleppo (point, Aleppo, SY)" in lines[3]
    assert main(["geocode", "--json", "Paris", "Qwxzt"]) == 1
    paris, unknown = capsys.readouterr().out.splitlines()
    assert '"country_code": "FR"' in paris
    assert unknown == '{"query": "Qwxzt", "found": false}'
