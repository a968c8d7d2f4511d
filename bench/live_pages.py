"""Two dashboards on one PostGIS workspace (issue 22): how long after a committed edit each
open page draws it, without reloading.

Serves the dashboard (`streamlit run`) on the shipped scenario copied into a PostGIS schema
of its own, opens it in two headless Chromium pages, then ROUNDS times commits a new label for
the first convoy (as another analyst would, through `geo.changes.commit` in this process) and
times how long each page takes to show it in its convoy table. Prints the median and worst of
each page, and checks that neither page was reloaded.

    .venv/bin/python bench/live_pages.py [--rounds 20] [--postgis URL]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import psycopg  # noqa: E402
from conftest import SHIPPED_DIR, streamlit_app  # noqa: E402 (the tests' server starter)
from playwright.sync_api import Page, sync_playwright  # noqa: E402

from geo import changes  # noqa: E402
from geo.changes import Edit  # noqa: E402
from geo.chromium import LAUNCH_ARGS, find_chromium  # noqa: E402
from geo.scenario import read_scenario  # noqa: E402
from geo.workspace import Workspace  # noqa: E402


def shown(page: Page, text: str) -> bool:
    return page.locator("td[role='gridcell']").filter(has_text=text).count() > 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--postgis", default="postgresql://postgres@127.0.0.1:5432/corridor_test")
    args = parser.parse_args()
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(args.postgis, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    url = f"{args.postgis}?options={quote(f'-csearch_path={schema},public')}"
    try:
        workspace = Workspace(url)
        workspace.path = Path("/tmp") / f"{schema}.gpkg"  # (its dumps)
        scenario = read_scenario(SHIPPED_DIR)
        workspace.save(scenario)
        convoy = scenario.convoys[0]
        with streamlit_app(url) as server, sync_playwright() as playwright:  # type: ignore[arg-type]
            browser = playwright.chromium.launch(
                executable_path=find_chromium(), args=list(LAUNCH_ARGS)
            )
            pages = [browser.new_page(viewport={"width": 1400, "height": 900}) for _ in range(2)]
            for page in pages:
                page.goto(server, wait_until="domcontentloaded")
                page.locator("td[role='gridcell']").filter(has_text=convoy.label).first.wait_for(
                    state="attached", timeout=120_000
                )
                page.evaluate("window.__corridorKeep = 'same page'")
            time.sleep(3)
            times: list[list[float]] = [[], []]
            for round_ in range(1, args.rounds + 1):
                label = f"{convoy.label} (round {round_})"
                started = time.monotonic()
                changes.commit(workspace, scenario.id,
                               [Edit("update", "convoys", convoy.id, {"label": label})],
                               who="desk")  # fmt: skip
                waiting = {0, 1}
                while waiting and time.monotonic() - started < 30:
                    for number in list(waiting):
                        if shown(pages[number], label):
                            times[number].append(time.monotonic() - started)
                            waiting.discard(number)
                    time.sleep(0.02)
                for number in waiting:
                    times[number].append(float("inf"))
                time.sleep(1.5)  # (the pages settle before the next edit)
            kept = all(page.evaluate("window.__corridorKeep") == "same page" for page in pages)
            browser.close()
        print(f"{args.rounds} edits committed; each page redrew without reloading: {kept}")
        for number, found in enumerate(times, start=1):
            print(f"  page {number}: median {statistics.median(found):.2f} s, "
                  f"worst {max(found):.2f} s, best {min(found):.2f} s")  # fmt: skip
    finally:
        with psycopg.connect(args.postgis, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {schema} CASCADE")


if __name__ == "__main__":
    main()
