"""Drafts from a report: status from the verbs, departure and arrival, the scenario's time span,
vehicles by kind, ids of the name's letters, the publication date of the first line."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from geo.drafts import (
    _slug,
    add_to_scenario,
    draft_rows,
    draft_times,
    first_line_date,
    outside_span,
    status_of,
    vehicle_kind,
)
from geo.errors import ValidationError
from geo.reading import ConvoyDraft, Extraction, FigureMention, PlaceMention, TimeMention
from geo.records import Scenario, Source

ZONE = "Asia/Damascus"  # UTC+2 in December 2016


def tiny_scenario() -> Scenario:
    """One day of December 2016 in Damascus time, no places or convoys yet."""
    return Scenario(
        id="tiny", title="Tiny", summary="", timezone=ZONE,
        start=datetime(2016, 12, 14, 4, 0, tzinfo=UTC),  # 06:00 in Damascus
        end=datetime(2016, 12, 15, 22, 0, tzinfo=UTC),  # 16 Dec 00:00 in Damascus
        disclaimer="", sources=(Source("seed", "Seed", "Nobody", date(2016, 12, 15)),),
    )  # fmt: skip


def reading(
    sentence: str, *, places: tuple[str, ...] = (), times: tuple[str, ...] = ()
) -> Extraction:
    """An extraction of one sentence by hand: `places` and `times` are phrases of it (times as
    'HH:MM' clock readings or ISO dates after '='); every count of it is a figure."""
    found_places = []
    for name in places:
        start = sentence.index(name)
        found_places.append(PlaceMention(name, start, start + len(name), name, 36.0, 36.7, "SY",
                                         "crossing" if "crossing" in name else "town",
                                         "approximate", 1.0))  # fmt: skip
    found_times = []
    for spec in times:
        text, _, value = spec.partition("=")
        start = sentence.index(text)
        clock = len(value) == 5
        found_times.append(TimeMention(text, start, start + len(text),
                                       "clock" if clock else "date",
                                       "" if clock else value, value if clock else ""))  # fmt: skip
    figures = []
    for number, what in (("40", "buses"), ("13", "ambulances"), ("nearly 30", "vehicles")):
        phrase = f"{number} {what}"
        if phrase in sentence:
            start = sentence.index(phrase)
            value, qualifier = int(number.split()[-1]), "nearly" if "nearly" in number else None
            end = start + len(phrase)
            figures.append(FigureMention(what, qualifier, sentence, "", start, end, value))
    said = times[0].partition("=")[0] if times else ""
    draft = ConvoyDraft(sentence, 0, *(places + ("",) * 2)[:2], time=said)
    return Extraction(found_places, figures, found_times, [draft])


@pytest.mark.parametrize(
    ("sentence", "status"),
    [
        ("40 buses left Saraqib.", "under_way"),
        ("The convoy set off from Aleppo.", "under_way"),
        ("The buses departed at dawn.", "under_way"),
        ("Nearly 30 vehicles were headed to Fuaa.", "under_way"),
        ("Buses heading for Idlib were seen.", "under_way"),
        ("The buses left Aleppo and arrived in Idlib.", "arrived"),
        ("The convoy reached Idlib.", "arrived"),
        ("Buses were preparing to leave Madaya.", "planned"),
        ("The fighters will leave on Friday.", "planned"),
        ("Buses are expected to set off for Idlib.", "planned"),
        ("Thousands left Aleppo under a deal that will end the battle.", "under_way"),
        ("The deal was signed.", "planned"),
        ("غادرت الحافلات حلب صباحا.", "under_way"),
        ("وصلت الحافلات إلى إدلب.", "arrived"),
        ("تستعد الحافلات للخروج من مضايا.", "planned"),
    ],
)
def test_the_status_comes_from_the_verbs(sentence: str, status: str) -> None:
    assert status_of(sentence) == status


def test_a_clock_time_departs_on_the_publication_day_in_the_scenarios_zone() -> None:
    found = reading(
        "40 buses left Saraqib at 2:30 pm.", places=("Saraqib",), times=("2:30 pm=14:30",)
    )
    [draft] = found.convoys
    times = draft_times(
        found, draft, status="under_way", published=date(2016, 12, 15), timezone=ZONE
    )
    assert times == ("2016-12-15T14:30+02:00", "", "approximate")


def test_departure_and_arrival_both_kept() -> None:
    sentence = "The buses left Aleppo at 2:30 pm on 15 December and arrived at 3:35 pm."
    found = reading(sentence, times=("2:30 pm=14:30", "15 December=2016-12-15", "3:35 pm=15:35"))
    [row] = draft_rows(found, published=date(2016, 12, 20), timezone=ZONE)
    assert (row["status"], row["depart"], row["arrive"]) == (
        "arrived", "2016-12-15T14:30+02:00", "2016-12-15T15:35+02:00"
    )  # fmt: skip


def test_the_only_time_of_an_arrival_is_the_arrival() -> None:
    found = reading("The convoy reached Idlib at 3:35 pm.", times=("3:35 pm=15:35",))
    [row] = draft_rows(found, published=date(2016, 12, 15), timezone=ZONE)
    assert (row["depart"], row["arrive"]) == ("", "2016-12-15T15:35+02:00")


def test_a_date_without_a_clock_is_midday_and_estimated() -> None:
    found = reading("Buses left Saraqib on 3 March.", times=("3 March=2025-03-03",))
    [row] = draft_rows(found, published=date(2025, 3, 4), timezone=ZONE)
    assert (row["depart"], row["time_precision"]) == ("2025-03-03T12:00+03:00", "estimated")


def test_a_sentence_without_times_gets_none() -> None:
    [row] = draft_rows(reading("Buses left Saraqib."), published=date(2025, 3, 4), timezone=ZONE)
    assert (row["depart"], row["arrive"]) == ("", "")


def test_the_times_buses_and_ids_reach_the_scenario() -> None:
    sentence = "40 buses and 13 ambulances left Saraqib for Bab al-Hawa crossing at 2:30 pm."
    found = reading(sentence, places=("Saraqib", "Bab al-Hawa crossing"), times=("2:30 pm=14:30",))
    [row] = draft_rows(found, published=date(2016, 12, 15), timezone=ZONE)
    assert (row["buses"], row["ambulances"], row["vehicles"]) == ("40", "13", "")
    grown = add_to_scenario(tiny_scenario(), found, [row], title="t", published=date(2016, 12, 15))
    [convoy] = grown.convoys
    assert convoy.depart == datetime(2016, 12, 15, 12, 30, tzinfo=UTC)
    assert (str(convoy.buses), str(convoy.ambulances), convoy.vehicles) == ("40", "13", None)
    assert (convoy.status.value, convoy.destination) == ("under_way", "bab-al-hawa-crossing")
    assert [place.id for place in grown.places] == ["saraqib", "bab-al-hawa-crossing"]


def test_a_departure_edited_into_nonsense_adds_nothing() -> None:
    found = reading("40 buses left Saraqib.", places=("Saraqib",))
    [row] = draft_rows(found, published=date(2016, 12, 15), timezone=ZONE)
    row["depart"] = "tomorrow"
    with pytest.raises(ValidationError, match=r"row 1, field 'depart': expected an ISO 8601"):
        add_to_scenario(tiny_scenario(), found, [row], title="t", published=date(2016, 12, 15))


def test_times_inside_the_span_ask_nothing() -> None:
    row = {"depart": "2016-12-15T14:30+02:00", "arrive": "2016-12-15T15:35+02:00"}
    assert outside_span(tiny_scenario(), [row], published=date(2025, 3, 3)) is None


def test_a_departure_outside_the_span_is_named_with_the_span() -> None:
    row = {"depart": "2025-03-03T14:30+02:00", "arrive": "", "time_precision": "approximate"}
    question = outside_span(tiny_scenario(), [row], published=date(2016, 12, 15))
    assert question == (
        "The report is dated 3 March 2025 15:30, outside the time span of scenario tiny "
        "(14 December 2016 06:00 to 16 December 2016 00:00, Asia/Damascus)."
    )  # (in the scenario's zone: Damascus was UTC+3 by 2025)


def test_an_estimated_time_is_named_by_its_day() -> None:
    row = {"depart": "2025-03-03T12:00+03:00", "time_precision": "estimated"}
    question = outside_span(tiny_scenario(), [row], published=date(2016, 12, 15))
    assert question is not None
    assert question.startswith("The report is dated 3 March 2025, outside")


def test_without_times_the_publication_date_is_checked() -> None:
    rows = [{"depart": "", "arrive": ""}]
    assert outside_span(tiny_scenario(), rows, published=date(2016, 12, 15)) is None
    question = outside_span(tiny_scenario(), rows, published=date(2016, 12, 16))
    assert question is not None
    assert question.startswith("The report is dated 16 December 2016, outside")


@pytest.mark.parametrize(
    ("what", "sentence", "kind"),
    [
        ("buses", "Then 40 buses left.", "buses"),
        ("minibuses", "Then 40 minibuses left.", "buses"),
        ("ambulances", "Then 13 ambulances left.", "ambulances"),
        ("trucks", "Then 13 trucks left.", "vehicles"),
        ("حافلة", "خرجت 20 حافلة من حلب", "buses"),
        ("سيارة", "خرجت 13 سيارة إسعاف من حلب", "ambulances"),
        ("سيارة", "خرجت 13 سيارة مدنية من حلب", "vehicles"),
    ],
)
def test_vehicles_keep_their_kind(what: str, sentence: str, kind: str) -> None:
    assert vehicle_kind(FigureMention(what, None, sentence, "", 5, 7, 13)) == kind


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Bab al-Hawa crossing", "bab-al-hawa-crossing"),
        ("Qal‘at al Maḑīq", "qalat-al-madiq"),
        ("Dūmā", "duma"),
        ("Москва", "moskva"),
        ("حلب", "hlb"),
        ("?!", "place"),
    ],
)
def test_ids_are_the_names_letters(name: str, slug: str) -> None:
    assert _slug(name) == slug


@pytest.mark.parametrize(
    ("first_line", "published"),
    [
        ("SARAQIB, Syria, 3 March 2025 (Reuters) - Buses left.", date(2025, 3, 3)),
        ("Published: 2016-12-16", date(2016, 12, 16)),
        ("March 3, 2025 - Buses left.", date(2025, 3, 3)),
        ("Buses left on 3 March.", None),  # no year: not a publication date
        ("31 February 2025", None),
    ],
)
def test_the_first_line_gives_the_publication_date(first_line: str, published: date | None) -> None:
    assert first_line_date(f"\n{first_line}\nA second line, 4 April 2024.") == published
