"""Finding and launching the system Chromium that browser tests and PNG/PDF snapshots use."""

from __future__ import annotations

import os
import shutil

from geo.errors import ChromiumNotFoundError

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
LAUNCH_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
INSTALL_HINT = (
    "install one (Debian/Ubuntu: sudo apt-get install chromium; Fedora: sudo dnf install "
    "chromium; macOS: brew install --cask chromium) or set CORRIDOR_CHROMIUM to its path"
)


def find_chromium() -> str:
    """The path of the Chromium to drive: CORRIDOR_CHROMIUM, else the first one on PATH."""
    configured = os.environ.get("CORRIDOR_CHROMIUM")
    if configured:
        found = shutil.which(configured)
        if found:
            return found
        raise ChromiumNotFoundError(
            f"CORRIDOR_CHROMIUM is {configured!r}, which is not an executable; {INSTALL_HINT}"
        )
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    raise ChromiumNotFoundError(
        f"no Chromium found on PATH (looked for {', '.join(CANDIDATES)}); {INSTALL_HINT}"
    )
