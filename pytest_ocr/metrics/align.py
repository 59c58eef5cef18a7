"""Alignments bounded in time and memory.

Up to ``max_align_chars`` units on both sides (``limits.active().max_align_chars``,
option ``--ocr-max-align-chars``, 200,000 by default), a pair is aligned exactly:
rapidfuzz's minimal Levenshtein alignment (its ``editops``), the alignment jiwer
reports. Its time grows with the product of the lengths (bit-parallel, 64 cells a
step): two unrelated texts of 200,000 characters take about 2.5 s of CPU, of 500,000
16 s, of 10 million hours, and ``editops`` of 10 million characters against 2,000
holds 10 million edit records (0.9 GB).

Longer pairs take the cheaper path:

1. Anchors. About one word in ``SPARSE`` is chosen by its text (a CRC of the word,
   so both texts choose the same ones); the ``ANCHOR`` characters (``ANCHOR_WORDS``
   words, for word sequences) starting there are an anchor when they occur exactly
   once in each text. The longest chain of anchors in the same order in both texts
   is kept, less anchors that no neighbour confirms (two texts that share a passage
   share runs of anchors on nearly the same diagonal; a chance match stands alone).
2. Pieces. The texts are cut at those anchors, ``SPACING`` units apart at least, and
   each pair of pieces is aligned on its own: exactly (rapidfuzz) when the shorter
   piece has at most ``EXACT_SHORT`` units, which costs at most that times the longer
   one over 64 steps; else in windows.
3. Windows. ``window`` units of each side are aligned exactly, the alignment is kept
   up to the point where it has used half a window of either side (cut at the end of
   the last exact match before that point when it is far enough in, else at that
   point), and the next window starts there. What is left of one side when the other
   is used up is deleted or inserted.

The result is a valid alignment of the two texts, so its edit count is an **upper
bound** on the edit distance (and its matches a lower bound on the longest common
subsequence); it is exact when the cuts lie on a minimal alignment, which anchors
make the rule for texts that share most of their content (a noisy copy, a copy with
long passages dropped or added: 0.0 to 0.1 % above the exact distance in our tests;
two unrelated texts: about 1 % above). The **lower bound** reported with it is the
bag-of-units distance ``max(units missing from the hypothesis, units missing from
the reference)``, counted as multisets: every alignment needs at least that many
edits. Time and memory grow linearly with the lengths: 10 million characters
against 10 million unrelated ones take about 5 s.
"""

from __future__ import annotations

import sys
import zlib
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import accumulate, chain
from operator import itemgetter
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np
from rapidfuzz.distance import Editops, Indel, Levenshtein, Opcodes

from .. import limits

WINDOW = 1024  # units per side aligned exactly at a time on the cheaper path

# A sequence aligned: a str (code points) or a list of units (grapheme clusters, words).
Units = Sequence[Any]


class ApproximateAlignment(UserWarning):
    """A function that returns a bare number (``cer``, ``wer``, ``ned``) took the
    cheaper alignment path: the number is an upper bound, not the exact value."""


def max_align_chars(limit: int | None) -> int:
    """``limit``, or the process-wide one when it is None."""
    return limits.active().max_align_chars if limit is None else limit


def bag_lower_bound(reference: Units, hypothesis: Units) -> int:
    """The bag-of-units distance, a lower bound on the edit distance (and on the
    reading-order-independent one): units of one side with no partner of the same
    value on the other, the larger of the two counts."""
    if isinstance(reference, str) and isinstance(hypothesis, str):  # by code point, in C
        counts = np.bincount(_codes(reference), minlength=CODE_POINTS).astype(np.int64)
        counts -= np.bincount(_codes(hypothesis), minlength=CODE_POINTS)
        spread = int(np.abs(counts).sum())
    else:
        difference = Counter(reference)
        difference.subtract(Counter(hypothesis))
        spread = sum(abs(v) for v in difference.values())
    return (spread + abs(len(reference) - len(hypothesis))) // 2


CODE_POINTS = sys.maxunicode + 1


def _codes(text: str) -> np.ndarray:
    """The code points of a text (lone surrogates included)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")


class Alignment(NamedTuple):
    """A Levenshtein (or Indel) alignment of two sequences, counted.

    ``replaced`` holds the substituted units of both sides (pairwise), ``deleted`` and
    ``inserted`` the others, in order (only when asked for). ``approximate`` is None
    for the exact alignment, else what the cheaper path did; ``lower_bound`` is then a
    lower bound on the edit distance. A named tuple: every scored item makes two, and a
    frozen dataclass of ten fields took 1.7 us to make."""

    substitutions: int
    deletions: int
    insertions: int
    reference_length: int
    hypothesis_length: int
    replaced: tuple[Units, Units] = ("", "")
    deleted: Units = ""
    inserted: Units = ""
    approximate: str | None = None
    lower_bound: int | None = None

    @property
    def hits(self) -> int:
        return self.reference_length - self.substitutions - self.deletions

    @property
    def errors(self) -> int:
        return self.substitutions + self.deletions + self.insertions


class _Collector:
    """Counts (and, if asked, the edited units of) alignment blocks."""

    def __init__(self, keep: bool, text: bool):
        self.keep = keep
        self.text = text
        self.substitutions = self.deletions = self.insertions = 0
        self.parts: tuple[list, list, list, list] = ([], [], [], [])  # replaced ref, replaced hyp, deleted, inserted

    def add(self, blocks: list, a: Units, b: Units) -> None:
        """``blocks``: opcodes (tag, i1, i2, j1, j2) into ``a`` and ``b``, counted (and the
        edited units kept) in one pass: a scored item aligns twice."""
        keep = self.keep
        substitutions = deletions = insertions = 0
        rep_a: list = []
        rep_b: list = []
        dels: list = []
        ins: list = []
        for tag, i1, i2, j1, j2 in blocks:
            if tag == "equal":
                continue
            if tag == "replace":
                substitutions += i2 - i1
                if keep:
                    rep_a.append(a[i1:i2])
                    rep_b.append(b[j1:j2])
            elif tag == "delete":
                deletions += i2 - i1
                if keep:
                    dels.append(a[i1:i2])
            else:
                insertions += j2 - j1
                if keep:
                    ins.append(b[j1:j2])
        self.substitutions += substitutions
        self.deletions += deletions
        self.insertions += insertions
        for part, pieces in zip(self.parts, (rep_a, rep_b, dels, ins), strict=True):
            if pieces:
                part.append(self._join(pieces))

    def _join(self, pieces: list) -> Units:
        return "".join(pieces) if self.text else list(chain.from_iterable(pieces))

    def result(self, a: Units, b: Units, approximate: str | None = None, lower_bound: int | None = None) -> Alignment:
        rep_a, rep_b, dels, ins = (self._join(part) for part in self.parts)
        return Alignment(
            self.substitutions,
            self.deletions,
            self.insertions,
            len(a),
            len(b),
            (rep_a, rep_b),
            dels,
            ins,
            approximate,
            lower_bound,
        )


def blocks(editops: Editops) -> list[Any]:
    """The opcodes of an alignment, as (tag, i1, i2, j1, j2) tuples: runs of one kind
    of edit, so counting them costs far less than counting the edits one by one."""
    return Opcodes.from_editops(editops).as_list()


def _opcodes(metric: ModuleType, a: Units, b: Units) -> list[Any]:
    return blocks(metric.editops(a, b))


def align(
    reference: Units,
    hypothesis: Units,
    limit: int | None = None,
    *,
    keep: bool = False,
    indel: bool = False,
    window: int = WINDOW,
) -> Alignment:
    """The alignment of two sequences: exact (rapidfuzz's) when both have at most
    ``limit`` units (None: ``limits.active().max_align_chars``), else anchored and
    windowed (see the module docstring). ``keep``: collect the edited units; ``indel``:
    align with insertions and deletions only (the longest common subsequence) instead
    of Levenshtein's substitutions too."""
    limit = max_align_chars(limit)
    metric = Indel if indel else Levenshtein
    text = isinstance(reference, str) and isinstance(hypothesis, str)
    collector = _Collector(keep, text)
    if len(reference) <= limit and len(hypothesis) <= limit:
        collector.add(_opcodes(metric, reference, hypothesis), reference, hypothesis)
        return collector.result(reference, hypothesis)
    window = max(window, MIN_WINDOW)
    segments = 0
    for ops, a, b, _, _ in _pieces(metric, reference, hypothesis, window):
        collector.add(ops, a, b)
        segments += 1
    what = "longest common subsequence: a lower bound" if indel else "edit distance: an upper bound"
    note = (
        f"approximate: {len(reference):,} and {len(hypothesis):,} units, more than max_align_chars ({limit:,}); "
        f"aligned piecewise between exact matches, long pieces in windows of {window:,} units, "
        f"so the {what}"
    )
    return collector.result(reference, hypothesis, note, bag_lower_bound(reference, hypothesis))


def iter_opcodes(
    reference: Units, hypothesis: Units, limit: int | None = None, *, window: int = WINDOW
) -> Iterator[tuple[str, int, int, int, int]]:
    """The Levenshtein alignment as opcodes (tag, i1, i2, j1, j2) over the whole
    sequences: rapidfuzz's when both have at most ``limit`` units, else the windowed
    alignment's (``is_exact`` tells which), for views such as a diff."""
    if is_exact(reference, hypothesis, limit):
        yield from _opcodes(Levenshtein, reference, hypothesis)
        return
    for ops, _, _, di, dj in _pieces(Levenshtein, reference, hypothesis, max(window, MIN_WINDOW)):
        for tag, i1, i2, j1, j2 in ops:
            yield tag, i1 + di, i2 + di, j1 + dj, j2 + dj


def is_exact(reference: Units, hypothesis: Units, limit: int | None = None) -> bool:
    """Whether the pair is aligned exactly (both at most ``limit`` units long)."""
    limit = max_align_chars(limit)
    return len(reference) <= limit and len(hypothesis) <= limit


MIN_WINDOW = 16
_src_end = itemgetter(2)
_dest_end = itemgetter(4)


def _windows(metric: ModuleType, a: Units, b: Units, window: int) -> Iterator[tuple[list[Any], Units, Units, int, int]]:
    """The windowed alignment: (opcodes into the window's pieces, those pieces, and
    where they start in ``a`` and ``b``), window after window."""
    n, m = len(a), len(b)
    half = window // 2
    i = j = 0
    while i < n and j < m:
        end_a, end_b = min(n, i + window), min(m, j + window)
        wa, wb = a[i:end_a], b[j:end_b]
        ops = _opcodes(metric, wa, wb)
        if end_a == n and end_b == m:
            yield ops, wa, wb, i, j
            return
        # The mark: half a window into a side that goes on beyond this window.
        mark_a = half if end_a < n else len(wa) + 1
        mark_b = half if end_b < m else len(wb) + 1
        # The first block that reaches the mark (block ends grow along the alignment).
        k = min(bisect_left(ops, mark_a, key=_src_end), bisect_left(ops, mark_b, key=_dest_end))
        tag, i1, i2, j1, j2 = ops[k]
        kept = ops[:k]
        if tag != "equal" and max(i1, j1) >= half // 2:
            cut_a, cut_b = i1, j1  # at the end of the exact match before this block
        else:  # at the mark, inside this block (an exact match, or no match far enough)
            if tag == "delete":
                t = mark_a - i1
            elif tag == "insert":
                t = mark_b - j1
            else:
                t = min(mark_a - i1, mark_b - j1)
            cut_a = i1 + (t if tag != "insert" else 0)
            cut_b = j1 + (t if tag != "delete" else 0)
            kept.append((tag, i1, cut_a, j1, cut_b))
        yield kept, wa, wb, i, j
        i += cut_a
        j += cut_b
    if i < n:
        yield [("delete", 0, n - i, 0, 0)], a[i:], b[j:j], i, j
    elif j < m:
        yield [("insert", 0, 0, 0, m - j)], a[i:i], b[j:], i, j


# -- anchors -----------------------------------------------------------------------------------

ANCHOR = 32  # characters (or grapheme clusters) of an anchor
ANCHOR_WORDS = 6
SPARSE = 8  # about one word in SPARSE starts a candidate anchor
SPACING = 1024  # units between the cuts kept, on one side at least
EXACT_SHORT = 4096  # a piece whose shorter side has at most this many units is aligned exactly
_SEPARATORS = frozenset((" ", "\n"))


def _selected(unit: str) -> bool:
    """A deterministic (unsalted) choice of about one value in SPARSE."""
    return zlib.crc32(unit.encode("utf-8", "surrogatepass")) % SPARSE == 0


def _candidates(seq: Units, wanted: dict | None = None) -> dict:
    """Anchor text -> its position, for anchors that occur once in ``seq`` (and, if
    given, are keys of ``wanted``). Anchors start at chosen words, a choice made by
    their text, so both texts choose the same ones; about one word in SPARSE, and if
    the chosen ones are frequent (a text of one word repeated), the most frequent are
    left out until there are about twice that many."""
    if isinstance(seq, str):
        words = seq.split(" ")
        chosen = _chosen(words)
        # word k starts after the words before it and k spaces
        starts = [
            before + k
            for k, (word, before) in enumerate(zip(words, accumulate(map(len, words), initial=0), strict=False))
            if word in chosen
        ]
        del words
        size = ANCHOR

        def key(i: int) -> Any:
            return seq[i : i + ANCHOR]

    else:
        clusters = sum(len(unit) for unit in seq[:1000]) < 2 * min(len(seq), 1000)
        if clusters:  # grapheme clusters: a chosen one after a space or line break
            after = [i + 1 for i, unit in enumerate(seq) if unit in _SEPARATORS and i + 1 < len(seq)]
            chosen = _chosen([seq[i] for i in after])
            starts = [i for i in after if seq[i] in chosen]
            size = ANCHOR
        else:  # words
            chosen = _chosen(seq)
            starts = [i for i, unit in enumerate(seq) if unit in chosen]
            size = ANCHOR_WORDS

        def key(i: int) -> Any:
            return tuple(seq[i : i + size])

    if wanted is None:
        pairs = [(k, i) for i in starts if len(k := key(i)) == size]
    else:
        pairs = [(k, i) for i in starts if (k := key(i)) in wanted]
    times = Counter(k for k, _ in pairs)
    return {k: i for k, i in pairs if times[k] == 1}


def _chosen(units: Sequence[Any]) -> set:
    """The unit values anchors start at (see ``_candidates``)."""
    frequency = Counter(units)
    chosen = sorted(
        (count, unit) for unit, count in frequency.items() if isinstance(unit, str) and unit and _selected(unit)
    )
    budget = 2 * len(units) // SPARSE + 1
    total = 0
    for k, (count, _) in enumerate(chosen):
        total += count
        if total > budget:
            chosen = chosen[:k]
            break
    return {unit for _, unit in chosen}


def _cuts(a: Units, b: Units) -> list[tuple[int, int]]:
    """Positions (in a, in b) where both texts have the same anchor, increasing on both
    sides (the longest such chain), at least SPACING units apart on one side."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    in_short = _candidates(short)
    in_long = _candidates(long, in_short) if in_short else {}
    in_a, in_b = (in_short, in_long) if short is a else (in_long, in_short)
    pairs = sorted((i, in_b[key]) for key, i in in_a.items() if key in in_b)
    # Longest chain increasing in b as well (patience sorting).
    tails: list[int] = []  # tails[k]: the smallest b position ending a chain of length k + 1
    tail_index: list[int] = []
    parent = [-1] * len(pairs)
    for index, (_, j) in enumerate(pairs):
        k = bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            tail_index.append(index)
        else:
            tails[k] = j
            tail_index[k] = index
        parent[index] = tail_index[k - 1] if k else -1
    chain = []
    index = tail_index[-1] if tail_index else -1
    while index >= 0:
        chain.append(pairs[index])
        index = parent[index]
    chain.reverse()
    cuts = []
    last_i = last_j = 0
    for i, j in _supported(chain):
        if i - last_i >= SPACING or j - last_j >= SPACING:
            cuts.append((i, j))
            last_i, last_j = i, j
    return cuts


def _supported(chain: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The anchors of ``chain`` that a neighbour confirms: its diagonal (b position
    minus a position) differs from theirs by at most an eighth of their distance, plus 16.
    Texts that share a passage share a run of such anchors; an anchor that two
    unrelated texts share by chance stands alone, and cutting there would only force
    a bad alignment."""

    def near(first: tuple[int, int], second: tuple[int, int]) -> bool:
        return abs((first[1] - first[0]) - (second[1] - second[0])) <= 16 + abs(second[0] - first[0]) // 8

    last = len(chain) - 1
    return [
        anchor
        for k, anchor in enumerate(chain)
        if (k > 0 and near(chain[k - 1], anchor)) or (k < last and near(anchor, chain[k + 1]))
    ]


def _pieces(metric: ModuleType, a: Units, b: Units, window: int) -> Iterator[tuple[list[Any], Units, Units, int, int]]:
    """The cheaper alignment, piece by piece: the texts cut at shared anchors, each
    piece aligned exactly when its shorter side is short, else in windows."""
    i = j = 0
    for next_i, next_j in [*_cuts(a, b), (len(a), len(b))]:
        pa, pb = a[i:next_i], b[j:next_j]
        if min(len(pa), len(pb)) <= EXACT_SHORT:
            yield _opcodes(metric, pa, pb), pa, pb, i, j
        else:
            for ops, wa, wb, di, dj in _windows(metric, pa, pb, window):
                yield ops, wa, wb, i + di, j + dj
        i, j = next_i, next_j
