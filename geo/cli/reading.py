"""Commands that read place names and reports: geocode, extract."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from geo.cli.common import Commands, read_text
from geo.errors import CorridorError
from geo.store import GeocodeCache, open_workspace


def add_geocode(commands: Commands) -> argparse.ArgumentParser:
    """`geocode`: place names, offline (or online too)."""
    geocode = commands.add_parser("geocode", help="geocode place names offline (one line each)")
    geocode.add_argument("names", nargs="+", metavar="NAME", help="a place name or phrase")
    geocode.add_argument(
        "--country", default=None, help="favour this country's places, ISO code (default: none)"
    )
    geocode.add_argument("--near", help="what 'the city' in a phrase refers to, e.g. Aleppo")
    geocode.add_argument("--json", action="store_true", help="print one JSON object per line")
    geocode.add_argument(
        "--online",
        action="store_true",
        help="ask OpenStreetMap's Nominatim (1 request/s) for names not found offline; "
        "answers are cached in the workspace",
    )
    geocode.set_defaults(command=_geocode)
    return geocode


def add_extract(commands: Commands) -> argparse.ArgumentParser:
    """`extract`: what a news report tells."""
    reading = commands.add_parser(
        "extract", help="places, figures, times and convoy drafts found in a news report"
    )
    reading.add_argument("file", type=Path, help="a UTF-8 text file (or - for standard input)")
    reading.add_argument("--published", help="the report's date, YYYY-MM-DD (resolves weekdays)")
    reading.add_argument(
        "--country", action="append", default=[],
        help="a country the report is about, ISO code (repeatable; default: read from the text)",
    )  # fmt: skip
    reading.add_argument("--json", action="store_true", help="print one JSON object")
    reading.set_defaults(command=_extract)
    return reading


def _geocode(args: argparse.Namespace) -> int:
    from geo.geocoding import OfflineGeocoder
    from geo.geocoding.online import Fallback, nominatim

    geocoder: Any = OfflineGeocoder(country_bias=args.country or None)
    if args.online:
        cache = GeocodeCache(open_workspace(args.workspace))
        geocoder = Fallback(geocoder, nominatim(), cache=cache)
    missing = 0
    for name in args.names:
        location = geocoder.geocode(name, near=args.near)
        if location is None:
            missing += 1
        print(_geocoded(name, location, as_json=args.json))
    return 1 if missing else 0


def _geocoded(name: str, location: Any, *, as_json: bool) -> str:
    if as_json:
        raw = location.raw if location else {}
        return json.dumps({"query": name, "found": location is not None, **raw}, ensure_ascii=False)
    if location is None:
        return f"{name}: not found"
    raw = location.raw
    flags = [flag for flag in ("ambiguous", "uncertain") if raw.get(flag)]
    line = (
        f"{name}: {raw['name']} ({raw['kind']}, {raw['admin1']}, {raw['country_code']}) "
        f"{location.latitude:.5f}, {location.longitude:.5f} score {raw['score']:.2f} "
        f"[{raw['method']} '{raw['matched_name']}', {raw['precision']}, {raw['source']}, "
        f"{raw['id']}]"
    )
    if flags:
        line += " " + " ".join(flag.upper() for flag in flags)
    for other in raw.get("alternatives", []):
        line += f"\n    also: {other['name']} ({other['country_code']}) {other['latitude']:.5f}, "
        line += f"{other['longitude']:.5f}"
    return line


def _extract(args: argparse.Namespace) -> int:
    from geo.reading import extract

    text = sys.stdin.read() if str(args.file) == "-" else read_text(args.file)
    published = None
    if args.published:
        try:
            published = datetime.strptime(args.published, "%Y-%m-%d").date()
        except ValueError:
            raise CorridorError(
                f"--published: expected a date as YYYY-MM-DD, got {args.published!r}"
            ) from None
    found = extract(text, published=published, home=args.country)
    if args.json:
        print(json.dumps(found.to_json(), ensure_ascii=False, indent=1))
        return 0
    print(f"read as about {', '.join(found.homes) or 'no country'}")
    for place in found.places:
        print(f"place  {place.mention!r} -> {place.name} ({place.kind}, {place.country_code}) "
              f"{place.latitude:.4f}, {place.longitude:.4f} [{place.precision}]")  # fmt: skip
    for figure in found.figures:
        number = figure.value if figure.value is not None else f"{figure.low}-{figure.high}"
        qualifier = f"{figure.qualifier} " if figure.qualifier else ""
        said = f" (said by {figure.attribution})" if figure.attribution else ""
        print(f"figure {qualifier}{number} {figure.what}{said}")
    for moment in found.times:
        print(f"time   {moment.text!r} -> {moment.date} {moment.local_time} {moment.utc_time}")
    for convoy in found.convoys:
        print(f"convoy {convoy.origin or '?'} -> {convoy.destination or '?'}"
              f" via {', '.join(convoy.via) or '-'}; vehicles {', '.join(convoy.vehicles) or '-'};"
              f" people {', '.join(convoy.people) or '-'}; {convoy.time or 'no time'}")  # fmt: skip
    for item in found.skipped:
        print(f"skipped {item.kind} at character {item.start}: {item.text!r} ({item.reason})")
    return 0
