"""The one error hierarchy of Corridor, and the problems a validation collects."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]


class CorridorError(Exception):
    """Root of every error Corridor raises on purpose."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with the input: where it is, which field, what was expected, what came."""

    file: str
    where: str
    field: str
    expected: str
    actual: object
    severity: Severity = "error"

    def __str__(self) -> str:
        place = f"{self.file}, {self.where}" if self.where else self.file
        field = f", field {self.field!r}" if self.field else ""
        label = "" if self.severity == "error" else "warning: "
        return f"{label}{place}{field}: expected {self.expected}, got {_show(self.actual)}"


def _show(value: object) -> str:
    if value is None or value == "":
        return "nothing"
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


class ValidationError(CorridorError, ValueError):
    """Input that breaks one or more rules; `problems` lists every one of them."""

    def __init__(self, problems: Iterable[Problem], *, subject: str = "input") -> None:
        self.problems = tuple(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        count = len(self.problems)
        noun = "problem" if count == 1 else "problems"
        super().__init__(f"{subject}: {count} {noun}\n{lines}")


class WorkspaceError(CorridorError, OSError):
    """The workspace GeoPackage cannot be read or written."""


class WorkspaceLockedError(WorkspaceError):
    """Another session or process holds the workspace's write lock for too long."""


class ConflictError(CorridorError, ValueError):
    """Records someone else changed since the editor read them: the edit is refused, not
    written over theirs (`geo.changes.commit` with `read=`)."""


class ScenarioNotFoundError(CorridorError, LookupError):
    """A scenario id or folder that does not exist."""


class ChromiumNotFoundError(CorridorError, FileNotFoundError):
    """No Chromium or Chrome executable could be found."""


class GeocodingUnavailableError(CorridorError, ConnectionError):
    """An online geocoder that was asked could not be reached or did not answer in time."""


class AssetsMissingError(CorridorError, FileNotFoundError):
    """Leaflet or a plugin is not installed where maps inline it from (assets/node_modules)."""


class ExportError(CorridorError, RuntimeError):
    """A snapshot could not be made or written; nothing was left behind."""


class ProblemLog:
    """Collects problems while reading, then raises them all at once."""

    def __init__(self) -> None:
        self._problems: list[Problem] = []
        self._texts: dict[str, str] = {}

    def error(self, file: str, where: str, field: str, expected: str, actual: object) -> None:
        shared = self._shared
        self._problems.append(Problem(shared(file), where, shared(field), shared(expected), actual))

    def warn(self, file: str, where: str, field: str, expected: str, actual: object) -> None:
        shared = self._shared
        self._problems.append(
            Problem(shared(file), where, shared(field), shared(expected), actual, "warning")
        )

    def _shared(self, text: str) -> str:
        """One copy of a text that many problems repeat (a file's name, a field, what was
        expected: 1.3 million warnings about three million places each held their own)."""
        return self._texts.setdefault(text, text) if type(text) is str else text

    def extend(self, problems: Iterable[Problem]) -> None:
        """Problems collected elsewhere added, in order (the same objects, not copies)."""
        self._problems.extend(problems)

    def __iter__(self) -> Iterator[Problem]:
        return iter(self._problems)

    def __len__(self) -> int:
        return len(self._problems)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self._problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self._problems if p.severity == "warning"]

    def raise_if_errors(self, subject: str, *, strict: bool = False) -> None:
        """Raise one ValidationError listing every error (and warning, when strict)."""
        failing = list(self._problems) if strict else self.errors
        if failing:
            raise ValidationError(failing, subject=subject)
