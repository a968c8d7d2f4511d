#!/usr/bin/env python3
"""Regenerate every reference image that tests/test_export.py compares PNG snapshots with.

    .venv/bin/python scripts/update_reference_images.py

Run it after a deliberate change to how snapshots look (or after a Chromium or font update that
moves pixels), look at each image it writes, and commit them with the change. The images are
the shipped scenario at 2016-12-15 13:00 UTC with every layer on, one per size in SIZES:
480x300 shows the page around the map (at that size the header and footer leave the map no
room), 800x500 also shows the map itself.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from geo import export  # noqa: E402
from geo.mapview import MapView  # noqa: E402
from geo.records import Scenario  # noqa: E402
from geo.scenario import read_scenario  # noqa: E402

REFERENCE_DIR = ROOT / "tests" / "data" / "reference"
SCENARIO_DIR = ROOT / "data" / "scenarios" / "aleppo-2016-12"
AT = datetime(2016, 12, 15, 13, 0, tzinfo=UTC)
CREATED = datetime(2026, 1, 1, tzinfo=UTC)
SIZES = ((480, 300), (800, 500))


def reference_path(width: int, height: int) -> Path:
    return REFERENCE_DIR / f"aleppo-2016-12T1300Z-{width}x{height}.png"


def reference_snapshot(scenario: Scenario, width: int, height: int) -> export.Snapshot:
    """The snapshot a reference image shows (scale 1, a fixed creation time)."""
    return export.Snapshot(
        scenario, MapView(at=AT), width=width, height=height, scale=1.0, created=CREATED
    )


def main() -> int:
    scenario = read_scenario(SCENARIO_DIR)
    REFERENCE_DIR.mkdir(parents=True, exist_ok=True)
    for width, height in SIZES:
        target = reference_path(width, height)
        export.export(reference_snapshot(scenario, width, height), "png", target)
        print(f"{target.relative_to(ROOT)}: {target.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
