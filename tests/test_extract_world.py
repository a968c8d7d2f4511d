"""Reading reports of crises outside Syria: no country assumed, movements as reported anywhere."""

from __future__ import annotations

from datetime import date

import pytest

from geo.geocoding.geodesy import haversine_km
from geo.reading import extract, read_home

PUBLISHED = date(2023, 5, 1)


def drafts(text: str, **options: object) -> list[tuple[str, str]]:
    found = extract(text, published=PUBLISHED, **options)  # type: ignore[arg-type]
    return [(d.origin, d.destination) for d in found.convoys]


@pytest.mark.parametrize(
    ("text", "homes"),
    [
        ("MARIUPOL, Ukraine (AP) — Buses left the city for Zaporizhzhia.", ("UA",)),
        ("KHARTOUM, Sudan (Reuters) - Fighting went on in Omdurman and Bahri.", ("SD",)),
        ("Families left Khan Younis and Deir al-Balah for Rafah on Tuesday.", ("PS",)),
        ("Buses took people from Madaya and Zabadani to Idlib.", ("SY",)),
        ("The weather was fine and nobody went anywhere.", ()),
    ],
)  # fmt: skip
def test_a_report_tells_where_it_is_from(text: str, homes: tuple[str, ...]) -> None:
    assert read_home(text)[: len(homes) or 1] == homes


def test_a_scenario_home_overrides_what_the_text_suggests() -> None:
    found = extract("Buses left Mariupol.", published=PUBLISHED, home=("ua",))
    assert found.homes == ("UA",)


def test_a_city_spelled_as_its_alias_ends_the_convoy() -> None:
    text = "Buses carrying about 400 civilians left Mariupol on Sunday for Zaporizhzhia."
    found = extract(text, published=PUBLISHED)
    [draft] = found.convoys
    assert (draft.origin, draft.destination) == ("Mariupol", "Zaporizhzhia")
    assert draft.people == ["about 400 civilians"]


@pytest.mark.parametrize(
    ("text", "origin", "destination"),
    [
        ("Thousands of people walked south along the road toward Khan Younis, in Gaza.", "",
         "Khān Yūnis"),
        ("Refugees from El Geneina crossed into Chad at Adre, the UNHCR said.", "Al-Junaynah",
         "Adré"),
        ("Some 2,000 Ukrainians travelled from Lviv into Poland.", "Lviv", "Poland"),
        ("Evacuation flights from Kabul carried 2,000 passengers to Doha.", "Kabul", "Doha"),
    ],
)  # fmt: skip
def test_movements_as_reported_anywhere(text: str, origin: str, destination: str) -> None:
    assert drafts(text)[-1] == (origin, destination)


@pytest.mark.parametrize(
    ("text", "number", "what"),
    [
        ("Flights carried 2,000 passengers out.", 2000, "passengers"),
        ("More than 1,000 foreign nationals were flown out.", 1000, "foreign nationals"),
        ("About 100,000 ethnic Armenians fled.", 100000, "ethnic Armenians"),
        ("The agency moved 35 staff to Port Sudan.", 35, "staff"),
    ],
)  # fmt: skip
def test_figures_of_passengers_nationals_and_staff(text: str, number: int, what: str) -> None:
    [figure] = extract(text, published=PUBLISHED).figures
    assert (figure.value, figure.what) == (number, what)


def test_flights_and_boats_are_vehicles() -> None:
    [draft] = extract("Twelve flights left Kabul with evacuees.", published=PUBLISHED).convoys
    assert draft.vehicles == ["12 flights"]


@pytest.mark.parametrize(
    ("mention", "near", "km"),
    [
        ("southern Lebanon", (33.3, 35.4), 40),
        ("eastern Ukraine", (48.3, 37.8), 120),
        ("north-east Nigeria", (11.5, 12.5), 250),
    ],
)  # fmt: skip
def test_part_of_a_country_is_that_part_not_its_capital(
    mention: str, near: tuple[float, float], km: float
) -> None:
    text = f"Thousands fled {mention} on Monday, aid groups said."
    [place] = [p for p in extract(text, published=PUBLISHED).places if p.mention == mention]
    assert haversine_km(*near, place.latitude, place.longitude) <= km


def test_a_unit_named_after_a_place_is_no_place() -> None:
    text = "Fighters of the Azov regiment stayed in Mariupol, Ukraine."
    assert [p.mention for p in extract(text, published=PUBLISHED).places] == ["Mariupol", "Ukraine"]


@pytest.mark.parametrize(
    ("text", "low", "high", "what"),
    [
        ("Thousands flee Khartoum by bus.", 2000, 9999, "people"),
        ("Several hundred Americans were driven to Port Sudan.", 200, 999, "Americans"),
        ("Hundreds more foreign passport holders left.", 200, 999, "foreign passport holders"),
    ],
)  # fmt: skip
def test_vague_counts_of_wire_headlines(text: str, low: int, high: int, what: str) -> None:
    [figure] = extract(text, published=PUBLISHED).figures
    assert (figure.low, figure.high, figure.what) == (low, high, what)


def test_of_them_counts_what_the_sentence_spoke_of() -> None:
    text = "The buses, some 50 of them, left Potocari; more than 1.2 million of them fled."
    figures = extract(text, published=PUBLISHED).figures
    assert [(f.value, f.what) for f in figures] == [(50, "buses"), (1_200_000, "people")]


@pytest.mark.parametrize(
    ("text", "origin", "destination"),
    [
        ("From Lviv, many travel on by train to Przemysl.", "Lviv", "Przemyśl"),
        ("Thousands of Srebrenica refugees reach Tuzla.", "Srebrenica", "Tuzla"),
        ("Others drove from Khartoum to Port Sudan, where ships carry them to Jeddah.",
         "Khartoum", "Port Sudan"),
        ("Thousands of civilians streamed out of Irpin toward Kyiv.", "Irpin", "Kyiv"),
    ],
)  # fmt: skip
def test_where_from_and_where_to_in_wire_copy(text: str, origin: str, destination: str) -> None:
    assert drafts(text)[-1] == (origin, destination)


def test_a_role_word_before_another_place_is_that_place_s() -> None:
    text = "Thousands more flee El Geneina into Chad as violence in West Darfur escalates."
    assert drafts(text) == [("Al-Junaynah", "Chad")]


def test_entering_a_country_ends_a_movement() -> None:
    assert drafts("More than 28,000 people had entered Armenia by Tuesday.") == [("", "Armenia")]


@pytest.mark.parametrize(
    ("text", "origin", "destination"),
    [
        # a second destination word starts another group's journey unless it goes on
        ("Hundreds have left for Sana'a, and others went south towards Aden.", "", "Sanaa"),
        ("Families fled to Zabid and to Hays.", "", "Zabīd"),
        ("The buses went to al-Rashidin, then on to Idlib.", "", "Idlib"),
        # fled an attack on a place: the place is where they came from
        ("Boats with people who fled an attack on the port town of Palma docked in Pemba.",
         "Palma", "Pemba"),
        ("About 900 refugees were crossing daily at Hamdayet.", "", "Hamdayet"),
    ],
)  # fmt: skip
def test_journeys_of_wire_and_agency_copy(text: str, origin: str, destination: str) -> None:
    assert drafts(text)[0] == (origin, destination)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Hundreds reached Sana'a by road.", "Sanaa"),  # no SANA, the news agency, inside it
        ("Residents of Sana\u2019a queued for water.", "Sanaa"),  # a typographic apostrophe
    ],
)
def test_an_apostrophe_inside_a_name_keeps_the_name(text: str, name: str) -> None:
    assert [p.name for p in extract(text, published=PUBLISHED).places] == [name]


def test_the_news_agency_is_still_no_place() -> None:
    assert extract("SANA's correspondent said buses left.", published=PUBLISHED).places == []


def test_a_numbered_milestone_is_no_namesake_abroad() -> None:
    text = "The road through Kilo 16 stayed open, aid workers in Al Hudaydah said."
    assert [p.name for p in extract(text, published=PUBLISHED).places] == ["Al Ḩudaydah"]


@pytest.mark.parametrize(
    "text",
    [
        "More than 2,000 Haitians were deported across the border.",
        "Sudanese officials said the road was closed.",
        "Some Ethiopians walked for days.",
        "Israeli strikes hit the area.",
    ],
)
def test_a_country_s_people_are_no_place(text: str) -> None:
    assert extract(text, published=PUBLISHED).places == []


def test_a_sentence_s_first_word_is_no_village_spelled_alike() -> None:
    found = extract("About 300 people left Marawi on Friday.", published=PUBLISHED, home=("PH",))
    assert [p.mention for p in found.places] == ["Marawi"]


@pytest.mark.parametrize(
    ("text", "origin", "destination"),
    [
        ("About 500 people were deported from Chad to Sudan on Monday.", "Chad", "Sudan"),
        ("Others stopped in Iligan on the way.", "", "Iligan"),
        ("Families left Renk for Malakal by boat.", "Renk", "Malakal"),
    ],
)
def test_deported_and_stopping_are_movements(text: str, origin: str, destination: str) -> None:
    assert drafts(text)[0] == (origin, destination)


@pytest.mark.parametrize(
    ("text", "origin", "destination"),
    [
        ("Special trains carried some 3,000 people from Lviv to Przemysl overnight.", "Lviv",
         "Przemyśl"),
        ("Some families from Gonaives went instead to relatives in Hinche.", "Gonaïves",
         "Hinche"),
        ("About 30 trucks made repeated trips from Goma along the lakeside road to Bukavu.",
         "Goma", "Bukavu"),
        ("Fishermen in small boats took people from Beira to Quelimane.", "Beira", "Quelimane"),
        ("Thousands of Yazidis came down from Sinjar to camps at Dohuk.", "Sinjār", "Dihok"),
    ],
)  # fmt: skip
def test_carrying_taking_going_and_trips_are_movements(
    text: str, origin: str, destination: str
) -> None:
    assert drafts(text)[0] == (origin, destination)


def test_a_ship_anchored_off_a_port_takes_people_from_it() -> None:
    text = "Two navy ships anchored off Tripoli on Friday and took about 150 foreigners to Malta."
    assert drafts(text)[0] == ("Tripoli", "Malta")


def test_where_a_road_ends_is_no_destination() -> None:
    text = "On the south coast, where the road ends at Jacmel, boats took people from Marigot to "
    assert drafts(text + "Les Cayes.")[0] == ("Marigot", "Les Cayes")


@pytest.mark.parametrize(
    ("text", "origin", "destination"),
    [
        ("Trains packed with families continue to arrive from Lviv (Львів) at Przemysl, where "
         "volunteers wait.", "Lviv", "Przemyśl"),
        ("Buses arriving from Kherson at Mykolaiv were met by volunteers.", "Kherson",
         "Mykolayiv"),
        ("Buses arriving from homes in Kherson at dawn were met by volunteers.", "Kherson", ""),
    ],
)  # fmt: skip
def test_arriving_from_one_place_at_another(text: str, origin: str, destination: str) -> None:
    assert drafts(text)[0] == (origin, destination)


@pytest.mark.parametrize(
    ("text", "destination"),
    [
        ("Two navy ships took about 300 foreigners to Cyprus, with others to follow to Valletta "
         "and Athens.", "Cyprus"),
        ("Some 2,000 Ukrainians travelled from Lviv into Poland, then on to Berlin.", "Berlin"),
        ("Refugees from El Geneina crossed into Chad at Adre.", "Adré"),
    ],
)  # fmt: skip
def test_a_country_ends_a_journey_unless_it_goes_on(text: str, destination: str) -> None:
    assert drafts(text)[0][1] == destination


@pytest.mark.parametrize(
    ("text", "home", "name", "country"),
    [
        ("Refugees reached Adre on foot.", ("SD", "TD"), "Adré", "TD"),  # not Adra, Syria
        ("Families reached Palma by boat.", ("TZ", "MZ"), "Palma", "MZ"),  # not Majorca's
    ],
)
def test_a_name_of_the_report_s_second_country_is_not_sent_abroad(
    text: str, home: tuple[str, ...], name: str, country: str
) -> None:
    found = extract(text, published=PUBLISHED, home=home)
    assert [(p.name, p.country_code) for p in found.places] == [(name, country)]


def test_a_cleared_camp_is_where_people_are_moved_from() -> None:
    text = "Troops emptied the villages around Sinjar and took families to Dohuk."
    assert drafts(text)[0] == ("Sinjār", "Dihok")
    text = "French police cleared the camp near Calais and took 7,000 migrants to France."
    assert drafts(text)[0] == ("Calais", "France")


@pytest.mark.parametrize(
    ("text", "home", "names"),
    [
        (
            "Boats left Sittwe (Akyab) for Cox's Bazar.",
            "BD",
            ["Sittwe", "Sittwe", "Cox\u2019s Bāzār"],
        ),
        ("Buses left Uvira (Uvila) for Bujumbura.", "BI", ["Uvira", "Bujumbura"]),  # no Ovilla
        ("Families fled Bucha (Буча) for Lviv.", "PL", ["Bucha", "Bucha", "Lviv"]),
        ("The Islamic State of Iraq and the Levant (ISIL) said so.", "", []),
    ],
)
def test_a_name_in_brackets_after_a_place_is_its_other_spelling(
    text: str, home: str, names: list[str]
) -> None:
    found = extract(text, published=PUBLISHED, home=(home,) if home else ())
    assert [p.name for p in found.places] == names


@pytest.mark.parametrize(
    "text",
    [
        "Thai officials said the road was closed.",
        "The Swiss embassy and Filipino workers waited.",
        "The regional governor, in a statement - About 300 people waited.",
    ],
)
def test_a_people_s_word_and_about_are_no_place(text: str) -> None:
    assert extract(text, published=PUBLISHED).places == []


def test_a_name_followed_by_an_age_is_a_person() -> None:
    text = '"We left at night," said Olena, 61, who reached Lviv by train.'
    found = extract(text, published=PUBLISHED, home=("UA",))
    assert [p.mention for p in found.places] == ["Lviv"]
    assert found.figures == []


def test_words_in_lower_case_are_no_place_name() -> None:
    found = extract("Boats left the west coast for Lviv.", published=PUBLISHED)
    assert [p.mention for p in found.places] == ["Lviv"]


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("Families drove north on Highway 35 with their children to Grande Prairie.", []),
        ("Air force C-130 planes landed in Kabul.", []),
        ('"We ran," said Ana Lopez, 29, who crossed from Tijuana with her two sons.', [2]),
    ],
)
def test_a_road_number_a_model_and_an_age_are_no_count(text: str, values: list[int]) -> None:
    assert [f.value for f in extract(text, published=PUBLISHED).figures] == values


def test_a_count_after_a_comma_and_a_place_is_still_a_count() -> None:
    text = "In Goma, 40 buses left for Sake, and in Bukavu, 12 more waited."
    figures = extract(text, published=PUBLISHED).figures
    assert [(f.value, f.what) for f in figures][:1] == [(40, "buses")]


@pytest.mark.parametrize(
    ("text", "value", "what"),
    [
        ("Thousands drove south to Lviv.", None, "people"),
        ("The fighting drove thousands from villages near Goma.", None, "people"),
        ("About 2,000 others fled north to Kharkiv.", 2000, "others"),
        ("She crossed with her two sons and three grandchildren.", 2, "sons"),
    ],
)  # fmt: skip
def test_more_ways_of_counting_people(text: str, value: int | None, what: str) -> None:
    figure = extract(text, published=PUBLISHED).figures[0]
    assert (figure.value, figure.what.split()[0]) == (value, what)


@pytest.mark.parametrize(
    ("text", "origin", "destination"),
    [
        ("The fire forced more than 10,000 people out of Lahaina on Tuesday.", "Lahaina", ""),
        ("More than 5,000 people crossed from Ukraine at Medyka on Sunday.", "Ukraine",
         "Medyka"),
        ("A ship took 500 residents from Guiuan, where the storm made landfall in Eastern "
         "Samar, to Cebu.", "Guiuan", "Cebu City"),
        ("The shelter at Goma had to be emptied on Wednesday.", "Goma", ""),
    ],
)  # fmt: skip
def test_forced_out_crossed_from_at_landfall_and_emptied(
    text: str, origin: str, destination: str
) -> None:
    assert drafts(text)[0] == (origin, destination)


@pytest.mark.parametrize(
    ("text", "origin", "destination"),
    [
        ("Buses took 40 residents of a care home in Lahaina to a hospital in Kahului.",
         "Lahaina", "Kahului"),
        ("About 900 residents of Mocoa were moved by bus to Pasto on Sunday.", "Mocoa", "Pasto"),
    ],
)  # fmt: skip
def test_the_residents_of_a_place_moved_or_taken_left_it(
    text: str, origin: str, destination: str
) -> None:
    assert drafts(text)[0] == (origin, destination)


@pytest.mark.parametrize(
    ("text", "origin", "destination"),
    [
        ("In Chad, about 2,000 people who crossed from El Geneina have been registered.",
         "Al-Junaynah", "Chad"),
        ("In Niger, about 500 new arrivals from Menaka have been registered.", "Ménaka",
         "Niger"),
        ("In Mosul, rescue teams took 300 people off rooftops and brought them to a camp in "
         "Erbil.", "Mosul", "Erbil"),
        ("In Kharkiv, about 500 people were taken by bus to Dnipro on Monday.", "Kharkiv",
         "Dnipro"),
    ],
)  # fmt: skip
def test_a_sentence_that_opens_on_its_place(text: str, origin: str, destination: str) -> None:
    assert drafts(text)[0] == (origin, destination)


@pytest.mark.parametrize(
    ("text", "origin", "destination"),
    [
        ("Some 200 tourists staying in Lahaina were driven by bus to Kahului.", "Lahaina",
         "Kahului"),
        ("About 400 inmates of the prison in Kherson were moved to Mykolaiv.", "Kherson",
         "Mykolayiv"),
        ("Olena, who left Kharkiv, spent the night at her sister's flat in Lviv.", "Kharkiv",
         "Lviv"),
        ("Shelters in Dnipro and Poltava took in more than 900 people on Sunday.", "", "Dnipro"),
        ("About 1,000 people from Mosul had been given shelter in Erbil.", "Mosul", "Erbil"),
        ("Army helicopters lifted 40 people from Derna to Benghazi.", "Derna", "Benghazi"),
        ("Thousands fled Kherson and crossed into the Mykolaiv region on foot.", "Kherson",
         "Mykolaiv Oblast"),
        ("She drove to Uzhhorod on Friday when police opened the road west into Zakarpattia.",
         "", "Uzhhorod"),
        ("She drove to Lviv on Friday when police opened the road west into the Volyn region.",
         "", "Lviv"),
    ],
)  # fmt: skip
def test_where_people_stayed_were_taken_in_or_crossed_into(
    text: str, origin: str, destination: str
) -> None:
    assert drafts(text)[0] == (origin, destination)


@pytest.mark.parametrize(
    "text",
    [
        "Uzbek officials and Kazakh border guards said the crossing was shut.",
        "Hercules transport planes and Chinook helicopters were sent.",
    ],
)
def test_a_people_less_its_stan_and_an_aircraft_are_no_place(text: str) -> None:
    assert extract(text, published=PUBLISHED).places == []


def test_tourists_and_inmates_are_counted() -> None:
    text = "Some 500 tourists and about 700 inmates were moved to Mykolaiv."
    figures = extract(text, published=PUBLISHED).figures
    assert [(f.value, f.what) for f in figures] == [(500, "tourists"), (700, "inmates")]


def test_futaba_in_a_report_about_fukushima_is_the_town_by_the_plant() -> None:
    text = (
        "Residents of Futaba were taken by bus to a hall in Saitama, north of Tokyo. Others "
        "from Namie, Okuma and Tomioka went to Koriyama."
    )
    futaba = extract(text, published=PUBLISHED).places[0]
    assert (futaba.mention, round(futaba.latitude), round(futaba.longitude)) == ("Futaba", 37, 141)


def test_a_district_of_a_town_at_home_is_no_namesake_abroad() -> None:
    text = "OSH, Kyrgyzstan (Reuters) - A woman from the Cheremushki district of Osh fled."
    found = extract(text, published=PUBLISHED)
    assert ([p.country_code for p in found.places], drafts(text)) == (
        ["KG", "KG", "KG"],
        [("Osh", "")],
    )


def test_people_helped_to_move_leave_where_they_were() -> None:
    text = "Volunteers helped move about 160 residents of a care home in Kherson to Odesa."
    assert drafts(text) == [("Kherson", "Odesa")]


def test_the_village_of_a_new_name_is_no_back_reference() -> None:
    text = (
        "Shelling hit Irpin and Bucha on Sunday. A woman who came down from the village of "
        "Zzyzxvil said she walked for hours. Families left the town on foot."
    )
    assert drafts(text) == [("Bucha", "")]


@pytest.mark.parametrize(
    ("text", "country"),
    [
        ("NASSAU, Bahamas (AP) - A ferry took 1,400 people from Freeport to Florida.", "US"),
        ("CAMAGUEY, Cuba (Reuters) - Buses took 300 people from Nuevitas to Florida, a town "
         "west of Camaguey.", "CU"),
    ],
)  # fmt: skip
def test_florida_is_the_us_state_unless_the_report_is_about_cuba(text: str, country: str) -> None:
    florida = [p for p in extract(text, published=PUBLISHED).places if p.mention == "Florida"]
    assert [p.country_code for p in florida] == [country]


@pytest.mark.parametrize(
    ("text", "mention", "country"),
    [
        ("JUBA, South Sudan (Reuters) - About 2,000 people fled Jonglei by boat for Juba.",
         "Jonglei", "SS"),
        ("DEHRADUN, India (PTI) - Army trucks took 300 pilgrims out of Uttarakhand.",
         "Uttarakhand", "IN"),
        ("BRISBANE, Australia (AP) - Floods forced 2,000 people from their homes in Queensland.",
         "Queensland", "AU"),
    ],
)  # fmt: skip
def test_a_first_level_division_is_found_by_its_bare_name(
    text: str, mention: str, country: str
) -> None:
    found = [p for p in extract(text, published=PUBLISHED).places if p.mention == mention]
    assert [(p.country_code, p.kind) for p in found] == [(country, "region")]


def test_a_city_named_as_its_division_stays_the_city() -> None:
    text = "KHERSON, Ukraine (AP) - Buses left Kherson for Mykolaiv."
    kherson = [p for p in extract(text, published=PUBLISHED).places if p.mention == "Kherson"]
    assert [p.kind for p in kherson] == ["town"]  # the body's; GeoNames has it at 66,000


def test_a_people_named_as_its_division_is_no_place() -> None:
    text = (
        "NAZRAN, Russia (AP) - Ingush officials said buses took 2,000 people from Grozny to "
        "camps in Ingushetia, and the Ingush president asked Moscow for tents."
    )
    places = extract(text, published=PUBLISHED).places
    assert "Ingush" not in [p.mention for p in places]  # the people, not the republic
    assert [p.kind for p in places if p.mention == "Ingushetia"] == ["region"]
