"""Extraction from the seed report: places, figures, times and convoy drafts, offline."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from geo.cli import main
from geo.drafts import draft_label, draft_rows, highlighted, left_out, repeats, review_rows
from geo.geocoding import OfflineGeocoder
from geo.geocoding.geodesy import haversine_km
from geo.reading import Extraction, dateline_country, extract

REPORT = Path(__file__).parent / "data" / "reports" / "aleppo-evacuation-2016-12-15.txt"


@pytest.fixture(scope="module")
def found() -> Extraction:
    return extract(REPORT.read_text(encoding="utf-8"), published=date(2016, 12, 15))


def places_named(found: Extraction, mention: str) -> list[object]:
    return [place for place in found.places if place.mention == mention]


@pytest.mark.parametrize(
    ("mention", "latitude", "longitude", "within_km"),
    [
        ("Aleppo", 36.20124, 37.16117, 10),
        ("Idlib", 35.93062, 36.63393, 10),
        ("east Aleppo", 36.18328, 37.14953, 10),
        ("southern Aleppo", 36.17, 37.15, 10),
        ("Fuaa and Kafraya", 35.986, 36.69, 10),
        ("Hama province", 35.2352, 37.22, 60),
        ("Idlib province", 35.8528, 36.6829, 60),
        ("about five kilometres (three miles) west of the city", 36.19, 37.05, 10),
    ],
)
def test_every_syrian_place_is_found_and_placed(
    found: Extraction, mention: str, latitude: float, longitude: float, within_km: float
) -> None:
    matches = places_named(found, mention)
    assert matches, f"{mention!r} not found"
    for place in matches:
        assert place.country_code == "SY"
        assert haversine_km(latitude, longitude, place.latitude, place.longitude) <= within_km


def test_al_amiriyah_is_found(found: Extraction) -> None:
    [place] = [p for p in found.places if "Al-Amiriyah" in p.mention]
    assert haversine_km(36.174, 37.133, place.latitude, place.longitude) <= 10


@pytest.mark.parametrize(
    ("mention", "country"),
    [("Paris", "FR"), ("Geneva", "CH"), ("Moscow", "RU"), ("Brussels", "BE"),
     ("Srebrenica", "BA"), ("Russia", "RU"), ("Turkey", "TR"), ("Iran", "IR"),
     ("France", "FR"), ("Lebanon", "LB")],
)  # fmt: skip
def test_foreign_places_are_in_the_right_country(
    found: Extraction, mention: str, country: str
) -> None:
    matches = places_named(found, mention)
    assert matches, f"{mention!r} not found"
    assert {place.country_code for place in matches} == {country}


def test_people_and_ordinary_words_are_not_places(found: Extraction) -> None:
    mentions = {place.mention for place in found.places}
    for word in ("Kerry", "John Kerry", "Assad", "Obama", "Putin", "Vladimir", "Red Cross",
                 "Thursday", "Russian", "Many", "State"):  # fmt: skip
        assert word not in mentions


@pytest.mark.parametrize(
    ("value", "low", "high", "qualifier", "what"),
    [
        (3000, None, None, "about", "civilians"),
        (40, None, None, "more than", "wounded"),
        (200, None, None, "about", "rebel fighters"),
        (50000, None, None, "about", "people"),
        (40000, None, None, None, "civilians"),
        (None, 1500, 5000, None, "fighters"),
        (4000, None, None, "at least", "rebels and their families"),
        (30, None, None, "nearly", "vehicles"),
        (1200, None, None, None, "injured and sick people and their families"),
        (465, None, None, "more than", "civilians"),
        (149, None, None, None, "civilians"),
    ],
)
def test_every_figure_of_the_report_is_extracted(
    found: Extraction,
    value: int | None,
    low: int | None,
    high: int | None,
    qualifier: str | None,
    what: str,
) -> None:
    assert any(
        (f.value, f.low, f.high, f.qualifier, f.what) == (value, low, high, qualifier, what)
        for f in found.figures
    ), [(f.value, f.low, f.high, f.qualifier, f.what) for f in found.figures]


def test_figures_say_who_said_them(found: Extraction) -> None:
    [gasser] = [f for f in found.figures if f.value == 3000]
    assert "Marianne Gasser" in gasser.attribution
    [tv] = [f for f in found.figures if f.value == 4000]
    assert tv.attribution == "State television"


def test_numbers_that_are_not_counts_are_left_out(found: Extraction) -> None:
    values = {f.value for f in found.figures}
    assert not values & {1230, 1995, 2011, 2012, 27, 5, 14}  # clock, years, date, distance
    assert all(f.what for f in found.figures)


def test_times_are_resolved_against_the_publication_date(found: Extraction) -> None:
    times = {(t.text, t.date, t.local_time, t.utc_time) for t in found.times}
    assert ("2:30 pm (1230 GMT)", "", "14:30", "12:30") in times
    assert ("Wednesday morning", "2016-12-14", "", "") in times
    assert ("Thursday", "2016-12-15", "", "") in times
    assert ("Friday", "2016-12-16", "", "") in times  # "will meet Friday"
    assert ("December 27", "2016-12-27", "", "") in times


def test_convoy_drafts_carry_their_sentence(found: Extraction) -> None:
    fuaa = [c for c in found.convoys if "Fuaa" in c.destination]
    assert fuaa
    assert fuaa[0].vehicles == ["nearly 30 vehicles"]
    assert fuaa[0].time == "Thursday"
    assert fuaa[0].sentence.startswith("On Thursday, nearly 30 vehicles were headed")
    west = [c for c in found.convoys if "west of Aleppo" in c.destination]
    assert west


def test_cli_prints_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", str(REPORT), "--published", "2016-12-15", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert set(document) == {"places", "figures", "times", "convoys", "skipped", "homes"}
    assert document["homes"] == ["SY"]
    assert document["skipped"] == []
    place = document["places"][0]
    for key in ("mention", "start", "end", "name", "latitude", "longitude", "country_code",
                "kind", "precision", "score"):  # fmt: skip
        assert key in place
    figure = next(f for f in document["figures"] if "between" in f["sentence"])
    assert (figure["low"], figure["high"]) == (1500, 5000)
    convoy = document["convoys"][0]
    for key in ("origin", "destination", "via", "vehicles", "people", "time", "sentence"):
        assert key in convoy


def test_cli_refuses_a_bad_date(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", str(REPORT), "--published", "15/12/2016"]) == 1
    assert "--published: expected a date as YYYY-MM-DD" in capsys.readouterr().err


def test_spans_point_at_the_mention(found: Extraction) -> None:
    text = REPORT.read_text(encoding="utf-8")
    for place in found.places:
        assert text[place.start : place.end] == place.mention


def test_an_injection_in_text_is_kept_as_text() -> None:
    text = "Buses left <script>alert(1)</script> Aleppo for Idlib on Friday."
    found = extract(text, published=date(2016, 12, 15), geocoder=OfflineGeocoder())
    assert [p.name for p in found.places] == ["Aleppo", "Idlib"]


def test_reviewed_drafts_are_added_with_their_places_and_source(found: Extraction) -> None:
    from geo.drafts import add_to_scenario, draft_rows
    from geo.scenario import read_scenario

    scenario = read_scenario(Path(__file__).parent.parent / "data/scenarios/aleppo-2016-12")
    [row] = [r for r in draft_rows(found) if "Fuaa" in r["destination"]]
    assert row["vehicles"] == "nearly 30"
    row = {**row, "origin": "Idlib", "status": "under_way"}
    grown = add_to_scenario(scenario, found, [row], title="Seed", published=date(2016, 12, 15))
    added = grown.convoys[-1]
    assert (added.origin, added.destination, added.status.value) == (
        "idlib",
        "fuaa-kafraya",
        "under_way",
    )
    assert str(added.vehicles) == "nearly 30"
    [leg] = [r for r in grown.routes if r.convoy == added.id]  # drawn straight, approximate
    assert (leg.from_place, leg.to_place, leg.precision.value) == (
        "idlib",
        "fuaa-kafraya",
        "approximate",
    )
    assert grown.sources[-1].id.startswith("report-20161215-")
    assert len(grown.convoys) == len(scenario.convoys) + 1


def test_a_bad_reviewed_row_adds_nothing_and_says_why(found: Extraction) -> None:
    from geo.drafts import add_to_scenario
    from geo.errors import ValidationError
    from geo.scenario import read_scenario

    scenario = read_scenario(Path(__file__).parent.parent / "data/scenarios/aleppo-2016-12")
    row = {"label": "x", "destination": "Nowhere", "status": "flying", "sentence": "s"}
    with pytest.raises(ValidationError, match=r"review table, row 1, field 'status': expected"):
        add_to_scenario(scenario, found, [row], title="t", published=date(2016, 12, 15))


def test_the_report_page_reads_a_pasted_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from streamlit.testing.v1 import AppTest

    page = Path(__file__).parent.parent / "pages" / "from_a_report.py"
    monkeypatch.setenv("CORRIDOR_WORKSPACE", str(tmp_path / "w.gpkg"))
    app = AppTest.from_file(str(page), default_timeout=60).run()
    app.text_area(key="report_text").input(REPORT.read_text(encoding="utf-8")).run()
    assert not app.exception
    assert [metric.value for metric in app.metric][:2] == [
        str(len(extract(REPORT.read_text(encoding="utf-8")).places)),
        "18",  # 16 numbers, "Thousands of civilians" and "tens of thousands of civilians"
    ]
    assert app.button(key="add_drafts").disabled


def test_a_name_shared_by_two_places_goes_to_the_one_near_the_others() -> None:
    geocoder = OfflineGeocoder()
    alone = extract("Buses reached Hamidiyeh.", geocoder=geocoder)
    [far] = [p for p in alone.places if p.mention == "Hamidiyeh"]
    in_homs = extract("In Homs, buses left the Hamidiyeh district.", geocoder=geocoder)
    [near] = [p for p in in_homs.places if p.mention == "Hamidiyeh district"]
    assert haversine_km(34.724, 36.726, near.latitude, near.longitude) <= 5  # Homs
    assert haversine_km(34.724, 36.726, far.latitude, far.longitude) > 50  # near Tartus


def test_a_count_of_convoys_is_neither_vehicles_nor_people() -> None:
    found = extract("Three convoys left Aleppo for Idlib carrying 400 people.")
    [draft] = found.convoys
    assert draft.vehicles == []
    assert draft.people == ["400 people"]
    [row] = draft_rows(found)
    assert (row["vehicles"], row["people"]) == ("", "400")


@pytest.mark.parametrize(
    ("origin", "destination", "label"),
    [
        ("Aleppo", "Idlib", "Convoy 3: Aleppo to Idlib"),
        ("", "Idlib", "Convoy 3 to Idlib"),
        ("Aleppo", "", "Convoy 3 from Aleppo"),
        ("", "", "Convoy 3"),
    ],
)
def test_a_draft_label_never_shows_a_question_mark(
    origin: str, destination: str, label: str
) -> None:
    assert draft_label(3, origin, destination) == label


def test_a_draft_read_again_names_the_convoy_it_repeats(found: Extraction) -> None:
    from geo.scenario import read_scenario

    scenario = read_scenario(Path(__file__).parent.parent / "data/scenarios/aleppo-2016-12")
    [fuaa] = [row for row in draft_rows(found) if "Fuaa" in row["destination"]]
    assert repeats(scenario, fuaa["sentence"]) == "fuaa-kafraya-vehicles"
    assert repeats(scenario, "Buses left Homs for Hama on Monday with 300 people.") is None
    assert repeats(scenario, "buses") is None  # too short to say


def test_review_rows_name_their_repeats_and_repeats_are_left_out(found: Extraction) -> None:
    from geo.scenario import read_scenario

    scenario = read_scenario(Path(__file__).parent.parent / "data/scenarios/aleppo-2016-12")
    rows = review_rows(found, scenario)
    assert [row["already in workspace"] for row in rows if "Fuaa" in row["destination"]] == [
        "fuaa-kafraya-vehicles"
    ]
    assert {row["already in workspace"] for row in review_rows(found, None)} == {""}
    fresh, notes = left_out(scenario, rows)
    assert len(fresh) + len(notes) == len(rows)
    assert all("fuaa" not in row["destination"].lower() for row in fresh)
    assert any(note.endswith("the source of convoy fuaa-kafraya-vehicles.") for note in notes)


def test_the_report_is_marked_and_escaped() -> None:
    text = "<b>Buses</b> carrying 300 people left Aleppo for Idlib."
    page = highlighted(text, extract(text))
    assert "<b>" not in page
    assert "&lt;b&gt;" in page
    assert page.count("<mark") >= 2  # Aleppo, Idlib (and the figure)


def test_the_role_word_nearest_a_place_gives_its_part() -> None:
    [left_for] = extract("Buses carrying 300 people left Aleppo for Idlib on Monday.").convoys
    assert (left_for.origin, left_for.destination) == ("Aleppo", "Idlib")
    [crossing] = extract(
        "A convoy of buses crossed into a government-held district in southern Aleppo."
    ).convoys
    assert crossing.destination == ""  # "into" (via) outweighs the nearer "in"
    assert crossing.via


# --- real copy (issue 17): each pattern below was seen in published wire, UN or NGO text ---


def figure_at(found: Extraction, text: str, number: str) -> tuple[object, ...]:
    [figure] = [f for f in found.figures if text[f.start : f.end] == number]
    return figure.value, figure.low, figure.high, figure.qualifier


@pytest.mark.parametrize(
    ("text", "number", "read"),
    [
        ("Twenty-five buses left the town on Friday.", "Twenty-five", (25, None, None, None)),
        ("An estimated 8 000 people were moved.", "An estimated 8 000",
         (8000, None, None, "about")),
        ("An estimated 5.5 million people lack water.", "An estimated 5.5 million",
         (5_500_000, None, None, "about")),
        ("Since late December some 1,000 families fled.", "some 1,000",
         (1000, None, None, "about")),
        ("Some two thousand people left.", "Some two thousand", (2000, None, None, "about")),
        ("Between 1,300 and 1,500 fighters left.", "Between 1,300 and 1,500",
         (None, 1300, 1500, None)),
        ("Hundreds of families waited at the crossing.", "Hundreds of", (None, 200, 999, None)),
        ("More than 25,000 civilians have left.", "More than 25,000",
         (25000, None, None, "more than")),
    ],
)  # fmt: skip
def test_numbers_as_wires_and_sitreps_write_them(
    text: str, number: str, read: tuple[object, ...]
) -> None:
    assert figure_at(extract(text), text, number) == read


def test_a_vague_amount_of_something_else_is_no_figure() -> None:
    assert extract("Hundreds of metres of road were cleared.").figures == []


def test_a_count_of_ambulances_is_not_a_clock_time() -> None:
    text = "At 10 am, 20 ambulances entered the district."
    found = extract(text)
    assert [t.text for t in found.times] == ["10 am"]
    assert figure_at(found, text, "20") == (20, None, None, None)


def test_one_unreadable_item_is_skipped_and_the_rest_is_read(capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:  # fmt: skip
    text = "The buses left at 13 pm. Forty buses reached Idlib."
    found = extract(text)
    [skipped] = found.skipped
    assert (skipped.kind, skipped.text) == ("time", "13 pm")
    assert "hour from 1 to 12, got 13" in skipped.reason
    assert [f.value for f in found.figures] == [40]
    report = tmp_path / "report.txt"
    report.write_text(text, encoding="utf-8")
    assert main(["extract", str(report)]) == 0
    assert "skipped time at character 18: '13 pm'" in capsys.readouterr().out


@pytest.mark.parametrize(
    "text",
    [
        "Fighters of Fateh al-Sham Front agreed to leave.",
        "Meanwhile, the talks resumed.",
        "The Shia villages were besieged.",
        "Footage aired by Al Jazeera showed the buses.",
        "Hayat Tahrir al-Sham said it would comply.",
    ],
)
def test_groups_channels_creeds_and_adverbs_are_not_places(text: str) -> None:
    assert extract(text).places == []


def test_a_namesake_abroad_needs_its_own_name_when_far_from_the_story() -> None:
    found = extract("Buses left Aleppo for Idlib, an exodus likened to Srebrenica.")
    assert [p.country_code for p in found.places] == ["SY", "SY", "BA"]


@pytest.mark.parametrize(
    ("text", "mention", "near", "km"),
    [
        ("Buses left the Al-Amiriyah neighbourhood.", "Al-Amiriyah neighbourhood",
         (36.174, 37.133), 3),
        ("Families fled Rural Damascus Governorate.", "Rural Damascus Governorate",
         (33.5, 36.6), 60),
        ("Convoys reached north-western Syria.", "north-western Syria", (35.8, 36.7), 150),
        ("Shelling hit southern Idlib overnight.", "southern Idlib", (35.6, 36.65), 40),
    ],
)  # fmt: skip
def test_neighbourhoods_governorates_and_directional_regions(
    text: str, mention: str, near: tuple[float, float], km: float
) -> None:
    [place] = [p for p in extract(text, home=("SY",)).places if p.mention == mention]
    assert haversine_km(*near, place.latitude, place.longitude) <= km


def test_a_name_does_not_run_over_a_line_end() -> None:
    found = extract("Buses leave Syria's Madaya\nMADAYA, Syria (AFP) - Buses left on Friday.")
    assert [p.mention for p in found.places] == ["Syria", "Madaya", "MADAYA", "Syria"]


@pytest.mark.parametrize(
    ("text", "origin", "destination"),
    [
        ("Some 300 people were bussed out of Madaya to Idlib.", "Maḑāyā", "Idlib"),
        ("The wounded were transferred from Madaya to Damascus.", "Maḑāyā", "Damascus"),
        ("Buses departing Aleppo on Monday headed to Idlib.", "Aleppo", "Idlib"),
        ("They were promised safe passage to opposition-held Idlib.", "", "Idlib"),
        ("Buses carrying 3,000 people from Madaya and Zabadani arrived in Aleppo.", "Maḑāyā",
         "Aleppo"),
        ("Buses left Aleppo, a source in Homs said.", "Aleppo", ""),
    ],
)  # fmt: skip
def test_convoys_from_the_wider_vocabulary_of_movement(
    text: str, origin: str, destination: str
) -> None:
    [draft] = extract(text).convoys
    assert (draft.origin, draft.destination) == (origin, destination)


def test_the_two_villages_are_the_two_places_just_named() -> None:
    text = ("The siege of Madaya and Zabadani went on. "
            "On Friday 60 buses left the two villages for Idlib.")  # fmt: skip
    drafts = [d for d in extract(text).convoys if d.origin]
    assert [(d.origin, d.destination) for d in drafts] == [("Maḑāyā", "Idlib")]


def test_until_a_weekday_is_ahead_of_the_publication() -> None:
    published = date(2017, 4, 19)  # a Wednesday
    [ahead] = extract("The truce holds until Saturday.", published=published).times
    [before] = extract("The buses left on Saturday.", published=published).times
    assert (ahead.date, before.date) == ("2017-04-22", "2017-04-15")


def test_a_place_made_an_adjective_is_still_named() -> None:
    found = extract("The Britain-based Observatory said buses left Aleppo.")
    assert [(p.mention, p.country_code) for p in found.places] == [("Britain", "GB"),
                                                                    ("Aleppo", "SY")]  # fmt: skip


def test_the_first_word_of_a_longer_unknown_name_is_not_a_place() -> None:
    found = extract("Buses crossed at Abu al-Qasimeen near al-Bab.")
    assert [p.mention for p in found.places] == ["al-Bab"]


def test_a_bulleted_line_starts_a_sentence() -> None:
    assert extract("Update:\n• Since Monday, 40 buses left Aleppo.").places[0].mention == "Aleppo"


def test_the_rebel_held_north_is_a_destination() -> None:
    [draft] = extract("About 1,500 people left Harasta for the rebel-held north.").convoys
    assert draft.destination == "northern Syria"


@pytest.mark.parametrize(
    ("text", "origin", "destination"),
    [
        ("Families in Harasta waited. Thousands fled the enclave on foot to Adra.", "Ḩarastā",
         "Adra"),
        ("Some 1,000 families fled the valley to stay in Qudsaya and Damascus.", "",
         "Qadsayyā"),
        ("Buses took them to Rashidin, then on to Idlib.", "", "Idlib"),
    ],
)  # fmt: skip
def test_coordination_and_stages_of_a_trip(text: str, origin: str, destination: str) -> None:
    draft = extract(text).convoys[-1]
    assert (draft.origin, draft.destination) == (origin, destination)


@pytest.mark.parametrize(
    ("text", "number", "read"),
    [
        ("Between 2,500 and 3,000 people, hundreds of them fighters, left.", "hundreds of",
         (None, 200, 999, None)),
        ("The toll rose to 126; scores of others were wounded.", "scores of",
         (None, 40, 99, None)),
        ("The deal covered as many as 40,000 of their relatives.", "as many as 40,000",
         (40000, None, None, "up to")),
        ("The number of those taken out has reached nearly 6,000.", "nearly 6,000",
         (6000, None, None, "nearly")),
    ],
)  # fmt: skip
def test_counts_whose_noun_is_a_pronoun_or_far_away(
    text: str, number: str, read: tuple[object, ...]
) -> None:
    assert figure_at(extract(text), text, number) == read


def test_an_agency_and_an_ordinal_are_not_places() -> None:
    text = "SANA's reporter in Yalda said the Fourth batch left Yalda."
    assert [p.mention for p in extract(text, home=("SY",)).places] == ["Yalda", "Yalda"]


@pytest.mark.parametrize(
    ("text", "origin", "destination"),
    [
        ("Fighters in Yalda, Babbila and Beit Sahem agreed; they will be bussed out of the "
         "three towns to Jarablus.", "Yalda", "Jarābulus"),
        ("Douma's last rebels leave on the green buses", "Dūmā", ""),
        ("They set off shortly after noon for Jarablus.", "", "Jarābulus"),
        ("Buses left Aleppo. Some 3,500 people reached the town on Tuesday.", "", "Aleppo"),
    ],
)  # fmt: skip
def test_convoys_from_agency_and_feature_copy(text: str, origin: str, destination: str) -> None:
    draft = extract(text, home=("SY",)).convoys[-1]  # read into a Syrian scenario
    assert (draft.origin, draft.destination) == (origin, destination)


def test_a_dateline_names_the_country_of_a_small_place() -> None:
    text = "AMMAN, Jordan (Reuters) - Buses left Aleppo; aid staff waited in Azraq."
    found = extract(text)
    assert dateline_country(text, OfflineGeocoder()) == "JO"
    assert "Azraq" in [p.mention for p in found.places]  # far from Aleppo, but in Jordan
    assert "Azraq" not in [p.mention for p in extract(text.split(" - ", 1)[1]).places]
