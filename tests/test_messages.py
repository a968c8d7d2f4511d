"""The dashboard's own words: every message it shows has its Arabic, with the same placeholders."""

from __future__ import annotations

import ast
import calendar
import pickle
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import SHIPPED_DIR

from geo import export, messages, tables
from geo.analysis import Reason, said
from geo.errors import ValidationError
from geo.mapview import BASES, LAYER_LABELS, MapView, layers
from geo.mapview.layers import HEADED_TO_NOTE
from geo.mapview.legend import PLACE_LEGEND, ROUTE_LEGEND
from geo.mapview.place_labels import LABEL_LANGUAGES
from geo.mapview.symbols import APPROXIMATE_NOTE, RISK_COLOURS
from geo.readers import LAYERS
from geo.records import (
    CONVOY_COUNTS,
    Confidence,
    Control,
    ConvoyStatus,
    Count,
    FigureKind,
    PlaceKind,
    PlacePrecision,
    Qualifier,
    RoutePrecision,
    TimePrecision,
    ZonePrecision,
)
from geo.scenario import read_scenario
from geo.timeline import ConvoyState, count_text

ROOT = Path(__file__).resolve().parent.parent


def messages_in(path: Path) -> set[str]:
    """Every string literal a page hands to t(...), words(...), messages.say(language, ...) or
    spoken(sentence, pattern, ...) (From a report's English sentences said again)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else ""
        method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        position = {"t": 0, "words": 0, "spoken": 2}.get(name, 1 if method == "say" else None)
        if position is None or len(node.args) <= position:
            continue
        message = node.args[position]
        choices = [message.body, message.orelse] if isinstance(message, ast.IfExp) else [message]
        found |= {
            c.value for c in choices if isinstance(c, ast.Constant) and isinstance(c.value, str)
        }
    return found


PAGES = sorted((ROOT / "pages").glob("*.py")) + sorted((ROOT / "pages" / "shared").glob("*.py"))


def test_every_message_of_the_dashboard_has_its_arabic() -> None:
    """Every page's words (the map, From a report, Import and edit, New scenario, and what
    they share), and the import summary's."""
    found = {path.name: messages_in(path) for path in PAGES}
    assert {"Layers", "(not stated)", "any time before"} <= found["map.py"]  # the parse finds them
    assert "Convoy drafts: review, edit, tick the ones to add" in found["from_a_report.py"]
    assert any(m.startswith("Left out “{label}”") for m in found["from_a_report.py"])
    assert {"Edit convoys", "Save {count} changed convoy(s)"} <= found["import_and_edit.py"]
    assert "Create the scenario" in found["new_scenario.py"]
    assert "Your name (for the change log)" in found["session.py"]
    shown = set().union(*found.values()) | messages_in(ROOT / "geo" / "importing" / "flow.py")
    assert "{rejected} rejected, {warnings} warning(s)" in shown
    shown |= set(LAYER_LABELS.values()) | set(BASES.values()) | set(LABEL_LANGUAGES.values())
    shown |= {s.value for s in ConvoyStatus} | {c.value for c in Confidence}
    shown |= set(export.FORMAT_LABELS.values())
    # what named(), headed() and day_said() look up: layers, actions, months (long and short)
    shown |= set(LAYERS) | {"sources", "add", "update", "delete", "error", "warning"}
    shown |= set(calendar.month_name[1:]) | set(calendar.month_abbr[1:])
    missing = sorted(shown - set(messages.catalogue("ar")))
    assert missing == []


def test_every_message_of_the_map_has_its_arabic() -> None:
    """The map's title, legend, layer names and popups (geo.mapview), as the dashboard shows
    them in Arabic."""
    shown = set().union(*(messages_in(path) for path in (ROOT / "geo" / "mapview").glob("*.py")))
    assert {"Held by", "Legend", "As of {time}"} <= shown  # the parse finds them
    shown |= set(LAYER_LABELS.values()) | set(PLACE_LEGEND.values())
    shown |= {label for _, label in ROUTE_LEGEND} | {s.value for s in ConvoyState}
    shown |= {c.value for c in Control} | {k.value for k in PlaceKind}
    for precision in (PlacePrecision, RoutePrecision, ZonePrecision, TimePrecision):
        shown |= {p.value for p in precision}
    shown |= {k.value.replace("_", " ") for k in FigureKind}
    shown |= {label.capitalize() for label in CONVOY_COUNTS} | set(RISK_COLOURS)
    shown |= {s.value.replace("_", " ") for s in ConvoyStatus} | {APPROXIMATE_NOTE, HEADED_TO_NOTE}
    missing = sorted(shown - set(messages.catalogue("ar")))
    assert missing == []


def test_a_message_without_an_entry_stays_english() -> None:
    assert messages.words("ar")("Layers") == "الطبقات"
    assert messages.words("ar")("A message nobody translated") == "A message nobody translated"
    assert messages.words("en")("Layers") == "Layers"


def test_values_in_arabic_text_keep_their_own_direction() -> None:
    said = messages.say("ar", "{time} · 15-minute steps", time="2016-12-15 13:00 UTC")
    assert said == "\u20682016-12-15 13:00 UTC\u2069 · خطوات من 15 دقيقة"
    assert messages.say("en", "{time} · 15-minute steps", time="13:00") == "13:00 · 15-minute steps"


def test_a_translation_that_loses_a_placeholder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "ar.csv").write_text(
        "english,arabic\nLayers,الطبقات\nAs of {time},حتى الوقت\n", encoding="utf-8"
    )
    with pytest.raises(
        ValidationError,
        match=r"ar\.csv, row 3, field 'arabic': expected the placeholders \['time'\]",
    ):
        messages.catalogue("ar", tmp_path)


def test_an_unknown_interface_language_is_refused() -> None:
    with pytest.raises(ValidationError, match="expected one of en, ar, got 'fr'"):
        messages.catalogue("fr")


def test_arabic_reads_right_to_left() -> None:
    assert messages.direction("ar") == "rtl"
    assert messages.direction("en") == "ltr"


def test_every_page_has_its_name_in_arabic_and_in_title_case() -> None:
    tree = ast.parse((ROOT / "dashboard.py").read_text(encoding="utf-8"))
    (pages,) = [
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "PAGES"
    ]
    names = [name for _, name, _ in pages]
    assert names == ["Map", "From a report", "Import and edit", "New scenario"]
    assert all((ROOT / path).is_file() for path, _, _ in pages)
    arabic = messages.catalogue("ar")
    assert [arabic.get(name) for name in names] == [
        "الخريطة", "من تقرير", "استيراد وتحرير", "سيناريو جديد"
    ]  # fmt: skip


def test_every_table_heading_of_the_dashboard_has_its_arabic() -> None:
    shipped = read_scenario(SHIPPED_DIR)
    view = MapView(at=datetime(2016, 12, 15, 15, tzinfo=UTC), layers=frozenset({"risk"}))
    risks = layers.alerts(shipped, view) or {}
    shown = {c.id for c in shipped.convoys}
    frames = [
        tables.shown_convoys(shipped, view.at, shown, risks=risks),
        tables.risk_table(list(risks.values())),
    ]
    columns = [str(c) for frame in frames for c in frame.columns]
    assert {"convoy", "departs (UTC)", "length (km)", "because"} <= set(columns)
    arabic = messages.headings("ar", columns)
    untranslated = [c for c, heading in arabic.items() if heading == c]
    assert untranslated == []
    assert arabic["departs (UTC)"] == "الانطلاق (UTC)"
    assert arabic["length (km)"] == "الطول (كم)"
    assert messages.headings("en", columns) == {c: c for c in columns}


def test_every_risk_reason_and_count_qualifier_has_its_arabic() -> None:
    tree = ast.parse((ROOT / "geo" / "analysis.py").read_text(encoding="utf-8"))
    reasons = {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Reason"
        and isinstance(node.args[0], ast.Constant)
    }  # fmt: skip
    assert len(reasons) == 5
    qualifiers = {q.value for q in Qualifier}
    arabic = messages.catalogue("ar")
    assert sorted((reasons | qualifiers | {"and"}) - set(arabic)) == []
    for reason in reasons:
        assert messages.placeholders(reason) == messages.placeholders(arabic[reason]), reason


def test_a_risk_reason_is_english_text_and_is_said_in_arabic_on_the_map() -> None:
    reason = Reason(
        "runs {km} km through {grounds} ground", km="2.5", grounds=("besieged", "contested")
    )
    assert reason == "runs 2.5 km through besieged and contested ground"
    kept = pickle.loads(pickle.dumps(reason))  # (as a cache keeps it)
    arabic = said(kept, messages.Words("ar"))
    assert "محاصرة و متنازع عليها" in arabic
    assert arabic.startswith("يمر ")
    assert "2.5" in arabic
    assert said(kept, messages.Words("en")) == reason
    assert said("plain text", messages.Words("ar")) == "plain text"
    assert count_text(Count.parse("about 3000"), messages.Words("ar")) == "نحو 3,000"
