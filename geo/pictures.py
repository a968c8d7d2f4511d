"""Pictures of a snapshot page: PNG and PDF drawn by the system Chromium through Playwright,
one warm browser per process, driven from one thread, loading nothing but the page itself."""

from __future__ import annotations

import atexit
import contextlib
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from geo.chromium import LAUNCH_ARGS, find_chromium
from geo.errors import ExportError

PAPER = {"A4": (297, 210), "A3": (420, 297)}  # landscape, millimetres
PX_PER_MM = 96 / 25.4
RENDER_TIMEOUT_MS = 20_000
T = TypeVar("T")


class Browser:
    """The system Chromium through Playwright, started on first use and kept warm.

    Playwright's sync API must stay on the thread that started it, while Streamlit runs each
    rerun (and deferred downloads) on other threads: every call goes through one worker thread.
    One page per pixel ratio is kept open between snapshots (opening a page with its request
    filter costs 0.13 s); each snapshot is a fresh document in it. Once the snapshot is handed
    over, the page goes back to about:blank (40 ms) so that no snapshot's map stays in memory.
    """

    def __init__(self) -> None:
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="corridor-chromium")
        self._playwright: Any = None
        self._chromium: Any = None
        self._pages: dict[float, Any] = {}
        self._allowed = ""
        """The one file a page may load: the snapshot being taken."""

    def png(self, html: str, width: int, height: int, scale: float) -> bytes:
        def shoot(page: Any) -> bytes:
            return bytes(page.screenshot(type="png", full_page=False, timeout=RENDER_TIMEOUT_MS))

        viewport = {"width": int(width), "height": int(height)}
        return self._call(html, viewport, scale, shoot)

    def pdf(self, html: str, paper: str) -> bytes:
        width, height = PAPER[paper]
        viewport = {"width": round(width * PX_PER_MM), "height": round(height * PX_PER_MM)}

        def printed(page: Any) -> bytes:
            return bytes(page.pdf(format=paper, landscape=True, print_background=True,
                                  prefer_css_page_size=True))  # fmt: skip

        return self._call(html, viewport, 1.0, printed)

    def close(self) -> None:
        """Stop Chromium; at interpreter exit the worker may be gone (Playwright then ends it)."""
        try:
            self._worker.submit(self._stop).result(timeout=30)
        except RuntimeError:
            return
        self._worker.shutdown(wait=False)

    def _call(self, html: str, viewport: dict[str, int], scale: float, take: Callable[..., T]) -> T:
        job = self._worker.submit(self._render, html, viewport, scale, take)
        return job.result(timeout=RENDER_TIMEOUT_MS / 1000 * 3)

    def _render(
        self, html: str, viewport: dict[str, int], scale: float, take: Callable[..., T]
    ) -> T:
        page = self._page(scale)
        # Chromium reads the page from a private file: handing a large page (several MB at
        # many events) through Playwright's set_content costs a third of a second more.
        folder = tempfile.TemporaryDirectory(prefix="corridor-snapshot-")
        try:
            page_file = Path(folder.name) / "snapshot.html"
            page_file.write_text(html, encoding="utf-8")
            self._allowed = page_file.as_uri()
            page.set_viewport_size(viewport)
            page.goto(self._allowed, wait_until="load", timeout=RENDER_TIMEOUT_MS)
            page.wait_for_function("window.corridorReady === true", timeout=RENDER_TIMEOUT_MS)
            found = take(page)
        except Exception as error:
            self._drop(scale)  # the next snapshot starts from a new page
            raise ExportError(f"Chromium could not render the map: {error}") from error
        finally:
            self._allowed = ""
            folder.cleanup()
        self._worker.submit(self._blank, page, scale)  # after the caller has the snapshot
        return found

    def _blank(self, page: Any, scale: float) -> None:
        """The page back to about:blank, so that the snapshot's map does not stay in memory."""
        if page not in self._pages.values():
            return  # dropped since
        try:
            page.goto("about:blank")
        except Exception:  # noqa: BLE001 - the snapshot is delivered: only the page is lost
            self._drop(scale)

    def _page(self, scale: float) -> Any:
        page = self._pages.get(scale)
        if page is not None and not page.is_closed() and self._chromium.is_connected():
            return page
        self._drop(scale)
        context = self._start().new_context(device_scale_factor=scale)
        page = self._pages[scale] = context.new_page()
        page.route("**/*", lambda route: _only_local(route, self._allowed))
        return page

    def _drop(self, scale: float) -> None:
        page = self._pages.pop(scale, None)
        if page is not None:
            with contextlib.suppress(Exception):  # already gone with its browser
                page.context.close()

    def _start(self) -> Any:
        if self._chromium is not None and self._chromium.is_connected():
            return self._chromium
        self._pages.clear()  # they went with the browser
        executable = find_chromium()
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as error:
            raise ExportError(
                "PNG and PDF snapshots need the Python package playwright, which is not "
                f"installed here ({error}); install Corridor's requirements with `make install` "
                "or `pip install -r requirements.txt`"
            ) from error
        try:
            self._playwright = self._playwright or sync_playwright().start()
            self._chromium = self._playwright.chromium.launch(
                executable_path=executable, headless=True, args=list(LAUNCH_ARGS)
            )
        except Exception as error:
            raise ExportError(f"{executable} would not start: {error}") from error
        return self._chromium

    def _stop(self) -> None:
        for scale in list(self._pages):
            self._drop(scale)
        if self._chromium is not None:
            self._chromium.close()
        if self._playwright is not None:
            self._playwright.stop()
        self._chromium = self._playwright = None


def _only_local(route: Any, page_address: str) -> None:
    """Snapshots never reach the network, except map tiles when the OSM base is chosen.

    The one local file allowed is the snapshot's own page.
    """
    url = route.request.url
    if (
        url == page_address
        or url.startswith(("data:", "about:", "blob:"))
        or "tile.openstreetmap.org" in url
    ):
        route.continue_()
    else:
        route.abort()


_BROWSER: Browser | None = None
_LOCK = threading.Lock()


def browser() -> Browser:
    """The process's warm browser (closed when the process exits)."""
    global _BROWSER
    with _LOCK:
        if _BROWSER is None:
            _BROWSER = Browser()
            atexit.register(_BROWSER.close)
        return _BROWSER
