"""Geocoder speed: index build and load, exact and fuzzy look-ups per second; prints a table."""

from __future__ import annotations

import random
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from geo import gazetteer
from geo.geocoding import OfflineGeocoder

SEED = 2016


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def misspell(name: str, rng: random.Random) -> str:
    """One typo: a letter dropped, doubled or two letters swapped (never the first letter)."""
    if len(name) < 5:
        return name + name[-1]
    i = rng.randrange(1, len(name) - 1)
    choice = rng.randrange(3)
    if choice == 0:
        return name[:i] + name[i + 1 :]
    if choice == 1:
        return name[:i] + name[i] + name[i:]
    return name[:i] + name[i + 1] + name[i] + name[i + 2 :]


def fresh(index: gazetteer.Gazetteer, bias: str | None = "SY") -> OfflineGeocoder:
    geocoder = OfflineGeocoder(country_bias=bias)
    geocoder._gazetteer = index  # the same loaded index; nothing remembered between runs
    return geocoder


def main() -> None:
    rng = random.Random(SEED)
    with tempfile.TemporaryDirectory() as scratch:
        cold = timed(lambda: gazetteer.load(cache_dir=Path(scratch)))
        start = time.perf_counter()
        index = gazetteer.load(cache_dir=Path(scratch))
        warm = time.perf_counter() - start
        first = fresh(index)
        for name in ("Aleppo", "Paris", "Aleppoo", "Qwxztv"):  # exact, abroad, fuzzy, miss
            first.geocode(name)  # builds the lookup tables every kind of look-up uses
        ready = time.perf_counter() - start
        tracemalloc.start()
        loaded = gazetteer.load(cache_dir=Path(scratch))
        memory = tracemalloc.get_traced_memory()[0] / 1e6
        tracemalloc.stop()
        del loaded
    syrian = sorted({name for name, code in zip(index.names, index.country_codes, strict=True)
                     if code == "SY"})  # fmt: skip
    world = rng.sample(index.names, 20_000)
    typos = sorted({misspell(rng.choice(syrian), rng) for _ in range(3_000)} - set(syrian))
    batch = [rng.choice(syrian + world[:2_000] + typos) for _ in range(100_000)]
    batch_geocoder = fresh(index)
    rows = [
        ("index: build from package data (cold)", f"{cold:.2f} s"),
        ("index: load from cache", f"{warm:.2f} s"),
        ("index: load + lookup tables ready", f"{ready:.2f} s"),
        ("index: entries / distinct name keys", f"{len(index):,} / {len(index.keys):,}"),
        ("index: Python memory once loaded", f"{memory:.0f} MB"),
        rate("exact/alias: 20,000 distinct world names", world, fresh(index).candidates),
        rate(f"exact/alias: {len(syrian)} distinct Syrian names", syrian, fresh(index).candidates),
        rate("exact/alias: geocode() to a Location, distinct", world, fresh(index).geocode),
        rate(f"fuzzy: {len(typos)} distinct misspellings", typos, fresh(index).geocode),
        rate("fuzzy: the same with no country bias", typos, fresh(index, None).geocode),
        rate("100,000 mixed names with repeats, geocode()", batch, batch_geocoder.geocode),
    ]
    found = [fresh(index).geocode(name) for name in typos]
    rows.append(("misspellings that found a place", f"{sum(x is not None for x in found)}"))
    width = max(len(label) for label, _ in rows)
    print(f"{'measure':<{width}}  value")
    for label, value in rows:
        print(f"{label:<{width}}  {value}")


def rate(label: str, names: Sequence[str], look_up: Callable[[str], object]) -> tuple[str, str]:
    seconds = timed(lambda: [look_up(name) for name in names])
    return label, f"{len(names) / seconds:,.0f} /s ({seconds:.2f} s)"


if __name__ == "__main__":
    main()
