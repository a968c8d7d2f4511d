"""Links to a view: what the dashboard writes in its URL reads back as the same view, and a
link typed or garbled by hand opens what can be read of it (what streamlit-folium reports too)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from geo import mapview
from geo.mapview import MapView, permalink
from geo.mapview.place_labels import LabelLanguage

AT = datetime(2016, 12, 15, 13, 0, tzinfo=UTC)


def test_a_written_link_reads_back_as_the_same_view() -> None:
    view = MapView(
        at=AT.astimezone(timezone(timedelta(hours=2))),
        layers=frozenset({"routes", "zones-besieged"}),
        base="osm",
        selected="convoy-1",
        labels=LabelLanguage.BOTH,
    )
    params = permalink.query(view, center=(36.2, 37.15), zoom=11.5, language="ar")
    assert params == {
        "at": "2016-12-15T13:00Z",
        "layers": "zones-besieged,routes",
        "base": "osm",
        "center": "36.20000,37.15000",
        "zoom": "11.5",
        "convoy": "convoy-1",
        "lang": "ar",
        "labels": "both",
    }
    link = permalink.read(params, ["convoy-1"])
    assert link == permalink.Link(
        at=AT,
        layers=view.layers,
        base="osm",
        convoy="convoy-1",
        center=(36.2, 37.15),
        zoom=11.5,
        language="ar",
        labels="both",
    )


def test_a_link_without_a_query_is_the_default_view() -> None:
    assert permalink.read({}) == permalink.Link()
    assert permalink.read({}).layers == frozenset(mapview.DEFAULT_LAYERS)


@pytest.mark.parametrize(
    ("params", "field", "expected"),
    [
        ({"at": "2016-12-15T13:00"}, "at", None),  # no offset: which 13:00?
        ({"at": "yesterday"}, "at", None),
        ({"layers": "routes,<script>,risk"}, "layers", frozenset({"routes", "risk"})),
        ({"layers": ""}, "layers", frozenset()),  # every overlay switched off
        ({"base": "https://tiles.example"}, "base", "offline"),
        ({"convoy": "convoy-9"}, "convoy", None),
        ({"center": "36.2"}, "center", None),
        ({"center": "91,37"}, "center", None),
        ({"center": "nan,37"}, "center", None),
        ({"zoom": "3"}, "zoom", None),
        ({"zoom": "inf"}, "zoom", None),
        ({"zoom": "nan"}, "zoom", None),
        ({"lang": "fr"}, "language", "en"),
        ({"labels": "ar"}, "labels", "ar"),
        ({"labels": "tr"}, "labels", "en"),
    ],
)
def test_what_a_link_gets_wrong_is_left_out(
    params: dict[str, str], field: str, expected: object
) -> None:
    assert getattr(permalink.read(params, ["convoy-1"]), field) == expected


def test_the_view_streamlit_folium_reports() -> None:
    returned = {
        "center": {"lat": 36.2, "lng": 37.1},
        "zoom": 10,
        "bounds": {
            "_southWest": {"lat": 36.0, "lng": 36.9},
            "_northEast": {"lat": 36.4, "lng": 37.3},
        },
    }
    assert mapview.reported_view(returned) == {
        "center": (36.2, 37.1),
        "zoom": 10.0,
        "bounds": [[36.0, 36.9], [36.4, 37.3]],
    }
    assert mapview.reported_view({**returned, "bounds": {"_southWest": None}})["bounds"] is None
    assert mapview.reported_view({"center": None, "zoom": None}) is None  # not drawn yet
    assert mapview.reported_view({"center": {"lat": "x"}, "zoom": 3}) is None
