"""What `make run` installs is enough for everything the dashboard offers: a copy of the tree
as a fresh clone has it, `make prepare` (the run prerequisites, nothing from requirements-dev),
then a PNG and a PDF from that environment. PNG export once crashed after `make run` because
playwright was only a development requirement."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

pytestmark = pytest.mark.install


def tracked_files() -> list[str]:
    """The files a clone of this tree would have: tracked, or new and not ignored."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT, check=True, capture_output=True,
    ).stdout.decode()  # fmt: skip
    return [name for name in listed.split("\0") if name and (ROOT / name).is_file()]


@pytest.fixture(scope="module")
def fresh_clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tree copied as a clone has it, prepared by `make prepare` alone."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs the git checkout to copy the tree a clone would have")
    clone = tmp_path_factory.mktemp("clone") / "corridor"
    for name in tracked_files():
        target = clone / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    environment = {
        k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "CORRIDOR_"))
    }
    environment["PYTHON"] = sys._base_executable  # the interpreter, not this test's venv
    environment["PIP_NO_COMPILE"] = "1"  # (no bytecode ahead: 47 s → 25 s of pip, same files)
    done = subprocess.run(
        ["make", "prepare"], cwd=clone, env=environment, capture_output=True, text=True,
        timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, (
        f"make prepare failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return clone


def run_geo(clone: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {
        k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "CORRIDOR_"))
    }
    return subprocess.run(
        [str(clone / ".venv" / "bin" / "python"), "-m", "geo", *args],
        cwd=clone, env=environment, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_the_run_environment_has_no_test_tools(fresh_clone: Path) -> None:
    python = str(fresh_clone / ".venv" / "bin" / "python")
    for module, wanted in (("playwright", True), ("pytest", False), ("mypy", False)):
        found = subprocess.run([python, "-c", f"import {module}"], capture_output=True)
        assert (found.returncode == 0) is wanted, f"{module}: installed is {not wanted}"


@pytest.mark.parametrize(("fmt", "magic"), [("png", b"\x89PNG"), ("pdf", b"%PDF")])
def test_a_fresh_clone_exports_pictures_after_make_prepare(
    fresh_clone: Path, fmt: str, magic: bytes
) -> None:
    out = fresh_clone / f"snapshot.{fmt}"
    done = run_geo(fresh_clone, "export", "data/workspace.gpkg", "--format", fmt, "--out", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    assert out.read_bytes()[:4] == magic
    assert out.stat().st_size > 20_000


@pytest.fixture(scope="module")
def installed(fresh_clone: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """`pip install .` of the clone (its runtime already there), and an environment in which
    the `corridor` command runs from a folder that is not the repository."""
    python = str(fresh_clone / ".venv" / "bin" / "python")
    done = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
         "--no-compile", str(fresh_clone)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    home = tmp_path_factory.mktemp("home")
    environment = {
        k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "CORRIDOR_"))
    }
    environment.update(XDG_DATA_HOME=str(home / "share"), XDG_CACHE_HOME=str(home / "cache"))
    environment["PATH"] = f"{fresh_clone / '.venv' / 'bin'}{os.pathsep}{environment['PATH']}"
    return environment


def corridor(environment: dict[str, str], folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["corridor", *args], cwd=folder, env=environment, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_pip_install_gives_a_corridor_command_that_works_from_any_folder(
    installed: dict[str, str], tmp_path: Path
) -> None:
    checked = corridor(installed, tmp_path, "validate", "aleppo-2016-12")
    assert "corridor_data/scenarios/aleppo-2016-12: valid" in checked
    assert "site-packages" in checked  # the installed copy, not the clone's data/

    imported = corridor(installed, tmp_path, "import", "aleppo-2016-12")
    workspace = Path(installed["XDG_DATA_HOME"]) / "corridor" / "workspace.gpkg"
    assert imported.startswith(f"{workspace}: imported 'aleppo-2016-12'")

    snapshot = tmp_path / "snapshot.html"
    corridor(installed, tmp_path, "export", str(workspace), "--format", "html", "--out",
             str(snapshot))  # fmt: skip
    page = snapshot.read_text(encoding="utf-8")
    assert "leaflet" in page.lower()
    assert '<script src="http' not in page

    found = corridor(installed, tmp_path, "geocode", "Kefraya", "--json")
    assert '"name": "Kafraya"' in found
    help_text = corridor(installed, tmp_path, "--help")
    assert help_text.startswith("usage: corridor ")
