"""Two dashboards on one PostGIS workspace (issue 22): how long after a committed edit each
open page draws it, without reloading.

Serves the dashboard (`streamlit run`) on the shipped scenario copied into a PostGIS schema
of its own and opens it in two headless Chromium pages. By default the first page is the
Import and edit page: ROUNDS times an editor types a new vehicle count into the convoy table
there and presses Save, and the bench times how long the second page, the map dashboard,
takes to show it in its convoy table, from the click. With --from-process, both pages are
dashboards and the edits are committed by this process (another analyst's machine). Prints
the median and worst, and checks that no page was reloaded.

    .venv/bin/python bench/live_pages.py [--rounds 20] [--from-process] [--postgis URL]
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
from test_browser_edit import open_page, type_in_convoy_table  # noqa: E402 (a hand's edit)

from geo import changes  # noqa: E402
from geo.changes import Edit  # noqa: E402
from geo.chromium import LAUNCH_ARGS, find_chromium  # noqa: E402
from geo.scenario import read_scenario  # noqa: E402
from geo.store import open_workspace  # noqa: E402


def shown(page: Page, text: str) -> bool:
    return page.locator("td[role='gridcell']").filter(has_text=text).count() > 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--from-process", action="store_true", help="edits not typed in a page")
    parser.add_argument("--postgis", default="postgresql://postgres@127.0.0.1:5432/corridor_test")
    args = parser.parse_args()
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(args.postgis, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    url = f"{args.postgis}?options={quote(f'-csearch_path={schema},public')}"
    try:
        workspace = open_workspace(url)
        workspace.path = Path("/tmp") / f"{schema}.gpkg"  # (its dumps)
        scenario = read_scenario(SHIPPED_DIR)
        workspace.save(scenario)
        convoy = scenario.convoys[0]
        with streamlit_app(url) as server, sync_playwright() as playwright:  # type: ignore[arg-type]
            browser = playwright.chromium.launch(
                executable_path=find_chromium(), args=list(LAUNCH_ARGS)
            )
            widths = (5000, 5000) if args.from_process else (2400, 5000)  # (a dashboard's
            # convoy table draws only the columns in view: all of them at 5000 px)
            pages = [browser.new_page(viewport={"width": w, "height": 1000}) for w in widths]
            watched = pages if args.from_process else pages[1:]
            if not args.from_process:
                open_page(pages[0], server)
            for page in watched:
                page.goto(server, wait_until="domcontentloaded")
                page.locator("td[role='gridcell']").filter(has_text=convoy.label).first.wait_for(
                    state="attached", timeout=120_000
                )
            for page in pages:
                page.evaluate("window.__corridorKeep = 'same page'")
            time.sleep(3)
            ids = [c.id for c in scenario.convoys]
            times: list[list[float]] = [[] for _ in watched]
            for round_ in range(1, args.rounds + 1):
                count = f"about {100 + round_}"
                if args.from_process:
                    started = time.monotonic()
                    changes.commit(workspace, scenario.id,
                                   [Edit("update", "convoys", convoy.id, {"vehicles": count})],
                                   who="desk")  # fmt: skip
                else:
                    type_in_convoy_table(pages[0], ids, convoy.id, "vehicles", count)
                    save = pages[0].get_by_role("button", name="Save 1 changed convoy(s)")
                    started = time.monotonic()
                    save.click()
                waiting = set(range(len(watched)))
                while waiting and time.monotonic() - started < 30:
                    for number in list(waiting):
                        if shown(watched[number], count):
                            times[number].append(time.monotonic() - started)
                            waiting.discard(number)
                    time.sleep(0.02)
                for number in waiting:
                    times[number].append(float("inf"))
                time.sleep(1.5)  # (the pages settle before the next edit)
            kept = all(page.evaluate("window.__corridorKeep") == "same page" for page in pages)
            browser.close()
        how = "committed by this process" if args.from_process else "typed and saved in page 1"
        print(f"{args.rounds} edits {how}; no page reloaded: {kept}")
        for number, found in enumerate(times, start=len(pages) - len(watched) + 1):
            print(f"  page {number} (the map dashboard) drew it: median "
                  f"{statistics.median(found):.2f} s, worst {max(found):.2f} s, "
                  f"best {min(found):.2f} s")  # fmt: skip
    finally:
        with psycopg.connect(args.postgis, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {schema} CASCADE")


if __name__ == "__main__":
    main()
