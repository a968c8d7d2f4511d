"""Reading Arabic reports: places with clitics and descriptive forms, figures, times, convoys."""

from __future__ import annotations

from datetime import date

import pytest

from geo.drafts import draft_rows
from geo.reading import Extraction, extract, is_arabic, parse_amount

WIRE = (
    "حلب-سانا\n"
    "خرجت صباح اليوم الخميس أولى الحافلات من حي العامرية باتجاه ريف حلب الغربي مرورا بمعبر "
    "الراموسة، وعلى متنها نحو 1500 مدني و٢٠٠ جريح.\n"
    "كما وصلت 20 سيارة إسعاف إلى بلدتي الفوعة وكفريا بريف إدلب الساعة العاشرة صباحا.\n"
    "وقال المرصد إن ما بين 1300 و1500 مقاتل غادروا دوما إلى قلعة المضيق يوم الجمعة 16 آذار، "
    "فيما نقل المئات من الجرحى لإدلب."
)  # written for these tests in the manner of an agency wire


@pytest.fixture(scope="module")
def found() -> Extraction:
    return extract(WIRE, published=date(2018, 3, 17))


def test_arabic_text_is_recognised() -> None:
    assert is_arabic(WIRE)
    assert not is_arabic("Buses left Aleppo (حلب) on Thursday.")


def test_places_with_clitics_and_descriptive_forms(found: Extraction) -> None:
    read = {p.mention: p.name for p in found.places}
    assert read["حي العامرية"] == "Al-Amiriyah district"
    assert read["ريف حلب الغربي"] == "western Aleppo countryside"
    assert read["معبر الراموسة"] == "Ramouseh"
    assert read["ريف إدلب"] == "Idlib Governorate"  # written "بريف إدلب": the ب is left out
    assert read["إدلب"] == "Idlib"  # written "لإدلب"
    assert all(p.country_code == "SY" for p in found.places)


@pytest.mark.parametrize(
    ("written", "value"),
    [("1500", 1500), ("١٥٠٠", 1500), ("1,500", 1500), ("خمسة آلاف", 5000),
     ("ألف ومئة", 1100), ("عشرين ألف", 20000), ("أربعمئة", 400), ("3 آلاف", 3000)],
)  # fmt: skip
def test_amounts_in_either_script_and_in_words(written: str, value: int) -> None:
    assert parse_amount(written) == value


def test_figures_keep_hedges_ranges_and_their_nouns(found: Extraction) -> None:
    read = {WIRE[f.start : f.end]: (f.value, f.low, f.high, f.qualifier) for f in found.figures}
    assert read["نحو 1500"] == (1500, None, None, "about")
    assert read["٢٠٠"] == (200, None, None, None)
    assert read["ما بين 1300 و1500"] == (None, 1300, 1500, None)
    assert read["المئات"] == (None, 200, 999, None)


def test_times_weekdays_levantine_months_and_clock(found: Extraction) -> None:
    read = {t.text: (t.date, t.local_time) for t in found.times}
    assert read["الخميس"] == ("2018-03-15", "")
    assert read["16 آذار"] == ("2018-03-16", "")
    assert read["الساعة العاشرة صباحا"] == ("", "10:00")


def test_convoys_from_movement_verbs_and_role_words(found: Extraction) -> None:
    drafts = [(d.origin, d.destination, d.via) for d in found.convoys]
    assert drafts[0] == ("Al-Amiriyah district", "western Aleppo countryside", ["Ramouseh"])
    assert drafts[1][1] == "Fuaa and Kafraya (besieged enclave)"
    assert drafts[2][:2] == ("Dūmā", "Qal‘at al Maḑīq")
    rows = draft_rows(found)
    assert (rows[1]["ambulances"], rows[0]["people"]) == ("20", "about 1500")  # سيارة إسعاف
    assert rows[1]["vehicles"] == ""


def test_common_words_are_not_places() -> None:
    text = "وقال المرصد إن الحافلات وصلت، وإن المدنيين بخير، كما أن الجيش انسحب من حلب."
    assert [p.mention for p in extract(text).places] == ["حلب"]


def test_a_back_reference_is_the_last_place_of_its_kind() -> None:
    text = "حاصرت القوات مدينة داريا طويلا. وغادرت عشرات الحافلات المدينة باتجاه إدلب."
    found = extract(text, home=("SY",))
    drafts = [(d.origin, d.destination) for d in found.convoys if d.destination]
    assert drafts == [("Dārayyā", "Idlib")]
