"""The tables of an output as olmOCR-Bench reads them: Markdown tables as its ``parse_markdown_tables``, HTML
tables as its ``parse_html_tables`` (BeautifulSoup's html.parser), bounded."""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field

from bs4 import BeautifulSoup, NavigableString, Tag

from .text import Span, normalize_text

# table: BeautifulSoup's html.parser takes 1-10 s a megabyte; an output with an HTML table longer than this is
# not parsed.
HTML_MAX_CHARS = 1_000_000
# table: element visits of olmOCR's HTML table walk (a nested table is walked once per enclosing table, its
# cells once per enclosing row) and cells of its rowspan/colspan grid; a flat 1 MB table needs about 800,000.
HTML_MAX_WORK = 10_000_000


@dataclass
class _Table:
    """A table as olmOCR-Bench's TableData holds it, without the padding: ``rows`` are ragged (a cell past the
    end of its row is "", as numpy's padding makes it) and hold what olmOCR's numpy array returns (trailing NUL
    characters dropped). Heading lists are the texts of olmOCR's ``col_headers`` and ``row_headers``, in order
    (their row and column numbers are never used); None for a Markdown table, whose first row heads every
    column and whose first column heads every later row."""

    rows: list[list[str]]
    header_rows: set[int]
    header_cols: set[int]
    col_headers: dict[int, list[str]] | None = None
    row_headers: dict[int, list[str]] | None = None
    # Where its cells are written in the output, for explanations: a Markdown table's rows' lines (the offset
    # each starts at); an HTML table's cells' tags (-1 for a position a span from above fills).
    row_starts: list[int] | None = None
    cell_starts: list[list[int]] | None = None
    width: int = field(init=False)
    _normalized: list[list[str]] | None = field(default=None, init=False)
    _flat: list[str] | None = field(default=None, init=False)
    _columns: dict[int, list[tuple[int, str]]] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.width = max((len(row) for row in self.rows), default=0)

    def cell(self, i: int, j: int) -> str:
        row = self.rows[i]
        return row[j] if j < len(row) else ""

    def cell_span(self, text: str, i: int, j: int) -> Span | None:
        """Where cell (i, j) is written in ``text``, the output the table was read from (None: nowhere of its
        own, as a padding cell or a position a span from above fills)."""
        if self.row_starts is not None:
            return _markdown_cell_span(text, self.row_starts[i], j)
        starts = self.cell_starts[i] if self.cell_starts is not None else []
        if j >= len(starts) or starts[j] < 0:
            return None
        return starts[j], _html_cell_end(text, starts[j])

    def normalized(self, i: int, j: int) -> str:
        row = self.normalized_rows[i]
        return row[j] if j < len(row) else ""

    @property
    def normalized_rows(self) -> list[list[str]]:
        if self._normalized is None:
            self._normalized = [[normalize_text(cell) for cell in row] for row in self.rows]
        return self._normalized

    @property
    def flat(self) -> list[str]:
        """The normalised cells row by row, for rapidfuzz's batch scoring."""
        if self._flat is None:
            self._flat = [cell for row in self.normalized_rows for cell in row]
        return self._flat

    def column(self, j: int) -> list[tuple[int, str]]:
        """(row, normalised text) of the non-blank cells of column j, top to bottom."""
        if self._columns is None:
            columns: dict[int, list[tuple[int, str]]] = {}
            for i, (row, normalized) in enumerate(zip(self.rows, self.normalized_rows, strict=True)):
                for k, cell in enumerate(row):
                    if cell.strip():
                        columns.setdefault(k, []).append((i, normalized[k]))
            self._columns = columns
        return self._columns.get(j, [])

    def row_entries(self, i: int) -> list[tuple[int, str]]:
        """(column, normalised text) of the non-blank cells of row i, left to right."""
        return [(k, n) for k, (c, n) in enumerate(zip(self.rows[i], self.normalized_rows[i], strict=True)) if c.strip()]

    def column_heading_texts(self, j: int) -> list[str] | None:
        if self.col_headers is None:  # Markdown: every column, headed by row 0 (padding included)
            return [self.cell(0, j)] if j < self.width else None
        return self.col_headers.get(j)

    def row_heading_texts(self, i: int) -> list[str] | None:
        if self.row_headers is None:  # Markdown: every row but the first, headed by column 0
            return [self.cell(i, 0)] if i >= 1 and self.width > 0 else None
        return self.row_headers.get(i)


# Markdown tables, as olmOCR-Bench's parse_markdown_tables reads them: a run of lines with a '|' (at least two
# lines) is a table; the first separator-like line and the lines of only '-', ' ', ':' and '|' are skipped.


def _markdown_tables(text: str) -> list[_Table]:
    tables: list[_Table] = []
    run: list[str] = []
    run_starts: list[int] = []  # where each line of the run starts in ``text``
    offset = len(text) - len(text.lstrip())
    for line in [*text.strip().split("\n"), ""]:  # a final line without '|' ends the last run
        if "|" in line:
            run.append(line)
            run_starts.append(offset)
        else:
            if len(run) >= 2:
                kept: list[int] = []
                rows = _markdown_rows(run, kept)
                if rows:
                    starts = [run_starts[k] for k in kept]
                    tables.append(_Table(rows=rows, header_rows={0}, header_cols={0}, row_starts=starts))
            run, run_starts = [], []
        offset += len(line) + 1
    return tables


def _markdown_cell_span(text: str, line_start: int, j: int) -> Span | None:
    """Where cell j of the Markdown table row on the line at ``line_start`` is written: its text, or the
    space between its pipes when it is blank (cut into cells as _markdown_rows cuts them)."""
    line_end = text.find("\n", line_start)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    pipes = [-1, *(k for k, c in enumerate(line) if c == "|"), len(line)]
    cells = list(zip([p + 1 for p in pipes[:-1]], pipes[1:], strict=True))
    if cells and not line[slice(*cells[0])].strip():  # the leading pipe
        cells = cells[1:]
    if cells and not line[slice(*cells[-1])].strip():  # the trailing pipe
        cells = cells[:-1]
    if j >= len(cells) or cells[j][0] >= cells[j][1]:
        return None
    start, end = cells[j]
    written = line[start:end]
    if written.strip():
        start += len(written) - len(written.lstrip())
        end = start + len(written.strip())
    return line_start + start, line_start + end


def _markdown_rows(lines: list[str], kept: list[int] | None = None) -> list[list[str]]:
    """The rows of a run of table lines (``kept``, if given, gets the index of each row's line)."""
    separator = None
    for index, line in enumerate(lines):
        content = line.replace("|", "").strip()
        if content and all(c in "- :" for c in content):
            separator = index
            break
    rows: list[list[str]] = []
    for index, line in enumerate(lines):
        if index == separator or (line.strip() and all(c in "- :|" for c in line)):
            continue
        cells = [cell.strip() for cell in line.split("|")]
        if cells and cells[0] == "":  # the leading pipe
            cells = cells[1:]
        if cells and cells[-1] == "":  # the trailing pipe
            cells = cells[:-1]
        if cells:
            rows.append([cell.rstrip("\x00") for cell in cells])  # numpy drops trailing NULs
            if kept is not None:
                kept.append(index)
    return rows


# HTML tables, as olmOCR-Bench's parse_html_tables reads them with BeautifulSoup's html.parser.


class _HtmlTableError(Exception):
    """The output's HTML tables cannot be read: olmOCR-Bench's parser raises on them (_Raises) or they exceed a
    bound. Every table fact on the output fails."""


class _Raises(_HtmlTableError):
    """olmOCR-Bench's check raises an exception on this output, which its benchmark runner counts as a failed
    check (the check's explanation is the exception's message)."""

    def __init__(self, what: str) -> None:
        super().__init__(f"olmOCR-Bench's check raises here: {what}; it counts as failed")


_TABLE_TAG = re.compile(r"<table", re.IGNORECASE)


def _html_tables(text: str) -> list[_Table]:
    # html.parser makes a <table> element only from "<table" (any case): without one there is no HTML table.
    if not _TABLE_TAG.search(text):
        return []
    if len(text) > HTML_MAX_CHARS:
        raise _HtmlTableError(
            f"not checked: the output has an HTML table and {len(text)} characters, more than HTML_MAX_CHARS "
            f"({HTML_MAX_CHARS})"
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bs4's hints (markup that resembles a file name, XML) are not ours
        soup = BeautifulSoup(text, "html.parser")
    budget = _Budget(HTML_MAX_WORK - _walk_cost(soup))
    # html.parser numbers lines by "\n" alone and columns from the line's start: offsets, for explanations
    lines = [0, *(match.end() for match in _NEWLINE.finditer(text))]
    return [_html_table(table, budget, lines) for table in soup.find_all("table") if isinstance(table, Tag)]


_NEWLINE = re.compile("\n")
# What ends an HTML table cell's markup: the next cell, row or table tag (a closing cell tag included).
_CELL_END = re.compile(r"<(/?)(td|th|tr|table)\b[^>]*>?", re.IGNORECASE)


def _html_cell_end(text: str, start: int) -> int:
    opened = text.find(">", start)
    found = _CELL_END.search(text, opened + 1) if opened >= 0 else None
    if found is None:
        return len(text)
    return found.end() if found.group(1) and found.group(2).lower() in ("td", "th") else found.start()


class _Budget:
    def __init__(self, left: int) -> None:
        self.left = left
        self.spend(0)

    def spend(self, work: int) -> None:
        self.left -= work
        if self.left < 0:
            raise _HtmlTableError(
                f"not checked: the output's HTML tables need more work than HTML_MAX_WORK ({HTML_MAX_WORK}) "
                "(deeply nested tables or huge rowspan/colspan)"
            )


def _walk_cost(soup: BeautifulSoup) -> int:
    """The element visits of olmOCR's walk: each table searches its subtree for rows, each row (of each table
    it is in) its subtree for cells, each cell (of each row it is in) its subtree for <br> and text."""
    # per element: (tables above it, Σ over rows above it of the tables above that row,
    #               Σ over cells at or above it of the same for that cell)
    costs: dict[int, tuple[int, int, int]] = {id(soup): (0, 0, 0)}
    total = 0
    for node in soup.descendants:
        parent = node.parent
        assert parent is not None
        tables, rows, cells = costs[id(parent)]
        if parent.name == "table":
            tables += 1
        elif parent.name == "tr":
            rows += costs[id(parent)][0]
        if isinstance(node, Tag):
            if node.name in ("th", "td"):
                cells += rows
            costs[id(node)] = (tables, rows, cells)
        total += tables + 2 * rows + 2 * cells + 1
    return total


class _RowIndex:
    """``rows.index(row)`` as olmOCR calls it: the first row that *equals* it (BeautifulSoup compares tags by
    name, attributes and contents), not necessarily itself. Equal rows have equal keys, so only the rows with
    the key of ``row`` are compared (``rows.index`` compares each <thead> row with every row before it)."""

    def __init__(self, rows: list[Tag]) -> None:
        self.rows = rows
        self.by_key: dict[tuple[object, ...], list[int]] = {}
        for index, row in enumerate(rows):
            self.by_key.setdefault(self.key(row), []).append(index)

    @staticmethod
    def key(row: Tag) -> tuple[object, ...]:
        """The row's elements (names and attributes) and its text, in document order. A string is keyed by its
        text alone: BeautifulSoup compares strings as str (a comment equals the same text)."""
        parts: list[object] = []
        for node in row.descendants:
            if isinstance(node, Tag):
                attributes = sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in node.attrs.items())
                parts.append((node.name, tuple(attributes)))
            elif isinstance(node, NavigableString):
                parts.append(str.__str__(node))
        return tuple(parts)

    def index(self, row: Tag) -> int:
        for index in self.by_key.get(self.key(row), ()):
            other = self.rows[index]
            if other is row or other == row:
                return index
        raise AssertionError("a row of the table is not among its rows")


def _span(cell: Tag, name: str) -> int:
    value = cell.attrs.get(name, 1)
    try:
        # as olmOCR reads it: " 2 " and "1_0" are numbers, "2px" and "" are not (nor a list: a multi-valued
        # attribute, which rowspan and colspan are not)
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise _Raises(f"an HTML table cell has {name}={value!r}, not a number (ValueError)") from None


def _html_table(table: Tag, budget: _Budget, lines: list[int]) -> _Table:
    rows = [row for row in table.find_all(["tr"]) if isinstance(row, Tag)]
    header_rows: set[int] = set()
    header_cols: set[int] = set()
    col_headers: dict[int, list[str]] = {}
    row_headers: dict[int, list[str]] = {}
    # Rows of a <thead> are header rows.
    thead = table.find("thead")
    if isinstance(thead, Tag):
        index_of = _RowIndex(rows)
        for tr in thead.find_all("tr"):
            assert isinstance(tr, Tag)
            header_rows.add(index_of.index(tr))
    # (row, column) -> the text a rowspan/colspan from an earlier cell puts there: the cell's own text directly
    # below it, "" elsewhere. olmOCR's grid and a row's cells disagree (a colspan advances the grid column but
    # adds one cell to the row); this is reproduced, not fixed.
    grid: dict[tuple[int, int], str] = {}
    col_span_info: dict[str, set[int]] = {}  # a header text spanning columns -> its columns
    row_span_info: dict[str, set[int]] = {}  # a header text spanning rows -> its rows
    data: list[list[str]] = []
    cell_starts: list[list[int]] = []  # parallel to data: where each cell's tag is (-1: filled by a span)
    for row_index, row in enumerate(rows):
        cells = [cell for cell in row.find_all(["th", "td"]) if isinstance(cell, Tag)]
        row_data: list[str] = []
        row_starts: list[int] = []
        column = 0
        if row.find("th"):  # a row with a <th> is a header row
            header_rows.add(row_index)
        for cell in cells:
            while (row_index, column) in grid:  # positions a span from above fills
                row_data.append(grid[(row_index, column)])
                row_starts.append(-1)
                column += 1
            for br in cell.find_all("br"):
                br.replace_with("\n")
            text = cell.get_text().strip()
            rowspan, colspan = _span(cell, "rowspan"), _span(cell, "colspan")
            row_data.append(text)
            known = cell.sourceline is not None and cell.sourcepos is not None
            row_starts.append(lines[cell.sourceline - 1] + cell.sourcepos if known else -1)  # type: ignore[operator]
            # Grid positions past the last row are never read: spans end at the table's end. (A negative colspan
            # moves back: the walk above may then read up to that many positions again.)
            down_to = min(rowspan, len(rows) - row_index)
            budget.spend(max(0, down_to) * max(0, colspan) + abs(colspan))
            for i in range(down_to):
                for j in range(colspan):
                    if i == 0 and j == 0:
                        continue
                    grid[(row_index + i, column + j)] = text if j == 0 and i > 0 else ""
            if cell.name == "th":
                for j in range(colspan):
                    header_cols.add(column + j)
                for i in range(1, down_to):
                    header_rows.add(row_index + i)
                for j in range(colspan):
                    col_headers.setdefault(column + j, []).append(text)
                    if text and colspan > 1:
                        col_span_info.setdefault(text, set()).add(column + j)
                if text and rowspan > 1:
                    row_span_info.setdefault(text, set()).update(range(row_index, row_index + down_to))
            if cell.name == "td" and rowspan > 1 and column in header_cols:
                for i in range(1, down_to):
                    row_headers.setdefault(row_index + i, []).append(text)
            column += colspan
        data.append(row_data)
        cell_starts.append(row_starts)
    _spread_headings(data, header_rows, header_cols, col_headers, row_headers, col_span_info, row_span_info, budget)
    return _Table(
        rows=[[cell.rstrip("\x00") for cell in row] for row in data],
        header_rows=header_rows,
        header_cols=header_cols,
        col_headers=col_headers,
        row_headers=row_headers,
        cell_starts=cell_starts,
    )


def _spread_headings(
    data: list[list[str]],
    header_rows: set[int],
    header_cols: set[int],
    col_headers: dict[int, list[str]],
    row_headers: dict[int, list[str]],
    col_span_info: dict[str, set[int]],
    row_span_info: dict[str, set[int]],
    budget: _Budget,
) -> None:
    """olmOCR's second pass, without its repeated scans of every heading list (the same lists, in the same
    order, in time linear in the result)."""
    # A heading spanning columns heads every column from its first to the end of the longest data row.
    data_width = max((len(row) for index, row in enumerate(data) if index not in header_rows), default=None)
    seen: dict[int, set[str]] = {}
    for text, columns in col_span_info.items():
        if data_width is None:
            break
        budget.spend(max(0, data_width - min(columns)))
        for j in range(min(columns), data_width):
            texts = col_headers.setdefault(j, [])
            known = seen.setdefault(j, set(texts))
            if text not in known:
                texts.append(text)
                known.add(text)
    # A heading spanning rows heads each of its rows.
    for text, spanned in row_span_info.items():
        for i in spanned:
            if i < len(data):
                texts = row_headers.setdefault(i, [])
                if text not in texts:
                    texts.append(text)
    # Each non-blank cell of a header column heads its row, columns taken in the header set's order.
    order = list(header_cols)
    rank = {j: k for k, j in enumerate(order)}
    negative = any(j < 0 for j in order)  # only from a negative colspan; Python indexes from the row's end
    for i, row in enumerate(data):
        if negative or len(order) <= len(row):
            in_row = [j for j in order if j < len(row)]
            if in_row and min(in_row) < -len(row):
                raise _Raises(f"an HTML table's header column {min(in_row)} is outside row {i} (IndexError)")
        else:  # many header columns, a short row: only the row's own columns can head it
            in_row = sorted((j for j in range(len(row)) if j in rank), key=rank.__getitem__)
        budget.spend(len(in_row))
        for j in in_row:
            if row[j].strip():
                texts = row_headers.setdefault(i, [])
                if row[j] not in texts:
                    texts.append(row[j])
