"""Route risk: ground by control, crossings, events near a route, checked against hand figures."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import shapely
from pyproj import Geod
from shapely.geometry import LineString, MultiPolygon, Polygon, box

from geo import analysis, cli
from geo.records import Control, ControlZone, Event, Route, Scenario, ZonePrecision
from geo.scenario import read_scenario
from geo.store import Workspace

AT = datetime(2016, 12, 15, 13, 0, tzinfo=UTC)
GEOD = Geod(ellps="WGS84")
LINE = LineString([(36.0, 35.0), (36.2, 35.0)])
"""A straight route along the 35th parallel: easy to reckon by hand."""


def km(line: LineString) -> float:
    """Geodesic length of a lon/lat line: the independent 'hand' figure."""
    return float(GEOD.geometry_length(line)) / 1000


def along(lon_from: float, lon_to: float) -> float:
    return km(LineString([(lon_from, 35.0), (lon_to, 35.0)]))


def zone(zone_id: str, control: Control, shape: Polygon | MultiPolygon) -> ControlZone:
    return ControlZone(zone_id, zone_id, control, "test holder", AT.replace(hour=0),
                       ZonePrecision.EXACT, ("report",), shape)  # fmt: skip


@pytest.fixture
def scenario(tiny: Scenario) -> Scenario:
    """The tiny scenario with one convoy on LINE and no zones yet."""
    route = Route("r-line", "c1", 1, "aleppo", "idlib", tiny.routes[0].precision, ("report",), LINE)
    return replace(tiny, routes=(route,), zones=(), convoys=tiny.convoys[:1])


def risk_of(scenario: Scenario, **rules: float) -> analysis.RouteRisk:
    [found] = analysis.analyse(scenario, AT, rules=analysis.RiskRules(**rules))  # type: ignore[arg-type]
    return found


def test_lengths_by_control_match_geodesic_figures(scenario: Scenario) -> None:
    zones = (
        zone("gov", Control.GOVERNMENT, box(36.05, 34.9, 36.10, 35.1)),
        zone("opp", Control.OPPOSITION, box(36.10, 34.9, 36.15, 35.1)),
    )
    risk = risk_of(replace(scenario, zones=zones))
    assert risk.length_km == pytest.approx(along(36.0, 36.2), rel=2e-3)
    assert risk.by_control_km["government"] == pytest.approx(along(36.05, 36.10), rel=2e-3)
    assert risk.by_control_km["opposition"] == pytest.approx(along(36.10, 36.15), rel=2e-3)
    assert risk.by_control_km["none"] == pytest.approx(along(36.0, 36.05) * 2, rel=2e-3)
    kinds = [(c.before, c.after, c.front_line) for c in risk.crossings]
    assert kinds == [("none", "government", False), ("government", "opposition", True),
                     ("opposition", "none", False)]  # fmt: skip
    middle = risk.crossings[1]
    assert (middle.longitude, middle.latitude) == pytest.approx((36.10, 35.0), abs=1e-4)
    assert middle.along_km == pytest.approx(along(36.0, 36.10), rel=2e-3)
    assert (risk.level, risk.reasons) == ("medium", ["crosses a front line"])


def test_a_short_unmapped_gap_between_two_zones_is_one_front_line(scenario: Scenario) -> None:
    zones = (
        zone("gov", Control.GOVERNMENT, box(36.05, 34.9, 36.10, 35.1)),
        zone("opp", Control.OPPOSITION, box(36.11, 34.9, 36.15, 35.1)),  # ~0.9 km apart
    )
    risk = risk_of(replace(scenario, zones=zones))
    [front] = [c for c in risk.crossings if c.front_line]
    assert (front.before, front.after) == ("government", "opposition")
    assert front.gap_km == pytest.approx(along(36.10, 36.11), rel=2e-3)
    wide = risk_of(replace(scenario, zones=zones), gap_km=0.5)
    assert not any(c.front_line for c in wide.crossings)


def test_a_route_touching_a_zone_boundary_crosses_nothing(scenario: Scenario) -> None:
    above = zone("above", Control.BESIEGED, box(36.05, 35.0, 36.10, 35.1))  # its edge is LINE
    corner = zone(
        "corner", Control.CONTESTED, Polygon([(36.15, 35.0), (36.17, 35.05), (36.13, 35.05)])
    )
    risk = risk_of(replace(scenario, zones=(above, corner)))
    assert risk.by_control_km["besieged"] == 0
    assert risk.by_control_km["contested"] == 0
    assert risk.crossings == []
    assert risk.nearest_danger_km == pytest.approx(0, abs=1e-6)
    assert risk.level == "medium"  # within 2 km of besieged ground, not through it
    assert risk.reasons == [f"passes 0.0 km from {risk.nearest_danger}"]


def test_a_route_entirely_inside_one_zone(scenario: Scenario) -> None:
    inside = zone("all", Control.OPPOSITION, box(35.9, 34.9, 36.3, 35.1))
    risk = risk_of(replace(scenario, zones=(inside,)))
    assert risk.by_control_km["opposition"] == pytest.approx(risk.length_km)
    assert risk.by_control_km["none"] == pytest.approx(0, abs=1e-6)
    assert (risk.crossings, risk.level) == ([], "low")


def test_a_multipolygon_zone_is_entered_twice(scenario: Scenario) -> None:
    parts = MultiPolygon([box(36.02, 34.9, 36.04, 35.1), box(36.16, 34.9, 36.18, 35.1)])
    risk = risk_of(replace(scenario, zones=(zone("two", Control.BESIEGED, parts),)))
    assert risk.by_control_km["besieged"] == pytest.approx(2 * along(36.02, 36.04), rel=2e-3)
    assert [(c.before, c.after) for c in risk.crossings] == [
        ("none", "besieged"), ("besieged", "none"), ("none", "besieged"), ("besieged", "none")
    ]  # fmt: skip
    assert (risk.state, risk.level, risk.alert) == ("under way", "high", True)


def test_overlapping_zones_count_once_besieged_first(scenario: Scenario) -> None:
    zones = (
        zone("gov", Control.GOVERNMENT, box(36.0, 34.9, 36.2, 35.1)),
        zone("pocket", Control.BESIEGED, box(36.08, 34.95, 36.12, 35.05)),
    )
    risk = risk_of(replace(scenario, zones=zones))
    assert risk.by_control_km["besieged"] == pytest.approx(along(36.08, 36.12), rel=2e-3)
    assert risk.by_control_km["government"] == pytest.approx(
        risk.length_km - along(36.08, 36.12), rel=2e-3
    )
    assert [c.front_line for c in risk.crossings] == [True, True]


def test_events_in_the_buffer_and_the_window(scenario: Scenario) -> None:
    north = 35.0 + 4.0 / 111.0  # 4 km north of the line
    far = 35.0 + 6.0 / 111.0
    events = (
        Event("near-new", date(2016, 12, 14), "Battles", north, 36.1, ("report",), fatalities=3),
        Event("near-old", date(2016, 12, 1), "Battles", north, 36.1, ("report",), fatalities=9),
        Event("far-new", date(2016, 12, 15), "Riots", far, 36.1, ("report",)),
        Event("near-shelling", date(2016, 12, 15), "Explosions/Remote violence", north, 36.15,
              ("report",), fatalities=1),
        Event("tomorrow", date(2016, 12, 16), "Battles", north, 36.1, ("report",)),
    )  # fmt: skip
    risk = risk_of(replace(scenario, events=events), medium_events=2)
    assert (risk.events, risk.fatalities) == (2, 4)
    assert risk.events_by_type == {"Battles": 1, "Explosions/Remote violence": 1}
    assert "2 events within 5 km in 7 days" in risk.reasons
    assert risk_of(replace(scenario, events=events), buffer_km=7).events == 3
    assert risk_of(replace(scenario, events=events), days=30).events == 3


def test_a_moving_convoy_through_besieged_ground_is_an_alert(scenario: Scenario) -> None:
    pocket = zone("pocket", Control.BESIEGED, box(36.08, 34.95, 36.12, 35.05))
    moving = replace(scenario.convoys[0], depart=AT.replace(hour=12), arrive=AT.replace(hour=18))
    risk = risk_of(replace(scenario, zones=(pocket,), convoys=(moving,)))
    assert risk.state == "under way"
    assert (risk.level, risk.alert) == ("high", True)
    assert risk.reasons[0] == f"runs {along(36.08, 36.12):.1f} km through besieged ground"


# --- the shipped scenario, by hand --------------------------------------------------------


def test_shipped_first_convoy_at_13_00(shipped_dir: Path) -> None:
    shipped = read_scenario(shipped_dir)
    risks = {risk.convoy: risk for risk in analysis.analyse(shipped, AT)}
    first = risks["convoy-1"]
    route = first_route(shipped)
    zones = {z.id: z.geometry for z in shipped.zones}
    pocket = zones["east-aleppo-pocket"]
    government = shapely.difference(zones["government-aleppo"], pocket)
    assert first.length_km == pytest.approx(km(route), rel=3e-3)
    assert first.by_control_km["besieged"] == pytest.approx(km_of(route & pocket), rel=3e-3)
    assert first.by_control_km["government"] == pytest.approx(km_of(route & government), rel=3e-3)
    opposition = zones["opposition-west-idlib"]
    assert first.by_control_km["opposition"] == pytest.approx(km_of(route & opposition), rel=3e-3)
    assert [(c.before, c.after) for c in first.crossings] == [
        ("besieged", "government"), ("government", "opposition")
    ]  # fmt: skip
    assert (first.level, first.alert) == ("high", True)  # under way through besieged ground
    assert risks["onward-to-idlib"].level == "low"


def first_route(scenario: Scenario) -> LineString:
    from geo import timeline

    line = timeline.route_of(scenario, "convoy-1")
    assert line is not None
    return line


def km_of(shape: object) -> float:
    return sum(km(part) for part in shapely.get_parts(shape) if part.geom_type == "LineString")


def test_cli_analyse_prints_each_route(
    shipped_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["analyse", str(shipped_dir), "--at", "2016-12-15T13:00Z", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["rule"].startswith("HIGH if the route runs through besieged")
    first = next(r for r in document["routes"] if r["convoy"] == "convoy-1")
    assert first["front_line_crossings"] == 2
    assert first["level"] == "high"
    assert cli.main(["analyse", str(shipped_dir), "--at", "2016-12-15T13:00Z"]) == 0
    text = capsys.readouterr().out
    assert "convoy-1 (under way): HIGH ALERT" in text
    assert "front line at 2.05 km" in text


def test_cli_analyse_reads_a_workspace_in_either_store(
    shipped_dir: Path, new_workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    from geo.scenario import read_scenario

    argv = ["--at", "2016-12-15T13:00Z", "--json"]
    assert cli.main(["analyse", str(shipped_dir), *argv]) == 0
    from_folder = json.loads(capsys.readouterr().out)
    new_workspace.save(read_scenario(shipped_dir))
    assert cli.main(["analyse", str(new_workspace.location), *argv]) == 0
    assert json.loads(capsys.readouterr().out) == from_folder


def test_the_risk_table_rounds_kilometres_and_names_its_reasons(scenario: Scenario) -> None:
    from geo import tables

    besieged = zone("z-b", Control.BESIEGED, box(36.05, 34.9, 36.1, 35.1))
    found = analysis.analyse(replace(scenario, zones=(besieged,)), AT)
    [row] = tables.risk_table(found).to_dict("records")
    assert row["convoy"] == "c1"
    assert row["besieged (km)"] == pytest.approx(along(36.05, 36.1), abs=0.02)
    assert row["length (km)"] == pytest.approx(km(LINE), abs=0.02)
    assert row["because"] == "; ".join(found[0].reasons) != ""


def test_the_risk_table_gives_zero_km_not_a_blank(scenario: Scenario) -> None:
    from geo import tables

    besieged = zone("z-b", Control.BESIEGED, box(36.05, 34.9, 36.1, 35.1))
    far = zone("z-g", Control.GOVERNMENT, box(40.0, 30.0, 40.1, 30.1))  # crossed by nothing
    found = analysis.analyse(replace(scenario, zones=(besieged, far)), AT)
    rows = tables.risk_table(found).to_dict("records")
    assert all(isinstance(row["besieged (km)"], float) for row in rows)
    assert "government (km)" not in rows[0]  # a ground no route crosses has no column
    assert "_" not in rows[0]["state"]


def test_a_name_in_a_reason_is_written_as_the_map_names_it() -> None:
    from geo.messages import Words

    reason = analysis.Reason(
        "passes {km} km from {place}", named=("place",), km="1.2", place="Besieged enclave"
    )
    assert reason == "passes 1.2 km from Besieged enclave"  # tables and exports: English
    arabic = Words("ar")
    enclave = "الفوعة وكفريا"
    said = analysis.said(reason, arabic, {"Besieged enclave": enclave}.__getitem__)
    assert said == arabic("passes {km} km from {place}", km="1.2", place=enclave)
    assert said.endswith(f"\u2068{enclave}\u2069")
    assert "Besieged enclave" in analysis.said(reason, arabic)  # no name given: as it is
    front = analysis.Reason("crosses {front} front lines", front="2")
    assert analysis.said(front, arabic, lambda name: "never asked") == arabic(
        "crosses {front} front lines", front="2"
    )
