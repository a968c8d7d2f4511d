"""Write convoy-1.csv beside this script: an invented track along convoy-1's planned route.

Run from the repository root:

    .venv/bin/python tests/data/tracking/make_track.py

The points are worked out from the shipped scenario's route for convoy-1 (the Aleppo
evacuation of 15 December 2016), projected to UTM zone 37N (EPSG:32637) here, independently of
geo.tracking. Each row is (minute after 12:00 UTC, metres along the route, metres to the side
of it, speed in km/h or None, note). Nobody drove this track: it is test data.
"""

from __future__ import annotations

import csv
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

import pyproj  # noqa: E402
import shapely  # noqa: E402
from shapely.geometry import LineString, Point  # noqa: E402

from geo import timeline  # noqa: E402
from geo.scenario import read_scenario  # noqa: E402

NOON = datetime(2016, 12, 15, 12, 0, tzinfo=UTC)
ALEPPO = timezone(timedelta(hours=2))
END = -1.0  # stands for the route's full length
STOP_AT = 5_100.0
TRACK: list[tuple[int, float, float, float | None, str]] = [
    (25, 0, 0, None, "waiting at the crossing (before departure)"),
    (30, 0, 0, 0, "departed"),
    (34, 1_300, 0, None, ""),
    (38, 2_600, 0, 20, ""),
    (42, 3_900, 0, None, ""),
    (46, STOP_AT, 0, 0, "stopped at a checkpoint"),
    (50, STOP_AT + 3, 2, None, ""),
    (54, STOP_AT - 2, -3, None, ""),
    (58, STOP_AT + 4, 1, None, ""),
    (62, STOP_AT - 3, 0, None, ""),
    (66, STOP_AT + 2, -2, None, ""),
    (70, STOP_AT, 3, None, "still at the checkpoint"),
    (74, 6_400, 0, None, "moving again"),
    (78, 7_400, -1_700, None, "detour north of the road"),
    (82, 8_200, -1_850, None, "detour"),
    (86, 9_000, 0, None, "back on the route"),
    (90, 10_600, 0, None, ""),
    (94, END, 0, 0, "arrived"),
    (98, END, 3, 0, ""),
]


def route_in_metres() -> tuple[LineString, pyproj.Transformer]:
    scenario = read_scenario(ROOT / "data" / "scenarios" / "aleppo-2016-12", geocode=False)
    line = timeline.route_of(scenario, "convoy-1")
    assert line is not None
    forward = pyproj.Transformer.from_crs(4326, 32637, always_xy=True)
    return LineString([forward.transform(x, y) for x, y in line.coords]), forward


def point_beside(line: LineString, along: float, side: float) -> Point:
    """The point `along` metres down the line and `side` metres to its left (right if < 0)."""
    here = line.interpolate(along)
    ahead = line.interpolate(min(along + 1, line.length))
    behind = line.interpolate(max(along - 1, 0))
    dx, dy = ahead.x - behind.x, ahead.y - behind.y
    norm = (dx * dx + dy * dy) ** 0.5
    return Point(here.x - dy / norm * side, here.y + dx / norm * side)


def main() -> None:
    line, forward = route_in_metres()
    rows = []
    for minute, along, side, speed, note in TRACK:
        point = point_beside(line, line.length if along == END else along, side)
        if abs(side) > 1_000:
            assert 1_500 <= shapely.distance(line, point) <= 2_000, "the detour leaves the route"
        lon, lat = forward.transform(point.x, point.y, direction="INVERSE")
        time = (NOON + timedelta(minutes=minute)).astimezone(ALEPPO).isoformat(timespec="minutes")
        speed_text = "" if speed is None else f"{speed:g}"
        rows.append(["convoy-1", time, f"{lat:.6f}", f"{lon:.6f}", speed_text, note])
    with (HERE / "convoy-1.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["convoy", "time", "latitude", "longitude", "speed_kmh", "note"])
        writer.writerows(rows)


if __name__ == "__main__":
    main()
