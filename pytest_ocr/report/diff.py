"""An aligned, character-level diff of expected vs recognized text for failure output.

Shows the normalised texts (what was actually compared), in windows around the
differences, so a 3,000-character page with two errors prints two short windows.
Each character takes one column of the rows, as wide as its widest side: a line break
shows as ⏎ and a tab as ⇥; control and format characters (ESC, NUL, CR, bidi overrides)
as their escapes (``\\x1b``, ``\\u202e``, see visible.py) with the marks under the
whole escape; CJK characters take two terminal columns on both rows.
"""

from __future__ import annotations

from rapidfuzz.distance import Levenshtein

from ..metrics import Normalization
from ..visible import visible
from .columns import width

WIDTH = 72
CONTEXT = 12
MAX_WINDOWS = 8
GAP = "·"  # stands for a character that one side does not have
LAYOUT = {"\n": "⏎", "\t": "⇥"}


def _shown(row: list[str]) -> list[str]:
    """Each character of an aligned row as it is printed: layout characters as symbols,
    hidden ones as escapes, and the ``[`` of ``##[`` (a workflow command anywhere in a
    line) as ``\\x5b``, so no row can carry a command across its cells."""
    shown = [LAYOUT.get(ch) or visible(ch) for ch in row]
    for i in range(2, len(row)):
        if row[i] == "[" and row[i - 1] == "#" and row[i - 2] == "#":
            shown[i] = "\\x5b"
    return shown


def _align(reference: str, hypothesis: str) -> tuple[list[str], list[str], list[str], list[int]]:
    """The aligned rows, one cell per character or gap: the expected and recognized cells
    and a mark per cell (^ substitution, - deletion, + insertion); and each cell's width."""
    ref_row: list[str] = []
    hyp_row: list[str] = []
    marks: list[str] = []
    for op in Levenshtein.opcodes(reference, hypothesis):
        tag, i1, i2, j1, j2 = op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end
        if tag in ("equal", "replace"):
            ref_row += reference[i1:i2]
            hyp_row += hypothesis[j1:j2]
            marks += (" " if tag == "equal" else "^") * (i2 - i1)
        elif tag == "delete":
            ref_row += reference[i1:i2]
            hyp_row += GAP * (i2 - i1)
            marks += "-" * (i2 - i1)
        else:
            ref_row += GAP * (j2 - j1)
            hyp_row += hypothesis[j1:j2]
            marks += "+" * (j2 - j1)
    ref_cells, hyp_cells = _shown(ref_row), _shown(hyp_row)
    widths = [max(1, width(r), width(h)) for r, h in zip(ref_cells, hyp_cells, strict=True)]
    return ref_cells, hyp_cells, marks, widths


def _windows(marks: str, widths: list[int], limit: int) -> list[tuple[int, int]]:
    """Spans of cells at most ``limit`` columns wide covering every difference with
    CONTEXT cells around it where they fit; a span starts where the one before it
    ended at the earliest, so no cell is shown twice."""
    cum = [0]
    for w in widths:
        cum.append(cum[-1] + w)

    def fitted(start: int, end: int, at_least: int) -> int:
        while end > at_least and cum[end] - cum[start] > limit:
            end -= 1
        return end

    spans: list[tuple[int, int]] = []
    for i, mark in enumerate(marks):
        if mark == " ":
            continue
        if spans and i < spans[-1][1]:
            start, end = spans[-1]
            if cum[i + 1] - cum[start] <= limit:
                spans[-1] = (start, fitted(start, max(end, min(len(marks), i + CONTEXT)), i + 1))
            continue  # else cell i is shown already
        start = max(0, i - CONTEXT, spans[-1][1] if spans else 0)
        while cum[i + 1] - cum[start] > limit and start < i:
            start += 1
        spans.append((start, fitted(start, min(len(marks), i + CONTEXT), i + 1)))
    return spans


PREFIX = "  recognized: "


def aligned_diff(
    reference: str,
    hypothesis: str,
    normalization: Normalization,
    windows: int = MAX_WINDOWS,
    columns: int | None = None,
) -> list[str]:
    """The diff in at most ``windows`` windows, each row at most ``columns`` wide (None:
    the default width)."""
    ref, hyp = normalization(reference), normalization(hypothesis)
    steps = ", ".join(normalization.steps()) or "none"
    if ref == hyp:
        return [f"(texts are identical after normalisation: {steps})"]
    ref_cells, hyp_cells, marks, widths = _align(ref, hyp)
    limit = WIDTH + CONTEXT if columns is None else max(20, columns - len(PREFIX))
    spans = _windows("".join(marks), widths, limit)

    def row(cells: list[str], start: int, end: int) -> str:
        return "".join(c + " " * (w - width(c)) for c, w in zip(cells[start:end], widths[start:end], strict=True))

    def mark_row(start: int, end: int) -> str:
        return "".join(m * w for m, w in zip(marks[start:end], widths[start:end], strict=True)).rstrip()

    brief = windows < MAX_WINDOWS
    lines = [
        f"  diff after normalisation ({steps}):"
        if brief
        else f"aligned diff after normalisation ({steps}); ^ substituted, - missing, + extra, {GAP} gap:"
    ]
    for start, end in spans[:windows]:
        lines.append(f"  @ column {start + 1}")
        lines.append(f"  expected:   {row(ref_cells, start, end)}")
        lines.append(f"{PREFIX}{row(hyp_cells, start, end)}")
        lines.append(" " * len(PREFIX) + mark_row(start, end))
    if len(spans) > windows:
        lines.append(
            f"  … and {len(spans) - windows} more differing segments"
            + (" (--tb=long)" if brief else " (the JSON report from --ocr-report has both full texts)")
        )
    return lines
