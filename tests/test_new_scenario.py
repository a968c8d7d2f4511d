"""A new scenario for a crisis outside Syria: time zone, metadata, folder, store and map."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from geo import cli, mapview
from geo import new_scenario as n
from geo.errors import ValidationError
from geo.home import scenario_homes
from geo.mapview import MapView
from geo.scenario import read_scenario
from geo.store import Workspace

REPORT = (
    "KHERSON, Ukraine (AP) — Ferries carried hundreds of people across the Dnipro from Kherson "
    "to Mykolaiv on Saturday, officials said.\n"
)


def source() -> n.Source:
    return n.source_from("Ferries leave Kherson", "AP", date(2022, 11, 19))


@pytest.mark.parametrize(
    ("country", "near", "zone"),
    [
        ("UA", None, "Europe/Kyiv"),
        ("sd", None, "Africa/Khartoum"),
        ("PS", None, "Asia/Gaza"),
        ("RU", (43.1, 131.9), "Asia/Vladivostok"),
        ("RU", (55.7, 37.6), "Europe/Moscow"),
    ],
)
def test_time_zone_proposed_from_country(
    country: str, near: tuple[float, float] | None, zone: str
) -> None:
    assert n.propose_timezone(country, near) == zone


def test_unknown_country_proposes_no_time_zone() -> None:
    assert n.propose_timezone("ZZ") is None


def test_new_scenario_spans_two_days_from_a_date_in_its_own_zone() -> None:
    scenario = n.new_scenario(
        title="Kherson crossings, November 2022", timezone="Europe/Kyiv",
        start=date(2022, 11, 18), source=source(),
    )  # fmt: skip
    assert scenario.id == "kherson-crossings-november-2022"
    assert scenario.start.isoformat() == "2022-11-18T00:00:00+02:00"
    assert scenario.end.isoformat() == "2022-11-20T00:00:00+02:00"
    assert scenario.sources[0].id == "ap-2022-11-19"
    assert "approximate" in scenario.disclaimer


def test_bad_metadata_lists_every_problem() -> None:
    with pytest.raises(
        ValidationError, match=r"3 problems(?s:.*)'title'.*' '(?s:.*)Kyiv(?s:.*)'end'"
    ):
        n.new_scenario(
            title=" ", timezone="Kyiv", start=date(2022, 11, 18), end=date(2022, 11, 1),
            source=source(),
        )  # fmt: skip


def test_created_folder_reads_back_and_is_never_overwritten(tmp_path: Path) -> None:
    scenario = n.new_scenario(
        title="El Fasher", timezone="Africa/Khartoum", start=date(2024, 5, 10), source=source()
    )
    folder = n.create(scenario, tmp_path)
    assert read_scenario(folder, geocode=False) == scenario
    with pytest.raises(FileExistsError, match="el-fasher already exists"):
        n.create(scenario, tmp_path)


def test_new_scenario_saves_in_each_store_and_draws(new_workspace: Workspace) -> None:
    scenario = n.new_scenario(
        title="El Fasher", timezone="Africa/Khartoum", start=date(2024, 5, 10), source=source()
    )
    new_workspace.save(scenario)
    loaded = new_workspace.load(scenario.id)
    assert (loaded.title, loaded.timezone, loaded.start) == (
        scenario.title, scenario.timezone, scenario.start,
    )  # fmt: skip
    at = datetime(2024, 5, 10, 12, tzinfo=UTC)
    html = mapview.build_map(loaded, MapView(at=at)).get_root().render()
    assert "El Fasher" in html


def test_geo_new_from_a_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "report.txt"
    report.write_text(REPORT, encoding="utf-8")
    argv = ["new", "--title", "Kherson crossings", "--report", str(report),
            "--published", "2022-11-19", "--publisher", "AP", "--out", str(tmp_path)]  # fmt: skip
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "about UA, time zone Europe/Kyiv, 2022-11-18 00:00 to 2022-11-20 00:00" in out
    scenario = read_scenario(tmp_path / "kherson-crossings", geocode=False)
    assert scenario.sources[0].title.startswith("KHERSON, Ukraine (AP)")
    assert cli.main(["validate", str(tmp_path / "kherson-crossings")]) == 0


def test_geo_new_says_why_no_time_zone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "new",
        "--title",
        "X",
        "--country",
        "ZZ",
        "--start",
        "2022-01-01",
        "--out",
        str(tmp_path),
    ]
    assert cli.main(argv) == 1
    assert "--timezone: expected an IANA time zone" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_a_scenario_s_countries_are_kept_in_each_store(
    new_workspace: Workspace, tmp_path: Path
) -> None:
    scenario = n.new_scenario(
        title="Adre crossings", timezone="Africa/Ndjamena", start=date(2024, 5, 10),
        source=source(), countries=("td", "SDN"),
    )  # fmt: skip
    assert scenario.countries == ("TD", "SD")
    assert scenario_homes(scenario) == ("TD", "SD")  # no places yet: its own countries
    new_workspace.save(scenario)
    assert new_workspace.load(scenario.id).countries == ("TD", "SD")
    folder = n.create(scenario, tmp_path / "folders")
    assert 'countries = [\n    "TD",\n    "SD",\n]' in (folder / "scenario.toml").read_text()
    assert read_scenario(folder, geocode=False).countries == ("TD", "SD")


def test_a_scenario_without_countries_reads_them_from_its_places(new_workspace: Workspace) -> None:
    scenario = n.new_scenario(
        title="El Fasher", timezone="Africa/Khartoum", start=date(2024, 5, 10), source=source()
    )
    new_workspace.save(scenario)
    assert new_workspace.load(scenario.id).countries == ()


def test_an_unreadable_country_is_refused_by_name() -> None:
    with pytest.raises(ValidationError, match=r"'countries'.*two-letter ISO 3166-1.*Sudan"):
        n.new_scenario(
            title="X", timezone="UTC", start=date(2024, 5, 10), source=source(),
            countries=("Sudan",),
        )  # fmt: skip


def test_geo_new_keeps_the_country(tmp_path: Path) -> None:
    argv = ["new", "--title", "Renk arrivals", "--country", "SS", "--start", "2023-08-01",
            "--published", "2023-08-15", "--out", str(tmp_path)]  # fmt: skip
    assert cli.main(argv) == 0
    assert read_scenario(tmp_path / "renk-arrivals", geocode=False).countries == ("SS",)
