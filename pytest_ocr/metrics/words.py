"""Word-level metrics beyond WER: bags of words, positions, subsequences, n-grams.

Words are runs of non-whitespace in the normalised text. Bags are multisets, so a
repeated word counts as often as it occurs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from rapidfuzz.distance import LCSseq


def bag_matches(reference: list[str], hypothesis: list[str]) -> int:
    """Words the two bags share, counting repeats (multiset intersection)."""
    return sum((Counter(reference) & Counter(hypothesis)).values())


def positional_matches(reference: list[str], hypothesis: list[str]) -> int:
    """Words equal at the same index."""
    return sum(r == h for r, h in zip(reference, hypothesis, strict=False))


def lcs_length(reference: list[str], hypothesis: list[str]) -> int:
    """Length of the longest common (not necessarily contiguous) word subsequence."""
    return int(LCSseq.similarity(reference, hypothesis))


def ngrams(words: list[str], n: int) -> Counter:
    """Word n-grams; a text shorter than n words (but not empty) is one n-gram of its
    words, so "hello" against "world" is a miss rather than a vacuous match."""
    if 0 < len(words) < n:
        return Counter([tuple(words)])
    return Counter(zip(*(words[i:] for i in range(n)), strict=False))


def _ngram_iter(words: list[str], n: int) -> Iterator[tuple[str, ...]]:
    if 0 < len(words) < n:
        return iter([tuple(words)])
    return zip(*(words[i:] for i in range(n)), strict=False)


def _ngram_count(words: int, n: int) -> int:
    return 1 if 0 < words < n else max(words - n + 1, 0)


def ngram_matches(reference: list[str], hypothesis: list[str], n: int) -> tuple[int, int, int]:
    """(shared n-grams as a multiset, reference n-grams, hypothesis n-grams).

    Only the shorter side's n-grams are held in memory; the other side's are counted
    as they stream past, and only those the shorter side has."""
    small, large = (reference, hypothesis) if len(reference) <= len(hypothesis) else (hypothesis, reference)
    wanted = ngrams(small, n)
    found = Counter(filter(wanted.__contains__, _ngram_iter(large, n)))
    matched = sum(min(count, wanted[gram]) for gram, count in found.items())
    return matched, _ngram_count(len(reference), n), _ngram_count(len(hypothesis), n)


def bag_differences(reference: list[str], hypothesis: list[str]) -> int:
    """The numerator of the bag-of-words error of ocrevalUAtion (``BagOfWords.wer``):
    the size difference of the bags plus the count differences of every word, so a
    substituted word costs 2 and a missing or extra word 2; the denominator is twice
    the reference word count."""
    ref, hyp = Counter(reference), Counter(hypothesis)
    differences = sum(abs(ref[w] - hyp[w]) for w in ref.keys() | hyp.keys())
    return abs(len(reference) - len(hypothesis)) + differences
