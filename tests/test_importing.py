"""Importing users' files into a workspace scenario: good rows in, bad rows reported, one change."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest

from geo import changes, cli, importing
from geo.importing import Options
from geo.records import ConvoyStatus, Event, RoutePrecision, Scenario
from geo.store import Workspace, open_workspace

IMPORTS = Path(__file__).parent / "data" / "import"
ZONE_DEFAULTS = {
    "control": "government",
    "holder": "Test holder",
    "valid_from": "2016-12-15T00:00+02:00",
}


@pytest.fixture
def workspace(tiny_workspace: Workspace) -> Workspace:
    return tiny_workspace


def prepare(name: str, scenario: Scenario, **options: object) -> importing.Prepared:
    return importing.prepare(IMPORTS / name, scenario, options=Options(**options), who="t")  # type: ignore[arg-type]


def test_places_csv_with_lat_lon_columns(tiny: Scenario) -> None:
    prepared = prepare("places.csv", tiny)
    assert [p.id for p in prepared.records["places"]] == ["ramouseh", "rashidin", "saraqib"]
    saraqib = prepared.records["places"][2]
    assert (saraqib.latitude, saraqib.longitude) == pytest.approx((35.8633, 36.8006))
    assert saraqib.source == (prepared.source.id,)
    assert prepared.source.title == "places.csv (imported file)"
    [rejected] = prepared.rejected
    assert rejected == "places.csv, row 5 (id 'idlib')"
    assert "not already in the scenario's places" in str(prepared.problems[0])


def test_places_without_coordinates_are_geocoded_offline(tmp_path: Path, tiny: Scenario) -> None:
    path = tmp_path / "towns.csv"
    path.write_text("name,kind\nFoua,town\nKefraya,town\nNowhere-at-all-xq,town\n")
    prepared = importing.prepare(path, tiny)
    fuaa, kafraya = prepared.records["places"]
    assert (fuaa.id, round(fuaa.latitude, 2), round(fuaa.longitude, 2)) == ("foua", 35.98, 36.7)
    assert kafraya.country_code == "SY"
    assert fuaa.precision.value in {"centroid", "approximate"}
    warnings = [str(p) for p in prepared.problems if p.severity == "warning"]
    assert any("'Foua' was geocoded offline: Fuaa" in text for text in warnings)
    errors = [str(p) for p in prepared.problems if p.severity == "error"]
    assert errors == [
        "towns.csv, row 4, field 'name': expected coordinates, or a name the offline gazetteer "
        "knows, got 'Nowhere-at-all-xq'"
    ]


def test_a_convoy_list_naming_places_makes_or_finds_them(tiny: Scenario) -> None:
    prepared = prepare("convoys.csv", tiny)
    convoys = prepared.records["convoys"]
    assert [c.id for c in convoys] == ["cv-01", "cv-02", "cv-03"]
    assert convoys[0].status is ConvoyStatus.ARRIVED
    assert str(convoys[0].people) == "about 750"
    made = {p.id: p for p in prepared.records["places"]}
    assert {convoys[0].origin, convoys[0].destination} <= set(made)
    assert prepared.named_places == len(made)
    assert prepared.accepted == 3
    assert convoys[0].confidence.value == "low"  # not stated: the lowest
    assert convoys[0].quote == "row 2 (id 'cv-01') of convoys.csv"


def test_mixed_file_keeps_the_good_rows_and_reports_each_bad_one(tiny: Scenario) -> None:
    prepared = prepare("mixed.csv", tiny)
    good = {p.id for p in prepared.records["places"]}
    bad = {where.split(", ", 1)[1] for where in prepared.rejected}
    assert len(good) + len(bad) == prepared.rows
    assert {"ramouseh", "rashidin"} <= good
    assert any("'latitude'" in str(p) and "'abc'" in str(p) for p in prepared.problems)
    assert any("field 'name'" in str(p) and "required" in str(p) for p in prepared.problems)
    assert any("cells" in str(p) for p in prepared.problems)
    report = list(csv.DictReader(io.StringIO(prepared.report_csv())))
    assert len(report) == len(prepared.problems)
    assert {row["file"] for row in report} == {"mixed.csv"}


def test_swapped_coordinates_are_flagged_and_fixed_on_request(tiny: Scenario) -> None:
    flagged = prepare("swapped.csv", tiny)
    assert flagged.swappable == ("row 3 (id 'saraqib')",)
    fixed = prepare("swapped.csv", tiny, swap=frozenset(flagged.swappable))
    [saraqib] = [p for p in fixed.records["places"] if p.id == "saraqib"]
    assert (saraqib.latitude, saraqib.longitude) == pytest.approx((35.8633, 36.8006))
    assert fixed.swappable == ()


def test_zones_need_their_facts_from_the_file_or_the_defaults(tiny: Scenario) -> None:
    bare = prepare("zones.kml", tiny, layer="zones")
    assert bare.records["zones"] == []
    missing = {(p.where, p.field) for p in bare.problems}
    assert ("placemark #1 'East Aleppo pocket (test outline)'", "valid_from") in missing
    assert ("placemark #3 'Ramouseh crossing'", "geometry") in missing  # a point, not a zone
    filled = prepare("zones.kml", tiny, layer="zones", defaults=ZONE_DEFAULTS)
    assert [z.holder for z in filled.records["zones"]] == ["Armed opposition groups", "Test holder"]
    assert len(filled.rejected) == 2  # the point and the line are still not zones


@pytest.mark.parametrize(
    ("name", "layer", "count"),
    [
        ("zones.geojson", "zones", 2),
        ("zones.kml", "zones", 2),
        ("zones.gpkg", "zones", None),
        ("zones_shp.zip", "zones", None),
    ],
)
def test_zone_files_of_every_format(
    name: str, layer: str, count: int | None, tiny: Scenario
) -> None:
    prepared = prepare(name, tiny, defaults=ZONE_DEFAULTS)
    zones = prepared.records[layer]
    assert zones, prepared.problems
    if count is not None:
        assert len(zones) == count
    for zone in zones:
        west, south, east, north = zone.geometry.bounds
        assert 35 < west < east < 39
        assert 34 < south < north < 38


def test_a_gps_track_becomes_a_traced_route_of_the_chosen_convoy(tiny: Scenario) -> None:
    prepared = prepare("track.gpx", tiny, defaults={"convoy": "c1"})
    [route] = prepared.records["routes"]
    assert route.convoy == "c1"
    assert route.precision is RoutePrecision.TRACED
    assert (route.from_place, route.to_place) == ("aleppo", "idlib")
    assert route.leg == max(r.leg for r in tiny.routes if r.convoy == "c1") + 1
    assert len(route.geometry.coords) >= 10
    assert len(prepared.records["places"]) == 2  # the waypoints


def test_acled_export_becomes_events(tiny: Scenario) -> None:
    prepared = prepare("acled.csv", tiny)
    events = prepared.records["events"]
    assert events
    assert all(isinstance(e, Event) for e in events)
    first = events[0]
    assert (first.id, first.date.isoformat(), first.event_type) == (
        "SYR900001",
        "2016-12-12",
        "Battles",
    )
    assert first.source == (prepared.source.id,)
    assert first.reported_by


def test_commit_is_one_logged_transaction_that_undo_reverses(
    workspace: Workspace, tiny: Scenario
) -> None:
    prepared = prepare("places.csv", tiny)
    done = importing.commit_import(workspace, "tiny", prepared, who="ana")
    assert len({change.batch for change in done}) == 1
    loaded = workspace.load("tiny")
    assert {"ramouseh", "rashidin", "saraqib"} <= {p.id for p in loaded.places}
    assert prepared.source.id in {s.id for s in loaded.sources}
    changes.undo(workspace, "tiny", who="ana")
    assert workspace.load("tiny") == tiny


def test_cli_imports_a_file_and_reports_rejected_rows(
    workspace: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.csv"
    code = cli.main(
        [
            "import",
            str(IMPORTS / "mixed.csv"),
            "--workspace",
            str(workspace.location),
            "--report",
            str(report),
            "--who",
            "cli-test",
        ]
    )
    captured = capsys.readouterr()
    assert code == 1  # some rows were rejected; the good ones are in
    assert "mixed.csv, row 3 (id 'bad-lat'), field 'latitude'" in captured.err
    assert "bad-lat" not in captured.out  # a script keeping stdout gets results only
    assert "added" in captured.out
    assert "ramouseh" in {p.id for p in workspace.load("tiny").places}
    assert "bad-lat" in report.read_text()
    assert changes.history(workspace, "tiny")[0].who == "cli-test"


def test_cli_sets_blank_fields_and_imports_zones(
    workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = ["import", str(IMPORTS / "zones.geojson"), "--workspace", str(workspace.location)]
    for name, value in ZONE_DEFAULTS.items():
        arguments += ["--set", f"{name}={value}"]
    assert cli.main(arguments) == 0, capsys.readouterr()
    assert len(workspace.load("tiny").zones) == 4


def test_cli_dry_run_adds_nothing(workspace: Workspace) -> None:
    before = workspace.version()
    cli.main(
        ["import", str(IMPORTS / "places.csv"), "--workspace", str(workspace.location), "--dry-run"]
    )
    assert workspace.version() == before


def test_hostile_files_are_refused_with_one_clear_error(tiny: Scenario) -> None:
    for name, words in [
        ("evil.kml", "without DTD or entity"),
        ("traversal.zip", "member paths inside the archive"),
        ("bomb.zip", "guard against zip bombs"),
        ("projected_no_crs.geojson", "longitude/latitude in degrees"),
    ]:
        prepared = prepare(name, tiny)
        assert prepared.accepted == 0
        assert any(words in str(p) for p in prepared.problems), (name, prepared.problems)


def test_a_too_large_file_is_refused_before_reading(tmp_path: Path, tiny: Scenario) -> None:
    big = tmp_path / "big.csv"
    with big.open("wb") as handle:
        handle.truncate(importing.MAX_UPLOAD_BYTES + 1)
    prepared = importing.prepare(big, tiny)
    assert prepared.accepted == 0
    assert "at most 20 MB" in str(prepared.problems[0])


def test_the_command_line_reads_files_past_the_upload_limit_up_to_its_own(
    workspace: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The browser's 20 MB stops uploads; a user's own file on the command line may be an ACLED
    export of a whole war (issue 20), so `import` reads up to --max-mb (1024 by default)."""
    big = tmp_path / "big.csv"
    with big.open("wb") as handle:
        handle.truncate(importing.MAX_UPLOAD_BYTES + 1)  # read past the limit: blank rows
    arguments = ["import", str(big), "--workspace", str(workspace.location), "--dry-run"]
    cli.main(arguments)
    assert "at most" not in capsys.readouterr().err
    cli.main([*arguments, "--max-mb", "0.5"])
    assert "a file of at most 0.5 MB, got '20.0 MB'" in capsys.readouterr().err


FIXTURES = sorted(p.name for p in IMPORTS.iterdir() if p.suffix not in {".md", ".py"})


@pytest.mark.parametrize("name", FIXTURES)
def test_cli_reads_every_fixture_as_the_engine_does(
    name: str, workspace: Workspace, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = importing.prepare(IMPORTS / name, workspace.load("tiny"))
    code = cli.main(["import", str(IMPORTS / name), "--workspace", str(workspace.location),
                     "--dry-run"])  # fmt: skip
    captured = capsys.readouterr()
    assert f"{expected.accepted} of {expected.rows} rows valid" in captured.out
    assert code == (1 if expected.rejected or not expected.accepted else 0)
    assert captured.err.count("\n") == len(expected.problems)  # one line each, on stderr
    for problem in expected.problems:
        assert str(problem) not in captured.out


def test_a_refused_import_redirected_to_a_file_leaves_its_reasons_on_stderr(
    workspace: Workspace, tmp_path: Path
) -> None:
    """`geo import bad.csv > out.txt`, as a batch script runs it: results in the file, the
    reasons on the terminal, a non-zero exit."""
    bad = tmp_path / "bad.csv"
    bad.write_text("id,name,kind,latitude,longitude,country_code\nx1,Nowhere,town,north,36.1,SY\n")
    out = tmp_path / "out.txt"
    with out.open("w") as stdout:
        done = subprocess.run(
            [sys.executable, "-m", "geo", "import", str(bad), "--workspace",
             str(workspace.location), "--layer", "places"],
            stdout=stdout, stderr=subprocess.PIPE, text=True, check=False,
            cwd=Path(__file__).parent.parent,
        )  # fmt: skip
    assert done.returncode == 1
    assert "bad.csv, row 2 (id 'x1'), field 'latitude': expected" in done.stderr
    assert "'north'" in done.stderr
    assert out.read_text().startswith("bad.csv: 0 of 1 rows valid")
    assert "latitude" not in out.read_text()


def test_the_exit_codes_are_in_every_commands_help(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ([], ["import"], ["validate"], ["team", "init"]):
        with pytest.raises(SystemExit, match="0"):
            cli.main([*command, "--help"])
        shown = capsys.readouterr().out
        assert "exit codes:\n  0  done" in shown
        assert "problems, warnings and errors to stderr" in shown


def test_a_zip_that_unpacks_past_the_limit_is_refused_at_once(
    tmp_path: Path, tiny: Scenario
) -> None:
    """A small zip of a CSV past four times the upload limit (compressed about 10:1, under the
    ratio guard)
    is refused from its directory in well under two seconds, before a byte is unpacked."""
    import time
    import zipfile

    path = tmp_path / "places.zip"
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open("places.csv", "w", force_zip64=True) as member,
    ):
        member.write(b"id,name,latitude,longitude,country_code\n")
        for line in range(0, 1_700_000, 10_000):  # about 90 MB
            member.write(b"".join(
                b"p%d,Village on the road to Idlib,36.2%04d,37.16117,SY\n" % (i, i % 9973)
                for i in range(line, line + 10_000)
            ))  # fmt: skip
    assert path.stat().st_size < importing.MAX_UPLOAD_BYTES
    started = time.monotonic()
    prepared = importing.prepare(path, tiny)
    seconds = time.monotonic() - started
    (problem,) = prepared.problems
    assert (
        problem.expected == f"at most {4 * importing.MAX_UPLOAD_BYTES:,} bytes uncompressed in all"
    )
    assert prepared.accepted == 0
    assert seconds < 2, seconds


def test_a_newer_acled_export_adds_updates_and_reports_what_vanished(
    workspace: Workspace, tmp_path: Path
) -> None:
    """ACLED revises its data every week: importing the newer export adds its new events,
    updates the revised ones (logged, so undo works), leaves the rest, and names the events it
    no longer has without deleting them."""
    first = importing.prepare(IMPORTS / "acled.csv", workspace.load("tiny"))
    importing.commit_import(workspace, "tiny", first, who="week 1")
    rows = list(csv.DictReader(io.StringIO((IMPORTS / "acled.csv").read_text(encoding="utf-8"))))
    revised_id, vanished_id = rows[0]["event_id_cnty"], rows[1]["event_id_cnty"]
    rows[0]["fatalities"] = str(int(rows[0]["fatalities"]) + 3)  # revised
    del rows[1]  # deleted by ACLED on review
    rows.append({**rows[-1], "event_id_cnty": "SYR999999", "notes": "Test data: a new event"})
    newer = tmp_path / "acled-week2.csv"
    with newer.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    before = {e.id: e for e in workspace.load("tiny").events}
    second = importing.prepare(newer, workspace.load("tiny"))
    assert ([e.id for e in second.records["events"]], [e.id for e in second.revised]) == (
        ["SYR999999"],
        [revised_id],
    )
    assert second.unchanged == len(rows) - 2
    assert "(1 events; 1 events updated, 10 unchanged)" in second.summary()
    assert second.action == "Add 1 and update 1 record(s) (10 unchanged)"
    [warning] = [str(p) for p in second.problems if p.field == "id"]
    assert warning.endswith(f"got '1 no longer in this file (kept): {vanished_id}'")
    importing.commit_import(workspace, "tiny", second, who="week 2")
    after = {e.id: e for e in workspace.load("tiny").events}
    assert after[revised_id].fatalities == before[revised_id].fatalities + 3
    assert vanished_id in after
    assert "SYR999999" in after
    assert len(after) == len(before) + 1
    changes.undo(workspace, "tiny", who="week 2")
    assert {e.id: e.fatalities for e in workspace.load("tiny").events} == {
        i: e.fatalities for i, e in before.items()
    }


def test_an_event_revised_by_someone_else_since_the_file_was_checked_is_refused(
    workspace: Workspace, tmp_path: Path
) -> None:
    from geo.errors import ConflictError

    importing.commit_import(
        workspace, "tiny", importing.prepare(IMPORTS / "acled.csv", workspace.load("tiny")),
        who="week 1",
    )  # fmt: skip
    rows = list(csv.DictReader(io.StringIO((IMPORTS / "acled.csv").read_text(encoding="utf-8"))))
    revised_id = rows[0]["event_id_cnty"]
    rows[0]["fatalities"] = str(int(rows[0]["fatalities"]) + 3)
    newer = tmp_path / "acled-week2.csv"
    with newer.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    read = changes.read_mark(workspace)
    prepared = importing.prepare(newer, workspace.load("tiny"))
    changes.commit(open_workspace(workspace.location), "tiny",
                   [changes.Edit("update", "events", revised_id, {"notes": "Checked by phone"})],
                   who="desk")  # fmt: skip
    with pytest.raises(ConflictError, match=f"events '{revised_id}' was changed by desk"):
        importing.commit_import(workspace, "tiny", prepared, who="week 2", read=read)
    assert {e.id: e.notes for e in workspace.load("tiny").events}[revised_id] == "Checked by phone"


@pytest.mark.parametrize("name", ["places.csv", "Places.CSV", "places"])
def test_an_upload_is_read_from_its_bytes_by_its_name(tiny: Scenario, name: str) -> None:
    data = (IMPORTS / "places.csv").read_bytes()
    prepared = importing.prepare_upload(data, name, tiny, who="t")
    assert prepared.file == name
    if name == "places":  # no suffix: the reader says what it expected
        assert prepared.accepted == 0
        assert prepared.problems
    else:
        assert [p.id for p in prepared.records["places"]] == ["ramouseh", "rashidin", "saraqib"]


def test_problems_and_changes_as_tables(workspace: Workspace, tiny: Scenario) -> None:
    from geo import tables

    prepared = prepare("places.csv", tiny)
    problems = tables.problems_table(prepared.problems)
    assert list(problems.columns) == ["severity", "file", "where", "field", "expected", "got"]
    assert len(problems) == len(prepared.problems) >= 1
    importing.commit_import(workspace, tiny.id, prepared, who="t")
    log = tables.changes_table(changes.history(workspace, tiny.id))
    assert set(log["what"]) == {"add"}
    assert set(log["who"]) == {"t"}
    assert log["new"].str.len().max() <= 80
    assert log["new"].str.endswith("…").any()  # a whole record, cut short
    assert not log["new"].str.startswith("{").any()  # its fields as words, not a Python dict
    assert log["new"].str.contains("name: ").any()
