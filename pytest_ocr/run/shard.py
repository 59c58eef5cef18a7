"""Sharded runs: a deterministic, balanced share of a suite's OCR items per CI job
(``--ocr-shard K/N``), and what a shard records so that ``pytest-ocr merge`` can rebuild
the one run the shards together make (run/merge.py).

The share: the items' keys are put in the order of a hash of each key, and that order is
cut into N runs of equal weight (one per item, or the item's duration in an earlier
report). The hash order does not depend on which other items exist, so adding or
removing a case moves at most one item across each cut; each shard gets the same number
of items, give or take one (or the same time, give or take one item's).
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..cases.gates import Gate
from ..cases.model import DatasetInfo
from ..codec import Coded
from ..errors import OcrError, shortened

# GitLab's `parallel:` sets these (1-based index); a GitHub Actions matrix can set them too
INDEX_VARIABLE = "CI_NODE_INDEX"
TOTAL_VARIABLE = "CI_NODE_TOTAL"
MOST_SHARDS = 10_000  # far beyond a CI system's parallel jobs (GitLab's parallel: takes 200)


class ShardError(OcrError, ValueError):
    pass


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    total: int

    def __str__(self) -> str:
        return f"{self.index}/{self.total}"

    @classmethod
    def parse(cls, text: str, environ: Mapping[str, str] = os.environ) -> Shard:
        """``K/N`` (1 <= K <= N <= MOST_SHARDS, written in the digits 0-9 alone: Python's int()
        would also read ``1_0`` as 10, and 400 digits overflow where shares are cut), or
        ``auto``: K and N from CI_NODE_INDEX and CI_NODE_TOTAL."""
        if text.strip() == "auto":
            index, total = environ.get(INDEX_VARIABLE), environ.get(TOTAL_VARIABLE)
            if not index or not total:
                raise ShardError(
                    f"--ocr-shard auto: {INDEX_VARIABLE} and {TOTAL_VARIABLE} are not both set "
                    f"(GitLab's parallel: sets them; in a GitHub Actions matrix, set them in env:)"
                )
            where = f"--ocr-shard auto ({INDEX_VARIABLE}={index!r}, {TOTAL_VARIABLE}={total!r})"
        else:
            index, _, total = text.partition("/")
            where = f"--ocr-shard {shortened(text)!r}"
        parts = (index.strip(), total.strip())
        if not all(part.isascii() and part.isdigit() for part in parts):
            raise ShardError(f"{where}: expected K/N, two whole numbers with 1 <= K <= N, e.g. 2/4")
        shard = cls(*(int(part) if len(part.lstrip("0")) <= 9 else MOST_SHARDS + 1 for part in parts))
        if not 1 <= shard.index <= shard.total <= MOST_SHARDS:
            raise ShardError(f"{where}: expected K/N with 1 <= K <= N <= {MOST_SHARDS:,}, e.g. 2/4")
        return shard


def hash_order(key: str) -> bytes:
    """Where a key stands in the order the shards cut: a hash of it, so independent of every other key."""
    return hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest()


def assign(keys: Iterable[str], total: int, weights: Mapping[str, float] | None = None) -> dict[str, int]:
    """Each key's shard (1..total). ``weights``: an item's expected cost (its duration in an
    earlier run); an item without one weighs the mean of those known, and a weight of 0
    counts as the smallest known, so that no shard takes an unbounded run of them."""
    ordered = sorted(set(keys), key=lambda k: (hash_order(k), k))
    known = [w for w in (weights or {}).values() if w > 0 and math.isfinite(w)]
    default = math.fsum(known) / len(known) if known else 1.0
    floor = min(known) if known else 1.0

    def weight(key: str) -> float:
        w = (weights or {}).get(key)
        if w is None or not math.isfinite(w):
            return default
        return max(w, floor)

    costs = [weight(k) for k in ordered]
    whole = math.fsum(costs)
    shards, before = {}, 0.0
    for key, cost in zip(ordered, costs, strict=True):
        # the shard of the item's middle: equal shares of the whole, cut between items
        shards[key] = min(total, int(total * (before + cost / 2) / whole) + 1)
        before += cost
    return shards


def fingerprint(lines: Iterable[str]) -> str:
    digest = hashlib.sha256()
    for line in sorted(lines):
        digest.update(line.encode("utf-8") + b"\n")
    return digest.hexdigest()


@dataclass
class ShardInfo(Coded):
    """What a shard's report records of the whole: which suite (the keys of every OCR item
    the command selected) split how (which key went to which shard), how many items are
    this shard's and their keys (what the merge checks its results against), the suite's
    declarations the merged run judges (its gates, and its datasets' accounting), as this
    shard saw them, and the project directory it ran in (where the merge finds the images
    its report's paths are relative to)."""

    index: int
    total: int
    suite: str  # fingerprint of the suite's item keys
    partition: str  # fingerprint of (key, shard) for every key
    suite_items: int
    items: int  # this shard's share
    weights: str | None = None  # the report whose durations weighted the split
    gates: list[Gate] = field(default_factory=list)
    datasets: list[DatasetInfo] = field(default_factory=list)
    project: str | None = None  # absolute, on the shard's machine
    keys: list[str] = field(default_factory=list)  # this shard's items, sorted

    @classmethod
    def of(cls, shard: Shard, keys: Sequence[str], assigned: Mapping[str, int], weights: str | None) -> ShardInfo:
        return cls(
            shard.index,
            shard.total,
            fingerprint(keys),
            fingerprint(f"{k}\t{s}" for k, s in assigned.items()),
            len(assigned),
            sum(s == shard.index for s in assigned.values()),
            weights,
            keys=sorted(k for k, s in assigned.items() if s == shard.index),
        )
