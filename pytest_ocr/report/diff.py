"""An aligned, character-level diff of expected vs recognized text for failure output.

Shows the normalised texts (what was actually compared), in windows around the
differences, so a 3,000-character page with two errors prints two short windows.
"""

from __future__ import annotations

from rapidfuzz.distance import Levenshtein

from ..metrics import Normalization

WIDTH = 72
CONTEXT = 12
MAX_WINDOWS = 8
GAP = "·"  # stands for a character that one side does not have
VISIBLE = {"\n": "⏎", "\t": "⇥", "\r": "␍"}


def _align(reference: str, hypothesis: str) -> tuple[str, str, str]:
    """Two equally long rows (gaps filled) and a marker row: ^ substitution, - deletion, + insertion."""
    ref_row, hyp_row, marks = [], [], []
    for op in Levenshtein.opcodes(reference, hypothesis):
        tag, i1, i2, j1, j2 = op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end
        if tag == "equal":
            ref_row.append(reference[i1:i2])
            hyp_row.append(hypothesis[j1:j2])
            marks.append(" " * (i2 - i1))
        elif tag == "replace":
            ref_row.append(reference[i1:i2])
            hyp_row.append(hypothesis[j1:j2])
            marks.append("^" * (i2 - i1))
        elif tag == "delete":
            ref_row.append(reference[i1:i2])
            hyp_row.append(GAP * (i2 - i1))
            marks.append("-" * (i2 - i1))
        else:
            ref_row.append(GAP * (j2 - j1))
            hyp_row.append(hypothesis[j1:j2])
            marks.append("+" * (j2 - j1))
    visible = str.maketrans(VISIBLE)
    return "".join(ref_row).translate(visible), "".join(hyp_row).translate(visible), "".join(marks)


def _windows(marks: str) -> list[tuple[int, int]]:
    """Spans of at most WIDTH columns covering every difference with some context."""
    spans: list[tuple[int, int]] = []
    for i, mark in enumerate(marks):
        if mark == " ":
            continue
        if spans and i < spans[-1][1] and i < spans[-1][0] + WIDTH:
            spans[-1] = (spans[-1][0], min(len(marks), max(spans[-1][1], i + CONTEXT)))
        else:
            spans.append((max(0, i - CONTEXT), min(len(marks), i + CONTEXT)))
    return spans


def aligned_diff(reference: str, hypothesis: str, normalization: Normalization) -> list[str]:
    ref, hyp = normalization(reference), normalization(hypothesis)
    steps = ", ".join(normalization.steps()) or "none"
    if ref == hyp:
        return [f"(texts are identical after normalisation: {steps})"]
    ref_row, hyp_row, marks = _align(ref, hyp)
    spans = _windows(marks)
    lines = [f"aligned diff after normalisation ({steps}); ^ substituted, - missing, + extra, {GAP} gap:"]
    for start, end in spans[:MAX_WINDOWS]:
        lines.append(f"  @ column {start + 1}")
        lines.append(f"  expected:   {ref_row[start:end]}")
        lines.append(f"  recognized: {hyp_row[start:end]}")
        lines.append(f"              {marks[start:end].rstrip()}")
    if len(spans) > MAX_WINDOWS:
        lines.append(
            f"  ... {len(spans) - MAX_WINDOWS} more differing segments not shown "
            "(the JSON report from --ocr-report has both full texts)"
        )
    return lines
