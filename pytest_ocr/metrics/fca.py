"""Flexible character accuracy (FCA): a character accuracy that ignores reading order.

Clausner, Pletschacher, Antonacopoulos, "Flexible character accuracy measure for
reading-order-independent evaluation", Pattern Recognition Letters 131 (2020)
390-397, doi:10.1016/j.patrec.2020.02.003.

A page whose columns, or a receipt whose rows, were read in another order than
the ground truth keeps its score: lines are matched to each other (and split
where one line of one side holds parts of several lines of the other) before
edit distances are counted.

    >>> flexible_character_accuracy("total 5.00\\nfee 1.00", "fee 1.00\\ntotal 5.00").accuracy
    1.0

The algorithm and its results follow the reference implementation in the
qurator-spk/dinglehopper FCA branch (``qurator/dinglehopper/flexible_character_accuracy.py``
at commit 0dd5fc0ee59993aebb31447bc4a77cf085989f0c), whose tests reproduce the
worked examples of the paper (figures 3 and 4). The reference marks some steps as
its own variations of the paper's algorithm (step 3 below takes several long GT
lines rather than only the longest; sorting the OCR lines breaks ties). For one
setting of the penalty coefficients:

1. Split both texts into lines (``str.splitlines``); drop empty lines.
2. Sort the lines of each side by length, longest first (a stable sort).
3. Take every GT line at least ``min(longest GT line, longest OCR line)`` long.
   For each, and each OCR line, find the best local match: slide the shorter
   line along the longer one and keep the first window with the smallest edit
   score ``D + I + 2 * R`` (counted on rapidfuzz's Levenshtein alignment) among
   those with fewer substitutions than the shorter line has characters; try
   lengthening the match at its end by up to ``D + R`` characters; and prefer
   deleting the whole GT line if its length is smaller still. The OCR line whose
   match has the smallest penalty (the first on ties) is the GT line's pick ::

       penalty = score * c_edit + d * c_length_diff + offset * c_offset
                 - min(len(gt), len(ocr)) * c_length

   with ``d = |len(gt) - len(ocr)|`` and, if ``d > 1``,
   ``offset = d / 2 - |position - d / 2|`` where ``position`` is where the match
   starts in the longer line (else 0). The first GT line whose pick has the
   highest character accuracy ``1 - edits / len(matched GT part)`` is matched.
4. Remove the matched parts; the unmatched rest of a split line goes back into
   the pool (re-sorted).
5. Repeat 3-4 while both sides have text left.
6. What is left is unmatched: each remaining GT character is a deletion, each
   remaining OCR character an insertion.
7. Errors = Levenshtein distances of the matched pairs + unmatched characters.

This runs for every combination of ``c_edit`` in 15..30 (step 5), ``c_length_diff``
in 0..21 (step 3), ``c_offset`` in 0..3 and ``c_length`` in 0..5 (768 settings,
``COEFFICIENTS``); the setting with the fewest errors wins (the first in that
order on a tie), as in the reference.

What counts:

* ``reference_length`` is the number of ground-truth characters *excluding line
  breaks* (``sum(len(line) for line in reference.splitlines())``), as in the
  reference (the paper's figure 3 example has 68 characters on 8 lines). Spaces
  inside lines count like any other character, so text merged from two lines
  costs one error for the joining space.
* ``accuracy = 1 - errors / reference_length``. It is at most 1 and, as in the
  reference, *can be negative* when the hypothesis has more surplus characters
  than the reference has characters (``"a"`` against ``"a\\nbb\\nccc"`` is
  1 - 5/1 = -4). It is not clipped, so error counts stay additive when pooled.
* Empty reference (no characters outside line breaks): accuracy 1.0 and 0 errors
  when the hypothesis has no characters either, otherwise accuracy 0.0 with
  ``errors`` = the hypothesis's characters excluding line breaks. (The reference
  returns ``-errors`` as the score there; this keeps it finite, like
  :mod:`pytest_ocr.metrics.edit` does for an empty reference.)
* Results depend on which of several equally short Levenshtein alignments is
  counted, because ``D + I + 2 * R`` differs between them: "abcd" to "beed" is
  three substitutions in rapidfuzz's alignment, and one deletion, one insertion
  and one substitution in another. This module counts rapidfuzz's alignment;
  the ``Levenshtein`` package the reference imports is built on the same
  rapidfuzz C++ library in its current releases. An early reference test that
  expected the other alignment for that pair was replaced in the branch's final
  version.

How it is computed: with the same results as running the 768 settings one by
one, for far less work (a 60-line, 3,000-character page took 20 ms to 0.9 s of
CPU in our measurements, growing with how much the OCR differs; the reference
approach takes seconds to minutes):

* All settings advance together through the greedy matching, and a group only
  splits where its settings pick different pairs; groups that reach the same
  state are merged, so shared work is done once.
* Settings run in three passes; the best result so far bounds the next passes.
  A branch whose errors so far plus a lower bound on the errors still to come
  (the bag-of-characters difference of the remaining text) exceed that best is
  dropped, since none of its settings can win or tie.
* Per GT line, an OCR line is dropped when another one is at least as good in
  every penalty term and wins the tie, and so is one that loses to a corner
  winner at all 16 corners of the coefficient grid: penalties are linear in the
  coefficients, so it loses at every setting in between.
* GT lines are expanded lazily, by the best accuracy any of their pairs has.
* A pair is declared a deletion at once when ``2 * (shorter length - LCS)``
  exceeds the GT length, a lower bound of every candidate's edit score.
  Otherwise windows are screened with the Indel distance (another lower bound)
  and only those that can beat the best so far get a full alignment. Pair
  results are cached by text.

All distances and alignments come from ``rapidfuzz.distance``; nothing here walks
a DP matrix in Python. The worst case is still the reference's: 768 diverging
greedy runs, and window scans that grow with line length times length difference.
Measured (CPU): 0.3 s for two 10,000-character pages of 140 lines, 4 s at 20,000 and
45 s at 40,000 characters; one 3,000-character line against 3,000 characters in lines
takes 7 s, 5,000 against 5,000 40 s (benchmarks/bench_metric_bounds.py).

The cheaper path. When either text has more than ``max_chars`` characters outside
line breaks (by default ``max_align_chars / 20``: 10,000 with the default limit), or
when the search does more work than its budget (``FCA_BUDGET`` units: line windows
and pairs compared, weighted by their size; 1 to 3 s of CPU, which pages of up to
10,000 characters in lines of ordinary length stay well within), the result comes
from a cheaper matching instead: lines that occur on both sides (the same text, as
often as it occurs on both) are paired whatever their order, at no cost, and the
characters of the other lines, joined in reading order, are aligned as ``cer``
aligns them (in windows above ``max_align_chars``); errors are that alignment's
edits. The result says so (``approximate``) and carries the bag-of-characters lower
bound, which bounds the exact FCA errors from below as well (every matched pair needs
at least its bag difference in edits, and unmatched characters cost one each). It is
not a bound on the exact value from above: that is itself a greedy search. Lines
that only changed places score as they do exactly (no errors); lines that changed
places and text cost up to their length twice. ``matches`` is empty on this path.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import product

from rapidfuzz.distance import Indel, LCSseq, Levenshtein

from .align import align, bag_lower_bound
from .align import max_align_chars as resolve_limit

__all__ = ["COEFFICIENTS", "COEFFICIENT_GRID", "FCAResult", "fca_max_chars", "flexible_character_accuracy"]

#: The exact search runs up to max_align_chars / FCA_SHARE characters a side,
FCA_SHARE = 20
#: and as long as its work (line windows and pairs compared, weighted by their size) stays
#: within FCA_BUDGET: 2.5 s of CPU at most in our measurements.
FCA_BUDGET = 10_000_000

# [work done, budget] of the search under way in this context, if it has a budget
_WORK: ContextVar[list[int] | None] = ContextVar("fca_work", default=None)


class _OverBudget(Exception):
    """The exact search has done more work than its budget allows."""


def _spend(units: int) -> None:
    work = _WORK.get()
    if work is not None:
        work[0] += units
        if work[0] > work[1]:
            raise _OverBudget


#: Values tried for (c_edit, c_length_diff, c_offset, c_length), as in the reference.
COEFFICIENT_GRID: tuple[tuple[int, ...], ...] = (
    tuple(range(15, 31, 5)),
    tuple(range(0, 24, 3)),
    tuple(range(0, 4)),
    tuple(range(0, 6)),
)
#: Every (c_edit, c_length_diff, c_offset, c_length) setting, in the order tried.
COEFFICIENTS: tuple[tuple[int, int, int, int], ...] = tuple(
    (ce, cl, co, cs) for ce, cl, co, cs in product(*COEFFICIENT_GRID)
)


@dataclass(frozen=True)
class FCAResult:
    """Outcome of :func:`flexible_character_accuracy`.

    ``matches`` lists every piece of text that was scored, as JSON-safe dicts with
    the keys ``gt_line``, ``gt_start``, ``gt_text``, ``ocr_line``, ``ocr_start``,
    ``ocr_text`` and ``distance`` (Levenshtein distance of the pair). Line indices
    count all lines of the input (``str.splitlines``), empty ones included;
    ``*_start`` is the character offset of the piece inside its line. A piece of
    ground truth left unmatched has ``ocr_line`` = ``ocr_start`` = None and
    ``ocr_text`` = ""; an unmatched piece of OCR text has ``gt_line`` =
    ``gt_start`` = None and ``gt_text`` = "". Entries come in ground-truth order,
    then the unmatched OCR pieces in OCR order; ``sum(m["distance"]) == errors``.

    ``approximate`` is None for the exact search, else what the cheaper path did
    (``matches`` is then empty and ``lower_bound`` a lower bound on the errors).

    ``substitutions``, ``deletions`` and ``insertions`` split the errors as ``cer``'s
    counts do: an unmatched piece of ground truth is deleted, an unmatched piece of OCR
    text inserted, and a matched pair counts the edits of its minimal alignment. None
    on the cheaper path, which matches nothing.
    """

    accuracy: float
    errors: int
    reference_length: int
    matches: list
    approximate: str | None = None
    lower_bound: int | None = None

    @cached_property
    def _edits(self) -> tuple[int, int, int] | None:
        if self.approximate is not None:
            return None
        substitutions = deletions = insertions = 0
        for match in self.matches:
            for op in Levenshtein.editops(match["gt_text"], match["ocr_text"]):
                substitutions += op.tag == "replace"
                deletions += op.tag == "delete"
                insertions += op.tag == "insert"
        return substitutions, deletions, insertions

    @property
    def substitutions(self) -> int | None:
        return None if self._edits is None else self._edits[0]

    @property
    def deletions(self) -> int | None:
        return None if self._edits is None else self._edits[1]

    @property
    def insertions(self) -> int | None:
        return None if self._edits is None else self._edits[2]


# A piece of a line: (text, line index, start offset within the line).
# Line comparisons are cached as
# (edit score, R, D, I, gt offset, gt length, ocr offset, ocr length),
# offsets relative to the compared pieces.


def _alignment(a: str, b: str) -> tuple[int, int, int, int]:
    """(edit score, substitutions, deletions, insertions) of rapidfuzz's Levenshtein
    alignment of a to b. The edit score is D + I + 2 * R."""
    _spend(24 + len(a) * len(b) // 2048)  # a call costs about as much as 24 window comparisons
    ops = Levenshtein.editops(a, b)
    dist = len(ops)
    hits = sum(block.size for block in ops.as_matching_blocks())
    score = len(a) + len(b) - 2 * hits
    replace = score - dist
    delete = len(a) - hits - replace
    return score, replace, delete, dist - replace - delete


def _match_lines(gt: str, ocr: str) -> tuple[int, int, int, int, int, int, int, int]:
    """Best local alignment of two non-empty pieces (reference: ``match_lines``).

    The shorter piece slides along the longer one; candidates, in the reference's
    order, are every window and then the two full pieces. The first candidate
    with the smallest edit score wins, provided it has fewer substitutions than
    the shorter piece has characters. Then the match is extended at its end by up
    to as many characters as it has deletions plus substitutions, and finally
    deleting the whole GT piece is preferred if that scores lower still.
    """
    lg, lo = len(gt), len(ocr)
    short = min(lg, lo)
    _spend(1 + lg * lo // 2048)
    # Every candidate pairs a substring of ``gt`` with one of ``ocr``, both at least
    # ``short`` long, so its edit score (len + len - 2 * hits) is at least
    # 2 * (short - LCS(gt, ocr)). When that exceeds len(gt), deleting wins.
    if 2 * (short - LCSseq.similarity(gt, ocr)) > lg:
        return (lg, 0, lg, 0, 0, lg, 0, 0)
    diff = lg - lo
    _spend((abs(diff) + 1) * (1 + short // 32))  # the windows about to be compared, by their size
    # Candidates as (gt offset, gt length, ocr offset, ocr length).
    if diff > 0:
        cands = [(i, short, 0, lo) for i in range(diff + 1)]
    elif diff < 0:
        cands = [(0, lg, j, short) for j in range(-diff + 1)]
    else:
        cands = []
    cands.append((0, lg, 0, lo))
    if diff > 0:
        bounds = [Indel.distance(gt[i : i + short], ocr) for i in range(diff + 1)]
    elif diff < 0:
        bounds = [Indel.distance(gt, ocr[j : j + short]) for j in range(-diff + 1)]
    else:
        bounds = []
    bounds.append(Indel.distance(gt, ocr))

    best_score = None  # None stands for infinity
    best_idx = -1
    best = None
    # Visit candidates by lower bound; the order of the reference decides ties.
    for idx in sorted(range(len(cands)), key=bounds.__getitem__):
        bound = bounds[idx]
        if best_score is not None and (bound > best_score or (bound == best_score and idx > best_idx)):
            break
        gi, gl, oj, ol = cands[idx]
        score, r, d, i = _alignment(gt[gi : gi + gl], ocr[oj : oj + ol])
        if r < short and (best_score is None or score < best_score or (score == best_score and idx < best_idx)):
            best_score, best_idx = score, idx
            best = (score, r, d, i, gi, gl, oj, ol)

    if best is not None and best_score is not None and (best[2] or best[1]):
        # Extend the match at its end (reference: "elongate at the end for handling deletes").
        _, r, d, _, gi, gl, oj, _ = best
        prev = None
        for k in range(gl + 1, gl + d + r + 1):
            gsub = gt[gi : gi + k]
            osub = ocr[oj : oj + k]
            lengths = (len(gsub), len(osub))
            if lengths == prev:
                break  # both pieces exhausted: every further candidate is the same
            prev = lengths
            if Indel.distance(gsub, osub) >= best_score:
                continue
            score, r2, d2, i2 = _alignment(gsub, osub)
            if score < best_score and r2 < short:
                best_score = score
                best = (score, r2, d2, i2, gi, len(gsub), oj, len(osub))

    if best is None or best_score is None or lg < best_score:
        best = (lg, 0, lg, 0, 0, lg, 0, 0)  # delete the whole GT piece
    return best


def _remove_or_split(pieces: list, original: tuple, text: str, start: int) -> None:
    """Remove ``original`` from ``pieces``; put back what lies outside the matched
    part ``text`` at ``start`` and re-sort (reference: ``remove_or_split``)."""
    del pieces[pieces.index(original)]
    otext, line, ostart = original
    if len(text) < len(otext):
        if ostart < start:
            pieces.append((otext[: start - ostart], line, ostart))
        end = start + len(text)
        if end < ostart + len(otext):
            pieces.append((otext[end - ostart :], line, end))
        pieces.sort(key=lambda piece: len(piece[0]), reverse=True)


def _initial_pieces(text: str) -> list:
    pieces = [(line, i, 0) for i, line in enumerate(text.splitlines()) if line]
    pieces.sort(key=lambda piece: len(piece[0]), reverse=True)
    return pieces


@lru_cache(maxsize=256)
def _digit_table(n: int) -> bytes:
    """bytes.translate table: byte n becomes "1", every other byte "0"."""
    return bytes(0x31 if b == n else 0x30 for b in range(256))


def _bits(mask: int) -> Iterator[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


@lru_cache(maxsize=4)
def _grid_tables(grid: tuple[tuple[int, ...], ...]) -> tuple:
    """(all settings, doubled settings, doubled corners, passes) of a grid.

    Penalties are compared doubled so that they stay integers (the offset term is
    a multiple of 1/2): the offset itself is doubled instead of its coefficient.
    """
    settings = list(product(*grid))
    everything = (1 << len(settings)) - 1
    doubled = tuple((2 * ce, 2 * cl, co, 2 * cs) for ce, cl, co, cs in settings)
    corners = tuple(
        (2 * ce, 2 * cl, co, 2 * cs) for ce, cl, co, cs in product(*[sorted({min(v), max(v)}) for v in grid])
    )
    # Passes, each bounded by the best result of the ones before: the first
    # c_edit, c_length_diff and c_offset with every c_length, then the rest of the
    # first c_length_diff (on real pages the winners are usually among these),
    # then all other settings.
    first = sum(1 << c for c, (ce, cl, co, _) in enumerate(settings) if (ce, cl, co) == settings[0][:3])
    first_diff = sum(1 << c for c, coef in enumerate(settings) if coef[1] == grid[1][0])
    return everything, doubled, corners, (first, first_diff, everything)


class _Matcher:
    """Runs the greedy matching for every setting of a coefficient grid at once.

    Sets of settings are Python ints used as bit sets over ``product(*grid)``.
    """

    def __init__(self, grid: tuple[tuple[int, ...], ...] = COEFFICIENT_GRID) -> None:
        self._all, self._doubled, self._corners, self._passes = _grid_tables(grid)
        self._rows: dict[str, dict[str, tuple]] = {}
        self._fronts: dict[tuple, list] = {}
        self._picks: dict[tuple, list] = {}

    @staticmethod
    def _pair(gt: str, ocr: str) -> tuple:
        """(edit score, length diff, offset, shorter length, accuracy, match) of a pair:
        the terms of the penalty and the character accuracy of the match."""
        match = _match_lines(gt, ocr)
        score, r, d, i, gi, gl, oj, _ = match
        lg, lo = len(gt), len(ocr)
        length_diff = abs(lg - lo)
        offset = 0.0
        if length_diff > 1:
            position = max(gi, oj)
            offset = length_diff / 2 - abs(position - length_diff / 2)
        return (score, length_diff, offset, min(lg, lo), 1.0 - (r + d + i) / gl, match)

    def _row(self, gt: str, ocr_texts: tuple) -> list:
        """The pair features of ``gt`` with each of ``ocr_texts``."""
        row = self._rows.get(gt)
        if row is None:
            row = self._rows[gt] = {}
        get = row.get
        features = [get(ocr) for ocr in ocr_texts]
        if None in features:
            for k, ocr in enumerate(ocr_texts):
                if features[k] is None:
                    found = get(ocr)
                    if found is None:
                        found = row[ocr] = self._pair(gt, ocr)
                    features[k] = found
        return features

    def _front(self, gt: str, ocr_texts: tuple, features: list) -> list:
        """The OCR pieces some coefficient setting may pick for ``gt``, as
        (index, features), in index order.

        A piece is dropped when another one is at least as good in every penalty
        term and wins the tie: it comes first, or it has a strictly smaller edit
        score (whose coefficient is never 0). Visiting the pieces by (edit score,
        index), everything visited earlier wins such ties, so each piece only has
        to be checked against the pieces kept so far.
        """
        key = (gt, ocr_texts)
        front = self._fronts.get(key)
        if front is None:
            front = []
            for k in sorted(range(len(features)), key=[f[0] for f in features].__getitem__):
                f = features[k]
                ld, off, s = f[1], f[2], f[3]
                for _, kept in front:
                    if kept[1] <= ld and kept[2] <= off and kept[3] >= s:
                        break
                else:
                    front.append((k, f))
            front.sort(key=lambda entry: entry[0])
            self._fronts[key] = front
        return front

    def _pick_masks(self, front: list, settings: int) -> list:
        """For each entry of ``front``, the settings that give it the smallest
        penalty (the first entry on ties). Filled in for at least ``settings``;
        cached per front signature.

        The penalty is linear in the coefficients, so the sign of the difference
        of two entries' penalties at every setting is fixed by its signs at the 16
        corners of the grid. An entry that loses to one of the corner winners at
        all 16 corners (strictly if it comes first) never wins and is left out
        before settings are compared.
        """
        if len(front) == 1:
            return [self._all]
        signature = tuple((f[0], f[1], int(2 * f[2]), f[3]) for _, f in front)
        cached = self._picks.get(signature)
        count = len(signature)
        if cached is None:
            at_corners = [
                [e * ce + ld * cl + off * co - s * cs for ce, cl, co, cs in self._corners]
                for e, ld, off, s in signature
            ]
            leaders = {min(range(count), key=lambda n: (at_corners[n][j], n)) for j in range(len(self._corners))}
            masks = [0] * count
            if len(leaders) == 1:
                masks[leaders.pop()] = self._all
                cached = self._picks[signature] = [self._all, masks, ()]
                return masks
            kept = []
            for n in range(count):
                mine = at_corners[n]
                if n not in leaders and any(
                    all(a <= b for a, b in zip(at_corners[m], mine, strict=True))
                    if m < n
                    else all(a < b for a, b in zip(at_corners[m], mine, strict=True))
                    for m in leaders
                ):
                    continue
                kept.append((n, signature[n]))
            cached = self._picks[signature] = [0, masks, kept]
        done, masks, kept = cached
        missing = settings & ~done
        if not missing:
            return masks
        doubled = self._doubled
        # Penalty, then entry number as the tie-break, folded into one integer key.
        if missing.bit_count() > 64:
            columns = [
                [(e * ce + ld * cl + off * co - s * cs) * count + n for ce, cl, co, cs in doubled]
                for n, (e, ld, off, s) in kept
            ]
            picks = [key % count for key in map(min, *columns)]
            if count < 256:
                # One bit per setting, highest setting first, read as a binary number.
                digits = bytes(reversed(picks))
                for n, _ in kept:
                    masks[n] = int(digits.translate(_digit_table(n)), 2)
            else:
                for n, _ in kept:
                    masks[n] = 0
                for c, n in enumerate(picks):
                    masks[n] |= 1 << c
            cached[0] = self._all
        else:
            for c in _bits(missing):
                ce, cl, co, cs = doubled[c]
                key = min([(e * ce + ld * cl + off * co - s * cs) * count + n for n, (e, ld, off, s) in kept])
                masks[key % count] |= 1 << c
            cached[0] = done | missing
        return masks

    def step(self, gt_pieces: list, ocr_pieces: list, group: int) -> list:
        """One greedy step (reference: ``match_longest_gt_lines``) for the settings
        in ``group``. Returns [((gt index, ocr index), settings)].

        Per setting, each candidate GT piece gets the OCR piece with the smallest
        penalty, and the first GT piece whose pair has the highest character
        accuracy wins. Candidates are visited by decreasing accuracy from a heap:
        a GT piece enters it with the best accuracy any of its pairs has, and only
        when it comes up are its penalties compared, for the settings still
        undecided, and its picks pushed with their real accuracy.
        """
        threshold = min(len(gt_pieces[0][0]), len(ocr_pieces[0][0])) - 1
        ocr_texts = tuple(piece[0] for piece in ocr_pieces)
        rows = []
        heap = []
        for g, piece in enumerate(gt_pieces):
            if len(piece[0]) <= threshold:
                break
            _spend(len(ocr_texts))
            features = self._row(piece[0], ocr_texts)
            rows.append(features)
            heap.append((-max([f[4] for f in features]), g, -1))
        heapq.heapify(heap)
        expanded: dict = {}
        outcomes = []
        remaining = group
        while remaining:
            _, g, n = heapq.heappop(heap)
            if n < 0:
                front = self._front(gt_pieces[g][0], ocr_texts, rows[g])
                masks = self._pick_masks(front, remaining)
                expanded[g] = (front, masks)
                for n, (_, f) in enumerate(front):
                    if masks[n] & remaining:
                        heapq.heappush(heap, (-f[4], g, n))
                continue
            front, masks = expanded[g]
            taken = masks[n] & remaining
            if taken:
                outcomes.append(((g, front[n][0]), taken))
                remaining ^= taken
        return outcomes

    def run(self, reference: str, hypothesis: str) -> tuple[int, list]:
        """Fewest errors over all settings (first setting on ties) and its matches,
        as (gt piece, ocr piece, R, D, I) tuples.

        Settings run in passes (``self._passes``); the best result so far is an upper
        bound that lets later passes drop every branch that cannot reach it (see
        ``_explore``)."""
        gt0 = _initial_pieces(reference)
        ocr0 = _initial_pieces(hypothesis)
        best: tuple | None = None
        done = 0
        for settings in self._passes:
            if settings & ~done:
                best = self._explore(gt0, ocr0, settings & ~done, best)
            done |= settings
        assert best is not None  # the last pass has every setting
        errors, _, node, gt_left, ocr_left = best
        records = []
        while node:
            records.append(node[0])
            node = node[1]
        records.reverse()
        records += [(p, ("", None, None), 0, len(p[0]), 0) for p in gt_left]
        records += [(("", None, None), p, 0, 0, len(p[0])) for p in ocr_left]
        return errors, records

    def _explore(self, gt0: list, ocr0: list, settings: int, best: tuple | None) -> tuple:
        """Run the greedy matching for ``settings``; return the best of ``best`` and
        what they reach, as (errors, first setting, history, leftover gt, leftover ocr).

        Each state (remaining GT pieces, remaining OCR pieces) maps to
        {history: settings}; a history is a linked list (match, parent, errors so
        far) shared by the settings that made the same choices. States are
        processed by decreasing remaining GT characters: every step consumes at
        least one, so all ways into a state are known before it is processed, and
        settings that reach it along different paths go on together.

        Branch and bound: the errors still to come are at least the bag-of-
        characters difference of what remains ((sum over characters of
        |count in GT - count in OCR| + |GT length - OCR length|) / 2; every
        matched pair needs that many edits and every unmatched character is one
        error). A history whose errors so far plus that bound exceed the best
        total known is dropped: its settings cannot have the fewest errors, not
        even tied.
        """
        bound = best[0] if best else None
        diff: dict = {}
        for piece in gt0:
            for ch in piece[0]:
                diff[ch] = diff.get(ch, 0) + 1
        for piece in ocr0:
            for ch in piece[0]:
                diff[ch] = diff.get(ch, 0) - 1
        gt_chars = sum(len(p[0]) for p in gt0)
        ocr_chars = sum(len(p[0]) for p in ocr0)
        spread = sum(abs(v) for v in diff.values())
        start_key = (tuple(gt0), tuple(ocr0))
        # key -> [histories, character count differences, spread, GT chars, OCR chars]
        pending = {start_key: [{None: settings}, diff, spread, gt_chars, ocr_chars]}
        heap = [(-gt_chars, 0, start_key)]
        counter = 1
        while heap:
            _, _, key = heapq.heappop(heap)
            histories, diff, spread, gt_chars, ocr_chars = pending.pop(key)
            gt_t, ocr_t = key
            if not gt_t or not ocr_t:
                leftover = gt_chars + ocr_chars
                for node, members in histories.items():
                    errors = leftover + (node[2] if node else 0)
                    first = (members & -members).bit_length() - 1
                    if best is None or (errors, first) < (best[0], best[1]):
                        best = (errors, first, node, gt_t, ocr_t)
                        bound = errors
                continue
            if bound is not None:
                least = bound - (spread + abs(gt_chars - ocr_chars)) // 2
                histories = {node: members for node, members in histories.items() if (node[2] if node else 0) <= least}
                if not histories:
                    continue
            gt_list, ocr_list = list(gt_t), list(ocr_t)
            group = 0
            for members in histories.values():
                group |= members
            for (g, k), chosen in self.step(gt_list, ocr_list, group):
                gpiece, opiece = gt_list[g], ocr_list[k]
                _, r, d, i, gi, gl, oj, ol = self._rows[gpiece[0]][opiece[0]][5]
                gmatch = (gpiece[0][gi : gi + gl], gpiece[1], gpiece[2] + gi)
                omatch = (opiece[0][oj : oj + ol], opiece[1], opiece[2] + oj)
                cost = r + d + i
                new_diff = dict(diff)
                new_spread = spread
                for ch in gmatch[0]:
                    old = new_diff[ch]
                    new_diff[ch] = old - 1
                    new_spread += abs(old - 1) - abs(old)
                for ch in omatch[0]:
                    old = new_diff[ch]
                    new_diff[ch] = old + 1
                    new_spread += abs(old + 1) - abs(old)
                new_gt_chars = gt_chars - len(gmatch[0])
                new_ocr_chars = ocr_chars - len(omatch[0])
                least = None
                if bound is not None:
                    least = bound - (new_spread + abs(new_gt_chars - new_ocr_chars)) // 2 - cost
                moves = []
                for node, members in histories.items():
                    moving = members & chosen
                    if moving and (least is None or (node[2] if node else 0) <= least):
                        moves.append((node, moving))
                if not moves:
                    continue
                new_gt, new_ocr = list(gt_list), list(ocr_list)
                _remove_or_split(new_gt, gpiece, gmatch[0], gmatch[2])
                _remove_or_split(new_ocr, opiece, omatch[0], omatch[2])
                record = (gmatch, omatch, r, d, i)
                new_key = (tuple(new_gt), tuple(new_ocr))
                entry = pending.get(new_key)
                if entry is None:
                    entry = pending[new_key] = [{}, new_diff, new_spread, new_gt_chars, new_ocr_chars]
                    heapq.heappush(heap, (-new_gt_chars, counter, new_key))
                    counter += 1
                target = entry[0]
                for node, moving in moves:
                    target[(record, node, cost + (node[2] if node else 0))] = moving
        # Without a bound nothing is dropped, so some history reached the end.
        assert best is not None
        return best


def _describe(records: list) -> list:
    matches = []
    for (gtext, gline, gstart), (otext, oline, ostart), r, d, i in records:
        if not gtext:
            gline = gstart = None
        if not otext:
            oline = ostart = None
        matches.append(
            {
                "gt_line": gline,
                "gt_start": gstart,
                "gt_text": gtext,
                "ocr_line": oline,
                "ocr_start": ostart,
                "ocr_text": otext,
                "distance": r + d + i,
            }
        )
    matches.sort(
        key=lambda m: (
            (0, m["gt_line"], m["gt_start"]) if m["gt_line"] is not None else (1, m["ocr_line"], m["ocr_start"])
        )
    )
    return matches


def fca_max_chars(max_align_chars: int | None = None) -> int:
    """Characters a side up to which FCA is searched exactly: ``max_align_chars / 20``
    (None: the process-wide ``limits.active().max_align_chars``)."""
    return resolve_limit(max_align_chars) // FCA_SHARE


def flexible_character_accuracy(
    reference: str,
    hypothesis: str,
    max_chars: int | None = None,
    max_align_chars: int | None = None,
    budget: int = FCA_BUDGET,
) -> FCAResult:
    """Flexible character accuracy of ``hypothesis`` against ``reference``.

    Both texts should already be normalised, with their line breaks kept: lines
    are the units that may be reordered. See the module docstring for the
    algorithm, what is counted, and the empty-reference policy. Texts with more than
    ``max_chars`` characters outside line breaks (None: ``fca_max_chars``), or whose
    search does more than ``budget`` units of work, take the cheaper path of the module
    docstring; ``max_align_chars`` bounds its alignment.
    """
    limit = fca_max_chars(max_align_chars) if max_chars is None else max_chars
    gt_lines = [line for line in reference.splitlines() if line]
    ocr_lines = [line for line in hypothesis.splitlines() if line]
    sizes = (sum(map(len, gt_lines)), sum(map(len, ocr_lines)))
    if max(sizes) <= limit:
        token = _WORK.set([0, budget])
        try:
            return _flexible_character_accuracy(reference, hypothesis, COEFFICIENT_GRID)
        except _OverBudget:
            why = f"the exact search took more than its budget ({budget:,} units of work)"
        finally:
            _WORK.reset(token)
    else:
        why = f"{sizes[0]:,} and {sizes[1]:,} characters, more than {limit:,} (max_align_chars / {FCA_SHARE})"
    return _cheaper(gt_lines, ocr_lines, sizes, why, resolve_limit(max_align_chars))


def _cheaper(
    gt_lines: list[str], ocr_lines: list[str], sizes: tuple[int, int], why: str, align_limit: int
) -> FCAResult:
    """Identical lines paired in any order, the rest aligned in reading order (see the
    module docstring)."""
    shared = Counter(gt_lines) & Counter(ocr_lines)
    rest = []
    for lines in (gt_lines, ocr_lines):
        left = Counter(shared)
        kept = []
        for line in lines:
            if left[line]:
                left[line] -= 1
            else:
                kept.append(line)
        rest.append("".join(kept))
    alignment = align(rest[0], rest[1], align_limit)
    errors = alignment.errors
    reference_length = sizes[0]
    how = "in windows (an upper bound on their edit distance)" if alignment.approximate else "exactly"
    note = (
        f"approximate: {why}; {sum(shared.values()):,} identical lines paired in any order, the other characters "
        f"aligned in reading order {how}"
    )
    lower = bag_lower_bound("".join(gt_lines), "".join(ocr_lines))
    if reference_length == 0:
        return FCAResult(1.0 if errors == 0 else 0.0, errors, 0, [], note, lower)
    return FCAResult(1.0 - errors / reference_length, errors, reference_length, [], note, lower)


def _flexible_character_accuracy(reference: str, hypothesis: str, grid: tuple[tuple[int, ...], ...]) -> FCAResult:
    """FCA over the settings ``product(*grid)``; a one-point grid runs the greedy
    matching for a single setting (what the reference's ``match_with_coefficients``
    does)."""
    reference_length = sum(len(line) for line in reference.splitlines())
    if reference_length == 0:
        inserted = _initial_pieces(hypothesis)
        errors = sum(len(piece[0]) for piece in inserted)
        return FCAResult(
            accuracy=1.0 if errors == 0 else 0.0,
            errors=errors,
            reference_length=0,
            matches=_describe([(("", None, None), piece, 0, 0, len(piece[0])) for piece in inserted]),
        )
    errors, records = _Matcher(grid).run(reference, hypothesis)
    return FCAResult(
        accuracy=1.0 - errors / reference_length,
        errors=errors,
        reference_length=reference_length,
        matches=_describe(records),
    )
