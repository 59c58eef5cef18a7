"""One output as its checks share it (normalised text, tables, where its characters are), and what a
check returns."""

from __future__ import annotations

from functools import lru_cache

from .tables import _html_tables, _HtmlTableError, _markdown_tables, _Table
from .text import Span, _at, _Located, _lowered_located, _normalized_located, normalize_text

# A failed check says where in the output it looked (line and column): the normalised text it checked is mapped
# back to the output, at some 40 bytes a character. Up to this length; beyond it, the reason names no position.
LOCATE_MAX_CHARS = 1_000_000


class _NotChecked(Exception):
    """Checking would exceed a bound (a constant of the check's module); the message says which."""


# A check's verdict, why it fails and where it looked (see FactVerdict).
_Result = tuple[bool, str, tuple[Span, ...]]
_HOLDS: _Result = (True, "", ())


class _Page:
    """One output and what its checks share, computed when first needed: the normalised text (and its lower
    case) and its tables."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._normalized: str | None = None
        self._lowered: str | None = None
        self._markdown_tables: list[_Table] | None = None
        self._html_tables: list[_Table] | str | None = None  # a str: why they could not be read
        self._located: dict[bool, _Located | None] = {}

    @property
    def normalized(self) -> str:
        if self._normalized is None:
            self._normalized = normalize_text(self.text)
        return self._normalized

    @property
    def lowered(self) -> str:
        if self._lowered is None:
            self._lowered = self.normalized.lower()
        return self._lowered

    def located(self, case_sensitive: bool = True) -> _Located | None:
        """The normalised text (lower-cased unless ``case_sensitive``) with where each character comes from;
        None for an output longer than LOCATE_MAX_CHARS."""
        if case_sensitive not in self._located:
            located = None
            if len(self.text) <= LOCATE_MAX_CHARS:
                located = _normalized_located(self.text)
                if not case_sensitive:
                    located = _lowered_located(located)
            self._located[case_sensitive] = located
        return self._located[case_sensitive]

    def at(self, span: Span | None) -> str:
        """Where a span starts, as ' at line L, column C' (nothing for no span)."""
        return f" at {_at(self.text, span[0])}" if span else ""

    @property
    def markdown_tables(self) -> list[_Table]:
        if self._markdown_tables is None:
            self._markdown_tables = _markdown_tables(self.text)
        return self._markdown_tables

    @property
    def html_tables(self) -> list[_Table] | str:
        if self._html_tables is None:
            try:
                self._html_tables = _html_tables(self.text)
            except _HtmlTableError as error:
                self._html_tables = str(error)
        return self._html_tables


@lru_cache(maxsize=2)
def _page(text: str) -> _Page:
    # check_fact on each fact of one page in turn (a test item per fact) parses the page's tables once.
    return _Page(text)
