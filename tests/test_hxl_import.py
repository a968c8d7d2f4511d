"""HXL-tagged tables (HDX's hashtag row under the header) imported by their tags."""

from __future__ import annotations

import io
from pathlib import Path

import hxl as libhxl
import pytest

from geo import _schema as s
from geo import hxl, importing
from geo.importing import Options
from geo.readers import columnar as columnar_import
from geo.records import FigureKind, Scenario

PLACES = """Town,Y,X,Country,Remarks
#loc+name,#geo+lat,#geo+lon,#country+code,#meta+notes
Tawila,13.53,24.65,SDN,written by hand
Zalingei,12.91,23.47,SDN,
"""


def prepare(path: Path, scenario: Scenario, **options: object) -> importing.Prepared:
    return importing.prepare(path, scenario, options=Options(**options), who="t")  # type: ignore[arg-type]


def written(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_tagged_columns_are_read_by_their_tags_whatever_the_header(
    tmp_path: Path, tiny: Scenario
) -> None:
    path = written(tmp_path, "sites.csv", PLACES)
    prepared = prepare(path, tiny)
    tawila, zalingei = prepared.records["places"]
    assert (tawila.name, tawila.latitude, tawila.longitude, tawila.country_code) == (
        "Tawila",
        13.53,
        24.65,
        "SD",
    )  # (an HDX table's three-letter code, as its two letters)
    assert zalingei.name == "Zalingei"
    assert prepared.rejected == ()
    assert "Remarks" in next(str(p) for p in prepared.problems if "not read" in str(p))


def test_libhxl_reads_the_same_tags_from_the_file(tmp_path: Path) -> None:
    path = written(tmp_path, "sites.csv", PLACES)
    source = libhxl.data(io.BytesIO(path.read_bytes()))  # (given a path, libhxl leaves it open)
    theirs = [column.display_tag for column in source.columns]
    header, tags = [line.split(",") for line in PLACES.splitlines()[:2]]
    assert theirs == tags
    ours = [str(hxl.parse(tag)) for tag in tags]
    assert ours == theirs
    assert hxl.tagged_columns(header, [hxl.parse(t) for t in tags], "places").keys == [
        "name",
        "latitude",
        "longitude",
        "country_code",
        "Remarks",
    ]


def test_a_hashtag_row_without_a_header_and_titles_above_one(
    tmp_path: Path, tiny: Scenario
) -> None:
    bare = written(tmp_path, "bare.csv", "\n".join(PLACES.splitlines()[1:]) + "\n")
    assert [p.name for p in prepare(bare, tiny).records["places"]] == ["Tawila", "Zalingei"]
    titled = written(tmp_path, "titled.csv", "Sites in Darfur,,,,\nMay 2025,,,,\n" + PLACES)
    prepared = prepare(titled, tiny)
    assert [p.name for p in prepared.records["places"]] == ["Tawila", "Zalingei"]
    assert any("titled.csv, rows 1-2" in str(p) and "titles above it" in str(p)
               for p in prepared.problems)  # fmt: skip


def test_a_row_is_the_hashtag_row_when_half_its_cells_are_tags() -> None:
    assert hxl.hashtag_row([["name", "lat"], ["#loc+name", "#geo+lat"]]) == 1
    assert hxl.hashtag_row([["#1 school", "a", "b"], ["x", "y", "z"]]) is None
    assert hxl.hashtag_row([["#loc", "", "note", ""]]) == 0  # (1 of 2 cells that are not blank)
    assert hxl.hashtag_row([["#loc", "note", "more"]]) is None
    assert hxl.parse(" #Adm1 +Name ") == hxl.Tag("#adm1", frozenset({"name"}))
    assert hxl.parse("#1st") is None
    assert hxl.parse("# loc") is None
    assert hxl.parse(3) is None


def test_the_more_specific_rule_and_the_total_win() -> None:
    tags = [hxl.parse(t) for t in ("#affected+idps+ind+f", "#affected+idps+ind", "#loc+name",
                                   "#affected+idps+hh", "#date+reported")]  # fmt: skip
    header = ["Women", "IDP individuals", "Site", "Households", "Date"]
    tagged = hxl.tagged_columns(header, tags, "figures")
    assert tagged.keys == ["Women", "count", "place", "Households", "reported"]
    assert tagged.implied == {"kind": "displaced", "what": "IDP individuals"}
    assert hxl.layer_of(tags) == "figures"
    assert hxl.layer_of([hxl.parse("#event+type"), hxl.parse("#geo+lat")]) == "events"


def test_tagged_events_with_headers_of_their_own(tmp_path: Path, tiny: Scenario) -> None:
    path = written(tmp_path, "incidents.csv", (
        "When,What,Where,Lat,Lon,Killed,Code\n"
        "#date+occurred,#event+type,#loc+name,#geo+lat,#geo+lon,#affected+killed,#event+code\n"
        "2024-05-10,Shelling,El Fasher,13.63,25.35,4,SDN-1\n"
        "2024-05-11,Clash,Tawila,13.53,24.65,,SDN-2\n"
    ))  # fmt: skip
    prepared = prepare(path, tiny)
    events = list(prepared.records["events"])
    assert [(e.id, e.event_type, e.location, e.fatalities) for e in events] == [
        ("SDN-1", "Shelling", "El Fasher", 4),
        ("SDN-2", "Clash", "Tawila", 0),
    ]


ACLED_HEADER = "event_id_cnty,event_date,event_type,country,location,latitude,longitude,fatalities"
ACLED_TAGS = ",".join(["#event+code", "#date+occurred", "#event+type", "#country+name",
                       "#loc+name", "#geo+lat", "#geo+lon", "#affected+killed"])  # fmt: skip


def test_an_acled_export_from_hdx_is_read_quickly_past_its_hashtag_row(
    tmp_path: Path, tiny: Scenario
) -> None:
    rows = [f"SDN{n},2024-05-{n + 1:02d},Battles,Sudan,El Fasher,13.6,25.3,{n}" for n in range(5)]
    path = written(tmp_path, "acled.csv", "\n".join([ACLED_HEADER, ACLED_TAGS, *rows]) + "\n")
    fast = columnar_import.read_events(
        path, "acled.csv", layer=None, defaults={}, source_id="src",
        known=s.Known(sources={"src"}, places=set(), convoys=set()),
    )  # fmt: skip
    assert fast is not None
    assert len(fast.events) == 5
    prepared = prepare(path, tiny)
    assert prepared.rejected == ()
    assert len(prepared.records["events"]) == 5


def test_a_hashtag_row_further_down_is_left_to_the_row_by_row_reader(
    tmp_path: Path, tiny: Scenario
) -> None:
    rows = [f"SDN{n},2024-05-{n + 1:02d},Battles,Sudan,El Fasher,13.6,25.3,{n}" for n in range(3)]
    text = "\n".join(["ACLED for HDX,,,,,,,", ACLED_HEADER, ACLED_TAGS, *rows]) + "\n"
    path = written(tmp_path, "titled.csv", text)
    known = s.Known(sources={"src"}, places=set(), convoys=set())
    assert columnar_import.read_events(path, "titled.csv", layer=None, defaults={},
                                       source_id="src", known=known) is None  # fmt: skip
    prepared = prepare(path, tiny)
    assert len(prepared.records["events"]) == 3
    assert prepared.rejected == ()


def test_a_dtm_csv_makes_its_sites_where_the_rows_say(tmp_path: Path, tiny: Scenario) -> None:
    path = written(tmp_path, "dtm.csv", (
        "Site,Latitude,Longitude,IDPs,Date\n"
        "#loc+name,#geo+lat,#geo+lon,#affected+idps+ind,#date+reported\n"
        "Aleppo,36.2,37.16,\"12,400\",2016-12-15\n"
        "Qwzx camp,36.1,37.0,300,2016-12-15\n"
    ))  # fmt: skip
    prepared = prepare(path, tiny)
    first, second = prepared.records["figures"]
    assert first.place == "aleppo"
    assert first.count.low == 12400
    assert first.kind == FigureKind.DISPLACED
    [made] = prepared.records["places"]
    assert (made.name, made.latitude, made.country_code) == ("Qwzx camp", 36.1, "SY")
    assert second.place == made.id
    [said] = [p for p in prepared.problems if "without one" in p.actual]
    assert said.field == "reported"
    assert "Asia/Damascus" in said.actual


@pytest.mark.parametrize("code", ["SYR", "sy", "SY"])
def test_a_country_code_of_two_or_three_letters(code: str) -> None:
    assert s.country_code(code) == "SY"


def test_an_unknown_three_letter_code_is_refused() -> None:
    with pytest.raises(s.f.FieldError, match=r"two-letter ISO 3166-1 country code such as SY"):
        s.country_code("XYZ")
