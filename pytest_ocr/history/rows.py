"""The store's values checked as they are read back: each of the type pytest-ocr writes there.

A store is a file anyone can edit, or a database anything else can write (a CI cache that a
pull request's job saved, a hand-made SQLite file). A value of another type (text in a number
column, a summary that is not JSON, an outcome code 99, a packed blob of the wrong length) is
refused here, in one line that says where it is and what was expected: every command and view
past the store gets the types its dataclasses say (a number is a number, never markup that a
page would write as it is), and no reader fails later with a traceback.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from ..errors import OcrError, shortened

MAX_WHOLE = 2**63 - 1  # the largest id or count either backend stores (BIGINT)


class RowError(OcrError):
    """A value in the store that pytest-ocr would not have written; the message locates it."""


def quoted(value: object) -> str:
    """A value as a message quotes it: its repr (control and bidi characters escaped), cut short."""
    return shortened(repr(value), 60)


def is_whole(value: object, low: int = 0) -> bool:
    return type(value) is int and low <= value <= MAX_WHOLE


def is_whole_map(value: object) -> bool:
    """A JSON object of whole numbers from 0 (a run's counts by outcome)."""
    return isinstance(value, dict) and all(is_whole(v) for v in value.values())


@dataclass(frozen=True)
class Row:
    """One row as read: its table, which row it is (``run 3``, ``run 3, item 'KEY'``), and its values."""

    table: str
    what: str
    values: Mapping[Any, Any]  # a row's mapping: column name -> value

    def fail(self, column: str, expected: str, value: object) -> NoReturn:
        raise RowError(f"table {self.table}, {self.what}: column {column}: expected {expected}, not {quoted(value)}")

    def check(self, column: str, holds: bool, expected: str, value: object) -> None:
        if not holds:
            self.fail(column, expected, value)

    def text(self, column: str) -> str:
        value = self.values[column]
        self.check(column, isinstance(value, str), "text", value)
        return str(value)

    def optional_text(self, column: str) -> str | None:
        return None if self.values[column] is None else self.text(column)

    def whole(self, column: str, low: int = 0) -> int:
        value = self.values[column]
        self.check(column, is_whole(value, low), f"a whole number from {low}", value)
        return int(value)

    def real(self, column: str) -> float:
        value = self.values[column]
        self.check(column, type(value) in (int, float) and math.isfinite(value), "a finite number", value)
        return float(value)

    def optional_real(self, column: str) -> float | None:
        return None if self.values[column] is None else self.real(column)

    def code(self, column: str, count: int, what: str) -> int:
        """A code below ``count`` (an outcome's)."""
        value = self.values[column]
        self.check(column, type(value) is int and 0 <= value < count, f"{what} from 0 to {count - 1}", value)
        return int(value)

    def blob(self, column: str, length: int | None = None) -> bytes | None:
        """Bytes (None for NULL); ``length``: exactly that many."""
        value = self.values[column]
        if value is None:
            return None
        if isinstance(value, memoryview):  # a driver's view of a binary value
            value = bytes(value)
        right = isinstance(value, bytes) and (length is None or len(value) == length)
        self.check(column, right, "bytes" if length is None else f"{length} bytes", value)
        return bytes(value)

    def json(self, column: str, kind: type[dict[str, Any]] | type[list[Any]]) -> Any:
        """The column's text as JSON of ``kind`` (an object or an array)."""
        source = self.text(column)
        expected = "a JSON object" if kind is dict else "a JSON array"
        try:
            value = json.loads(source)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than Python parses
            self.fail(column, expected, source)
        self.check(column, isinstance(value, kind), expected, source)
        return value
