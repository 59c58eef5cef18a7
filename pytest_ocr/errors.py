"""Errors a user can cause, and the help their messages give.

Every such error is an ``OcrError``: pytest-ocr shows it as its message alone (one
located line, or a located list for a case file), never as a traceback. A traceback
means a bug in pytest-ocr or in the user's own code (an engine function that raised).
"""

from __future__ import annotations

from collections.abc import Iterable


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


class OutOfMemory(OcrError):
    """A MemoryError, said as what it is (not a traceback, nor a package to install)."""

    def __init__(self, where: str) -> None:
        super().__init__(
            f"out of memory {where} (MemoryError): this process, or the memory limit it runs under, had no more to give"
        )


def shortened(value: object, most: int = 40) -> str:
    """A value the user gave, as a message quotes it: whole up to ``most`` characters, else
    its first 30 and ``...`` (400 digits would make the one line a paragraph)."""
    text = str(value)
    return text if len(text) <= most else text[:30] + "..."


def did_you_mean(name: object, choices: Iterable[str]) -> str:
    """``"; did you mean 'cer'?"`` for the closest choice, or ``""`` when none is close."""
    import difflib  # only for a mistake

    guess = difflib.get_close_matches(str(name), list(choices), n=1)
    return f"; did you mean {guess[0]!r}?" if guess else ""
