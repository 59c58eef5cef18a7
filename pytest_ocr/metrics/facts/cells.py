"""Table facts: a cell that holds a text, and its neighbours and headings, as olmOCR-Bench's TableTest checks
them on every table of the output."""

from __future__ import annotations

from collections.abc import Iterator

from rapidfuzz import fuzz, process

from .model import Fact
from .page import _HOLDS, _NotChecked, _Page, _Result
from .tables import _Raises, _Table
from .text import Span, _count, _quote, normalize_text

# table: an empty 'cell' matches every empty cell, padding included; the padding of a table (rows × widest row
# minus its cells) is examined up to this size.
TABLE_MAX_PADDING = 5_000_000


def _similarity(a: str, b: str) -> float:
    return fuzz.ratio(a, b) / 100.0


def _threshold(max_diffs: int, text: str) -> float:
    return max(0.5, 1.0 - (max_diffs / (len(text) if len(text) > 0 else 1)))


def _check_table(fact: Fact, page: _Page) -> _Result:
    assert fact.cell is not None
    target = normalize_text(fact.cell)
    tables = [] if fact.ignore_markdown_tables else list(page.markdown_tables)
    html = page.html_tables
    if isinstance(html, str):  # olmOCR-Bench's parser raised: its runner counts the check as failed
        return False, html, ()
    tables += html
    if not tables:
        return False, "no table found in the output", ()
    threshold = _threshold(fact.max_diffs, target)
    matcher = _CellMatcher(fact)
    failures: list[str] = []
    first: tuple[_Table, int, int] | None = None  # the matching cell whose failures are told
    failed_cells = 0
    for table in tables:
        for i, j in _matching_cells(table, target, threshold):
            reasons = matcher.check(table, i, j)
            if not reasons:
                return _HOLDS
            failed_cells += 1
            if not failures:
                failures, first = reasons, (table, i, j)
    if first is None:
        reason = f"no cell matching {_quote(target)} (threshold {threshold:.2f}) in {_count(len(tables), 'table')}"
        nearest = _nearest_cell(tables, target)
        if nearest is None:
            return False, reason, ()
        table, i, j, similarity = nearest
        span = table.cell_span(page.text, i, j)
        return (
            False,
            f"{reason}; the nearest is {_quote(table.normalized(i, j))} (similarity {similarity:.2f}) "
            f"{_cell_place(page, table, i, j, span)}{_neighbours(table, i, j)}",
            (span,) if span else (),
        )
    more = f" (and {_count(failed_cells - 1, 'other matching cell')})" if failed_cells > 1 else ""
    table, i, j = first
    span = table.cell_span(page.text, i, j)
    place = _cell_place(page, table, i, j, span)
    return False, f"cell {_quote(target)} found {place}, but {'; '.join(failures)}{more}", (span,) if span else ()


def _nearest_cell(tables: list[_Table], target: str) -> tuple[_Table, int, int, float] | None:
    """The cell most like ``target`` (the first of equals, tables and rows in order): (its table, row, column,
    similarity); None when no table has a cell."""
    best: tuple[_Table, int, float] | None = None
    for table in tables:
        if table.flat:
            _, score, index = process.extractOne(target, table.flat, scorer=fuzz.ratio, processor=None)
            if best is None or score > best[2]:
                best = (table, index, score)
    if best is None:
        return None
    table, index, score = best
    for i, row in enumerate(table.rows):
        if index < len(row):
            return table, i, index, score / 100.0
        index -= len(row)
    raise AssertionError("a flat index beyond the table's cells")


def _cell_place(page: _Page, table: _Table, i: int, j: int, span: Span | None) -> str:
    """Where a cell is: its line in the output, its row and column in its table (from 1)."""
    line = f"on line {page.text.count(chr(10), 0, span[0]) + 1}, " if span else ""
    return f"{line}row {i + 1}, column {j + 1} of its table"


def _neighbours(table: _Table, i: int, j: int) -> str:
    """The texts around a cell, as a table fact's up/down/left/right would read them."""
    around = (
        ("above", i > 0, i - 1, j),
        ("below", i < len(table.rows) - 1, i + 1, j),
        ("left", j > 0, i, j - 1),
        ("right", j < table.width - 1, i, j + 1),
    )
    shown = [f"{name} {_quote(table.normalized(row, column), 20)}" for name, has, row, column in around if has]
    return f", with {', '.join(shown)}" if shown else ""


def _matching_cells(table: _Table, target: str, threshold: float) -> Iterator[tuple[int, int]]:
    """(row, column) of the cells whose normalised text is ``threshold``-similar to ``target``, row by row as
    olmOCR visits its padded array."""
    # rapidfuzz scores all cells in one call. Its cut-off is not exact (a score equal to it can be dropped), so
    # it only pre-filters, a point lower; olmOCR's own comparison (ratio / 100 >= threshold) then decides.
    flat = table.flat
    candidates = process.extract(
        target, flat, scorer=fuzz.ratio, processor=None, score_cutoff=max(0.0, threshold * 100 - 1), limit=None
    )
    hits = sorted(index for _, _, index in candidates if _similarity(target, flat[index]) >= threshold)
    padding_matches = _similarity(target, "") >= threshold  # only an empty target matches a padding cell
    if padding_matches and len(table.rows) * table.width - len(table.flat) > TABLE_MAX_PADDING:
        raise _NotChecked(f"an empty 'cell' matches more padding cells than TABLE_MAX_PADDING ({TABLE_MAX_PADDING})")
    hit, offset = 0, 0
    for i, row in enumerate(table.rows):
        end = offset + len(row)
        while hit < len(hits) and hits[hit] < end:
            yield i, hits[hit] - offset
            hit += 1
        if padding_matches:
            for j in range(len(row), table.width):
                yield i, j
        offset = end


class _BestBefore:
    """olmOCR's heading search along one line of cells: the first strictly best similarity to ``target`` among
    the entries before a position. Positions are asked for in increasing order (cells are visited row by row),
    so each entry is scored once."""

    def __init__(self, target: str, entries: list[tuple[int, str]]) -> None:
        self.target = target
        self.entries = entries
        self.next = 0
        self.similarity = 0.0
        self.text = ""

    def before(self, position: int) -> tuple[float, str]:
        while self.next < len(self.entries) and self.entries[self.next][0] < position:
            text = self.entries[self.next][1]
            similarity = _similarity(self.target, text)
            if similarity > self.similarity:
                self.similarity, self.text = similarity, text
            self.next += 1
        return self.similarity, self.text


class _CellMatcher:
    """A table fact's relations, checked at one matching cell at a time as olmOCR's TableTest.run checks them."""

    def __init__(self, fact: Fact) -> None:
        self.max_diffs = fact.max_diffs
        self.up, self.down = normalize_text(fact.up), normalize_text(fact.down)
        self.left, self.right = normalize_text(fact.left), normalize_text(fact.right)
        self.top_heading, self.left_heading = normalize_text(fact.top_heading), normalize_text(fact.left_heading)
        # per table: the heading searches along its columns (header rows only, all rows) and rows
        self.scans: dict[tuple[int, str, int], _BestBefore] = {}

    def check(self, table: _Table, i: int, j: int) -> list[str]:
        """Why the cell at (i, j) does not satisfy the fact's relations (empty: it does)."""
        reasons: list[str] = []
        neighbours = (
            (self.up, i > 0, i - 1, j, "the cell above"),
            (self.down, i < len(table.rows) - 1, i + 1, j, "the cell below"),
            (self.left, j > 0, i, j - 1, "the cell to the left"),
            (self.right, j < table.width - 1, i, j + 1, "the cell to the right"),
        )
        for expected, exists, row, column, where in neighbours:
            # olmOCR skips a relation the cell has no neighbour for (a match in the first row has no 'up').
            if expected and exists:
                got = table.normalized(row, column)
                similarity = _similarity(expected, got)
                threshold = _threshold(self.max_diffs, expected)
                if similarity < threshold:
                    reasons.append(
                        f"{where} is {_quote(got)}, not {_quote(expected)} "
                        f"(similarity {similarity:.2f} < {threshold:.2f})"
                    )
        if self.top_heading:
            reason = self._heading(table, i, j, vertical=True)
            if reason:
                reasons.append(reason)
        if self.left_heading:
            reason = self._heading(table, i, j, vertical=False)
            if reason:
                reasons.append(reason)
        return reasons

    def _heading(self, table: _Table, i: int, j: int, *, vertical: bool) -> str:
        """olmOCR's three-step heading search: the recorded headings of the cell's column (row), then the
        cells above it in header rows (left of it in header columns), then, if nothing so far was at all
        similar, any non-blank cell above (to the left)."""
        target = self.top_heading if vertical else self.left_heading
        threshold = _threshold(self.max_diffs, target)
        line, position = (j, i) if vertical else (i, j)
        headers = table.header_rows if vertical else table.header_cols
        best_similarity, best_text = 0.0, ""
        recorded = table.column_heading_texts(j) if vertical else table.row_heading_texts(i)
        for text in recorded or ():
            text = normalize_text(text)
            similarity = _similarity(target, text)
            if similarity > best_similarity:
                best_similarity, best_text = similarity, text
                if best_similarity >= threshold:
                    return ""
        if headers:
            similarity, text = self._scan(table, vertical, "headers", line).before(position)
            if similarity > best_similarity:
                best_similarity, best_text = similarity, text
            if best_similarity >= threshold:
                return ""
        if not best_text and position > 0:
            best_similarity, best_text = self._scan(table, vertical, "all", line).before(position)
        noun = "top heading" if vertical else "left heading"
        if not best_text:
            return f"no {noun} found for the cell at row {i}, column {j}"
        if best_similarity < threshold:
            return (
                f"the {noun} is {_quote(best_text)}, not {_quote(target)} "
                f"(similarity {best_similarity:.2f} < {threshold:.2f})"
            )
        return ""

    @staticmethod
    def _negative_header_columns(table: _Table, i: int) -> list[tuple[int, str]]:
        """A negative header column (after a negative colspan) indexes olmOCR's padded numpy row from its end;
        it precedes every cell, and one beyond the row's start raises."""
        entries = []
        for j in sorted(j for j in table.header_cols if j < 0):
            if j < -table.width:
                raise _Raises(f"an HTML table's header column {j} is outside its {table.width} columns (IndexError)")
            if table.cell(i, table.width + j).strip():
                entries.append((j, table.normalized(i, table.width + j)))
        return entries

    def _scan(self, table: _Table, vertical: bool, which: str, line: int) -> _BestBefore:
        key = (id(table), ("column " if vertical else "row ") + which, line)
        scan = self.scans.get(key)
        if scan is None:
            entries = table.column(line) if vertical else table.row_entries(line)
            if which == "headers":
                headers = table.header_rows if vertical else table.header_cols
                entries = [entry for entry in entries if entry[0] in headers]
                if not vertical and min(headers) < 0:
                    entries = self._negative_header_columns(table, line) + entries
            scan = _BestBefore(self.top_heading if vertical else self.left_heading, entries)
            self.scans[key] = scan
        return scan
