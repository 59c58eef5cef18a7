"""The bootstrap interval of a macro mean: resampled in blocks, so that its memory stays
bounded at any size, with the numbers resampling all at once gives."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from pytest_ocr.run import aggregate
from pytest_ocr.run.aggregate import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, bootstrap_ci

pytestmark = pytest.mark.slow


def _all_at_once(values: list[float]) -> list[float]:
    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    means = data[rng.integers(0, len(data), size=(BOOTSTRAP_RESAMPLES, len(data)))].mean(axis=1)
    return [float(x) for x in np.percentile(means, [2.5, 97.5])]


@pytest.mark.parametrize("n", [2, 3, 999, 1000, 1001, 4096, 20_000])
def test_blocks_give_the_interval_of_one_resampling(n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    values = list(np.random.default_rng(n).gamma(0.5, 0.05, size=n))
    expected = _all_at_once(values)
    assert bootstrap_ci(values) == expected
    for block in (1, 7, 1000, 123_457):  # one row per block, and rows cut at odd places
        monkeypatch.setattr(aggregate, "BOOTSTRAP_BLOCK", block)
        assert bootstrap_ci(values) == expected
    for gathered in (1, 7 * n):  # each row's values gathered alone, and seven rows at once
        monkeypatch.setattr(aggregate, "BOOTSTRAP_GATHERED", gathered)
        assert bootstrap_ci(values) == expected


def test_memory_stays_bounded_at_200000_items() -> None:
    values = list(np.random.default_rng(1).random(200_000))
    tracemalloc.start()
    try:
        low, high = bootstrap_ci(values)  # type: ignore[misc]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert low < float(np.mean(values)) < high
    assert peak < 64 * 2**20, f"{peak / 2**20:.0f} MiB"  # all at once: 3.2 GB of indices alone


@pytest.mark.parametrize("n", [2, 999, 20_000])
def test_samples_of_one_length_share_their_draws_and_keep_their_intervals(n: int) -> None:
    # A run's metrics have as many values each: their resampling is drawn once, and each
    # interval is the one the sample's own resampling gives, to the last bit.
    rng = np.random.default_rng(n)
    samples = [list(rng.gamma(0.5, 0.05, size=n)), list(rng.random(n)), [float(x) for x in rng.integers(0, 2, n)]]
    samples.append(samples[0][: n - 1])  # another length: drawn for itself
    samples.append([0.5])  # too few values: no interval
    alone = [_all_at_once(s) if len(s) > 1 else None for s in samples]
    assert aggregate.bootstrap_cis(samples) == alone
