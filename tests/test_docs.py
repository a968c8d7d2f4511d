"""The README is a user's guide: short, its set-up commands as they are, its links working."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]

SET_UP = """\
```sh
make run    # creates .venv, installs requirements.txt (playwright included), Chromium and a
            # font with Arabic letters where it can (apt-get), loads the shipped scenario into
            # data/workspace.gpkg if it is not there yet, serves http://localhost:8501
make test   # the same install plus requirements-dev.txt, Chromium and an Arabic font (apt-get
            # where missing), then ruff, mypy and the whole pytest suite
```
"""
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def prose(page: Path) -> list[str]:
    """The page's lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the page's headings (lower case, punctuation dropped, spaces
    as hyphens, a repeated one numbered)."""
    found: set[str] = set()
    for line in prose(page):
        heading = re.match(r"#{1,6} (.+)", line)
        if heading is None:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading[1].strip().lower()).replace(" ", "-")
        candidate, n = slug, 0
        while candidate in found:
            n += 1
            candidate = f"{slug}-{n}"
        found.add(candidate)
    return found


def relative_links(page: Path) -> list[str]:
    return [
        target for line in prose(page) for target in LINK.findall(line) if not SCHEME.match(target)
    ]


def test_the_readme_is_at_most_400_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 400, f"README.md: expected at most 400 lines, got {len(lines)}"


def test_the_readme_gives_the_two_set_up_commands_word_for_word() -> None:
    text = README.read_text(encoding="utf-8")
    assert "## Set-up: two commands" in text
    assert SET_UP in text


def test_the_readme_keeps_credits_and_licences() -> None:
    text = README.read_text(encoding="utf-8")
    assert "## Credits and licences" in text
    for named in ("GeoNames", "CC BY 4.0", "Natural Earth", "public domain", "BSD-2", "MIT",
                  "ISC", "ODbL", "ACLED's terms of use", "SIL Open Font License 1.1"):  # fmt: skip
        assert named in text, named


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_points_at_a_file_that_is_there(page: Path) -> None:
    broken = []
    for target in relative_links(page):
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target} (no file {linked})")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target} (no heading #{anchor} in {linked.name})")
    assert broken == [], f"{page.name}: broken links"


def test_the_readme_links_every_docs_page() -> None:
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in relative_links(README)}
    assert [doc.name for doc in DOCS if doc.resolve() not in linked] == []
