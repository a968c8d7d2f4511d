"""Shared fixtures: the tiny scenario, an editable copy of it, and small editors for its files."""

from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, sync_playwright

from geo.chromium import LAUNCH_ARGS, find_chromium

TESTS_DIR = Path(__file__).parent
TINY_DIR = TESTS_DIR / "data" / "scenarios" / "tiny"
SHIPPED_DIR = TESTS_DIR.parent / "data" / "scenarios" / "aleppo-2016-12"


@pytest.fixture
def tiny_dir() -> Path:
    """The tiny scenario fixture (read only)."""
    return TINY_DIR


@pytest.fixture
def shipped_dir() -> Path:
    """The shipped Aleppo scenario (read only)."""
    return SHIPPED_DIR


@pytest.fixture
def tiny_copy(tmp_path: Path) -> Path:
    """A copy of the tiny scenario that a test may edit; its folder is named after its id."""
    return Path(shutil.copytree(TINY_DIR, tmp_path / "tiny"))


@pytest.fixture
def edit_csv(tiny_copy: Path) -> Callable[..., None]:
    """edit_csv("convoys.csv", "c1", depart="..."): set cells of the row with that id.

    A column that is not there yet is added (empty in the other rows).
    """

    def edit(file: str, row_id: str, /, **cells: str) -> None:
        path = tiny_copy / file
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            columns, rows = list(reader.fieldnames or []), list(reader)
        columns += [column for column in cells if column not in columns]
        matching = [row for row in rows if row["id"] == row_id]
        assert matching, f"no row {row_id!r} in {file}"
        matching[0].update(cells)
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)

    return edit


@pytest.fixture
def edit_feature(tiny_copy: Path) -> Callable[..., None]:
    """edit_feature("zones.geojson", "z1", geometry={...}, control="..."): change one feature."""

    def edit(name: str, feature_id: str, geometry: Any = None, **props: Any) -> None:
        path = tiny_copy / name
        document = json.loads(path.read_text(encoding="utf-8"))
        matching = [f for f in document["features"] if f["properties"]["id"] == feature_id]
        assert matching, f"no feature {feature_id!r} in {name}"
        matching[0]["properties"].update(props)
        if geometry is not None:
            matching[0]["geometry"] = geometry
        path.write_text(json.dumps(document), encoding="utf-8")

    return edit


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """The system Chromium, headless, for one test module (Playwright's sync API allows one
    running instance per thread, so modules take turns)."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=find_chromium(), headless=True, args=list(LAUNCH_ARGS)
        )
        yield chromium
        chromium.close()
