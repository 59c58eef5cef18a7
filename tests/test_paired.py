"""The paired statistics (run/paired.py) against scipy's, on fixed data.

scipy resamples with its own generator, so the bootstrap interval's ends agree within the
resampling error: with 10,000 resamples, the 2.5th percentile of the resampled means has a
standard error of about 0.04 standard errors of the mean (sqrt(p (1 - p) / B) / density),
and the tolerances below are five times that. The permutation p-value is a count of
10,000 random sign patterns: its standard error is sqrt(p (1 - p) / 10,000); when there
are no more patterns than resamples, both enumerate them all and agree exactly.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from pytest_ocr.cases.rules import Tolerance
from pytest_ocr.report.paired_text import noise, verdict
from pytest_ocr.run.paired import RESAMPLES, paired


def _mean_change(before, after, axis=-1):
    return np.mean(after - before, axis=axis)


def _scipy_interval(before, after, statistic=_mean_change, confidence=0.95):
    result = stats.bootstrap(
        (before, after),
        statistic,
        paired=True,
        vectorized=True,
        method="percentile",
        n_resamples=RESAMPLES,
        confidence_level=confidence,
        rng=np.random.default_rng(7),
    )
    return result.confidence_interval.low, result.confidence_interval.high


def _scipy_p(before, after, statistic=_mean_change):
    return stats.permutation_test(
        (before, after),
        statistic,
        permutation_type="samples",
        vectorized=True,
        n_resamples=RESAMPLES,
        alternative="two-sided",
        rng=np.random.default_rng(7),
    ).pvalue


def _data(n, shift, spread=0.02, seed=0):
    rng = np.random.default_rng(seed)
    before = rng.uniform(0.0, 0.2, n)
    return before, np.clip(before + rng.normal(shift, spread, n), 0, None)


@pytest.mark.slow
@pytest.mark.parametrize(("n", "shift"), [(40, 0.0), (40, 0.006), (300, 0.002), (2000, -0.001)])
def test_macro_interval_and_p_value_agree_with_scipy(n, shift):
    before, after = _data(n, shift, seed=n)
    [macro] = paired("cer", before, after)
    assert macro.n == n and macro.old == pytest.approx(before.mean()) and macro.new == pytest.approx(after.mean())
    low, high = _scipy_interval(before, after)
    error = np.std(after - before, ddof=1) / math.sqrt(n)  # the standard error of the mean change
    assert macro.low == pytest.approx(low, abs=0.2 * error)
    assert macro.high == pytest.approx(high, abs=0.2 * error)
    expected = _scipy_p(before, after)
    assert macro.p_value == pytest.approx(expected, abs=5 * math.sqrt(expected * (1 - expected) / RESAMPLES) + 2e-4)
    # the change's estimate lies inside its interval, and the reach below it is what is told from noise
    assert macro.low < macro.change < macro.high
    assert macro.detectable == pytest.approx(macro.change - macro.low)


def test_micro_interval_agrees_with_scipy_on_pooled_counts():
    rng = np.random.default_rng(3)
    lengths = rng.integers(20, 400, 120).astype(float)
    errors_before = rng.binomial(lengths.astype(int), 0.04).astype(float)
    errors_after = rng.binomial(lengths.astype(int), 0.044).astype(float)

    def pooled_change(eb, lb, ea, la, axis=-1):
        return ea.sum(axis=axis) / la.sum(axis=axis) - eb.sum(axis=axis) / lb.sum(axis=axis)

    counts_before = [{"errors": e, "denominator": n} for e, n in zip(errors_before, lengths, strict=True)]
    counts_after = [{"errors": e, "denominator": n} for e, n in zip(errors_after, lengths, strict=True)]
    macro, micro = paired("cer", errors_before / lengths, errors_after / lengths, counts_before, counts_after)
    assert (macro.kind, micro.kind) == ("macro", "micro")
    assert micro.old == errors_before.sum() / lengths.sum() and micro.new == errors_after.sum() / lengths.sum()
    data = (errors_before, lengths, errors_after, lengths)
    result = stats.bootstrap(
        data,
        pooled_change,
        paired=True,
        vectorized=True,
        method="percentile",
        n_resamples=RESAMPLES,
        rng=np.random.default_rng(11),
    )
    width = result.confidence_interval.high - result.confidence_interval.low
    assert micro.low == pytest.approx(result.confidence_interval.low, abs=0.05 * width)
    assert micro.high == pytest.approx(result.confidence_interval.high, abs=0.05 * width)
    # the permutation test swaps an item's counts between the runs: scipy swaps the ids of
    # the item's two sides (i and n + i), which pick the counts from one table
    errors, lengths_both = np.concatenate([errors_before, errors_after]), np.concatenate([lengths, lengths])
    ids = np.arange(len(lengths))

    def pooled_of_ids(b, a, axis=-1):
        return errors[a].sum(axis=axis) / lengths_both[a].sum(axis=axis) - errors[b].sum(axis=axis) / lengths_both[
            b
        ].sum(axis=axis)

    swapped = stats.permutation_test(
        (ids, ids + len(ids)),
        pooled_of_ids,
        permutation_type="samples",
        vectorized=True,
        n_resamples=RESAMPLES,
        rng=np.random.default_rng(11),
    ).pvalue
    assert micro.p_value == pytest.approx(swapped, abs=5 * math.sqrt(swapped * (1 - swapped) / RESAMPLES) + 2e-4)


def test_few_items_enumerate_every_sign_pattern_as_scipy_does():
    before = np.array([0.10, 0.05, 0.20, 0.00, 0.12, 0.30, 0.08, 0.01, 0.15, 0.02])
    after = np.array([0.12, 0.05, 0.26, 0.01, 0.10, 0.35, 0.09, 0.04, 0.15, 0.05])
    [macro] = paired("cer", before, after)
    # 2**10 = 1,024 patterns, fewer than the resamples: both count all of them, exactly
    assert macro.p_value == pytest.approx(_scipy_p(before, after), abs=1e-12)


def test_the_same_inputs_give_the_same_numbers():
    before, after = _data(500, 0.001)
    assert paired("cer", before, after) == paired("cer", before, after)


def test_fewer_than_two_pairs_give_nothing_and_unequal_lengths_are_refused():
    assert paired("cer", [0.1], [0.2]) == []
    with pytest.raises(ValueError, match="differ in number"):
        paired("cer", [0.1, 0.2], [0.2])


def test_detectable_change_follows_the_spread_over_the_square_root_of_the_items():
    # normal theory: the interval's lower reach is 1.96 standard errors of the mean change
    for n in (100, 2500):
        before, after = _data(n, 0.0, spread=0.03, seed=n)
        [macro] = paired("cer", before, after)
        expected = 1.96 * np.std(after - before, ddof=1) / math.sqrt(n)
        assert macro.detectable == pytest.approx(expected, rel=0.08), n


def test_a_metric_where_higher_is_better_turns_the_interval_of_the_worsening_around():
    before, after = _data(200, -0.01, seed=5)  # field_f1 fell by 0.01: a worsening
    [macro] = paired("field_f1", before, after)
    low, high = macro.worsening
    assert (low, high) == (-macro.high, -macro.low) and low > 0
    assert macro.detectable == pytest.approx(macro.high - macro.change)
    assert macro.regressed(Tolerance.parse("0@95%")) and macro.direction == "worse"


def test_a_confidence_decides_only_when_the_whole_interval_is_beyond_the_tolerance():
    before, after = _data(60, 0.003, spread=0.03, seed=0)
    [macro] = paired("cer", before, after)
    assert macro.low < 0 < macro.change  # worse on average, but the interval reaches an improvement
    assert Tolerance.parse("0.001").amount < macro.change
    assert macro.regressed(Tolerance.parse("0.001"))  # the plain rule compares the estimate
    assert not macro.regressed(Tolerance.parse("0.001@95%"))
    assert "not decided" in verdict(macro, Tolerance.parse("0.001@95%"))
    with pytest.raises(ValueError, match="interval at 0.95"):
        macro.regressed(Tolerance.parse("0.001@99%"))
    [strict] = paired("cer", before, after, confidence=0.5)
    assert strict.high - strict.low < macro.high - macro.low


def test_runs_whose_items_did_not_change_show_no_noise_to_judge_by():
    values = [0.1, 0.0, 0.25, 0.05]
    [macro] = paired("cer", values, values)
    assert (macro.low, macro.high, macro.change, macro.p_value, macro.detectable) == (0, 0, 0, 1, 0)
    assert macro.direction == "same" and not macro.regressed(Tolerance.parse("0@95%"))
    assert noise(macro) == "no item's change varies, so these 4 items show no noise to tell a change from"
