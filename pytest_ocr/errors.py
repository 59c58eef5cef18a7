"""Errors a user can cause, and the help their messages give.

Every such error is an ``OcrError``: pytest-ocr shows it as its message alone (one
located line, or a located list for a case file), never as a traceback. A traceback
means a bug in pytest-ocr or in the user's own code (an engine function that raised).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .run.identity import relative_paths


class OcrError(Exception):
    """Something wrong with the user's input, configuration or environment.

    ``location`` says where (``file:line``, an option name, a URL) when the raiser
    knows; the message is complete without it, and ``str()`` puts it first."""

    def __init__(self, message: str, location: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        return f"{self.location}: {self.message}" if self.location else self.message


def did_you_mean(name: object, choices: Iterable[str]) -> str:
    """``"; did you mean 'cer'?"`` for the closest choice, or ``""`` when none is close."""
    import difflib  # only for a mistake

    guess = difflib.get_close_matches(str(name), list(choices), n=1)
    return f"; did you mean {guess[0]!r}?" if guess else ""


def error_message(error: BaseException | None, project: Path) -> str:
    """An error as an item's result and its test report state it: a user's error as its
    message alone, anything else with its type; the paths it names inside the project
    relative to it, as reports name files (a machine's directories do not belong in a
    report, a CI log or a JUnit file)."""
    if error is None:
        return "no result"
    text = str(error) if isinstance(error, OcrError) else f"{type(error).__name__}: {error}"
    return relative_paths(text, project)
