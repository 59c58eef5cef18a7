"""Items with repeats against their baseline, judged over the run (run/noise.py), against a
real HTTP service on 127.0.0.1 that samples (engine_helpers/sampling.py): verdicts that do
not flap when nothing changed, a real regression caught, the spread of unstable items,
certain changes of a deterministic engine, ``regression: {metric: null}``, confidences,
and the same numbers in every process layout and in ``pytest-ocr compare``.

The statistics are checked against scipy's permutation tests and Holm's method against
closed testing with Bonferroni's local tests (its definition), computed here by brute force.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest
from engine_helpers import sampling
from scipy import stats

from pytest_ocr.run import noise

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

REPEATS = "--ocr-repeat=5"


# -- the tests' numbers --------------------------------------------------------------------


def _difference(x, y, axis):
    return np.mean(y, axis=axis) - np.mean(x, axis=axis)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ([0.0, 0.0, 0.1, 0.0, 0.1], [0.03, 0.03, 0.13, 0.03, 0.13]),  # a shift within the noise
        ([0.01] * 5, [0.04] * 5),  # all apart: the smallest p-value five and five give
        ([0.2, 0.1, 0.3], [0.1, 0.25, 0.2, 0.4]),
        ([0.0, 0.1] * 3, [0.1, 0.0] * 3),  # ties everywhere
    ],
)
def test_an_items_test_is_scipys_exact_permutation_test(old, new):
    expected = stats.permutation_test(
        (old, new),
        _difference,
        permutation_type="independent",
        alternative="greater",
        vectorized=True,
        n_resamples=10_000,
    ).pvalue
    assert noise.two_sample_p(old, new) == pytest.approx(expected, rel=1e-12)


def test_one_recognition_against_five_by_hand():
    """scipy wants two values a side. By hand: which of the six values is the baseline's
    decides the statistic; 0.5 (as measured: 0), 0.1 (+0.48) and 0.2 (+0.36) reach it."""
    assert noise.two_sample_p([0.5], [0.1, 0.2, 0.6, 0.7, 0.9]) == 3 / 6


def test_an_items_test_with_many_repeats_resamples_within_scipys_error():
    rng = np.random.default_rng(7)
    old, new = rng.normal(0.10, 0.03, 20), rng.normal(0.115, 0.03, 20)  # C(40, 20) arrangements: resampled
    expected = stats.permutation_test(
        (old, new), _difference, permutation_type="independent", alternative="greater", vectorized=True, rng=1
    ).pvalue
    found = noise.two_sample_p(old, new)
    assert abs(found - expected) < 4 * np.sqrt(expected * (1 - expected) / 10_000)
    assert found == noise.two_sample_p(list(old), list(new))  # a fixed seed: the same numbers every time


@pytest.mark.parametrize("n", [5, 13, 40])
def test_an_overall_change_is_scipys_sign_flip_test(n):
    d = np.random.default_rng(n).normal(0.01, 0.03, n)
    expected = stats.permutation_test(
        (d,), lambda x, axis: np.mean(x, axis=axis), permutation_type="samples", alternative="greater", rng=3
    ).pvalue
    found = noise.sign_flip_p(d)
    if n <= 13:  # every pattern of signs: exact
        assert found == pytest.approx(expected, rel=1e-12)
    else:
        assert abs(found - expected) < 4 * np.sqrt(expected * (1 - expected) / 10_000)


def _closed_testing(p: list[float], alpha: float) -> set[int]:
    """Hypotheses rejected by closed testing with Bonferroni's test of each intersection:
    i is rejected when every subset of hypotheses holding i is, which Holm's method
    computes in one pass."""
    m = len(p)
    subsets = [s for k in range(1, m + 1) for s in itertools.combinations(range(m), k)]
    rejected_sets = {s for s in subsets if min(p[i] for i in s) <= alpha / len(s)}
    return {i for i in range(m) if all(s in rejected_sets for s in subsets if i in s)}


@pytest.mark.parametrize("seed", range(30))
def test_holms_adjusted_p_values_reject_what_closed_testing_rejects(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 8))
    p = [float(v) for v in rng.choice([rng.uniform(0, 0.05), rng.uniform(0, 1), 0.0, 1 / 252], m)]
    adjusted = noise.holm(p)
    for alpha in (0.01, 0.05, 0.1, 0.2):
        assert {i for i, a in enumerate(adjusted) if a <= alpha} == _closed_testing(p, alpha)


# -- runs against a service that samples ---------------------------------------------------


@pytest.fixture
def service(pytester):
    server = sampling.SamplingServer()
    items = sampling.suite(pytester.path, server.url)
    yield server, items
    server.stop()


def run(pytester, server, readings, seed, *args, plan=None):
    server.use(readings, seed, plan)
    return pytester.runpytest("-p", "no:cacheprovider", "--ocr-no-cache", *args)


def report(pytester, name):
    return json.loads((pytester.path / name).read_text())


def test_no_change_never_fails_and_a_real_regression_always_does(pytester, service):
    """The target of issue 26: 20 runs where nothing changed all pass, 20 runs with a real
    +0.03 CER regression all fail, each against a baseline of its own, settings as they
    come but for the repeats. Before, 16 of 40 items failed as REGRESSED in a no-change run."""
    server, items = service
    base, worse = sampling.readings(items), sampling.readings(items, 0.03)
    passed, failed = [], []
    for i in range(20):
        run(pytester, server, base, 1000 + i, REPEATS, "-q", "--ocr-report=base.json").assert_outcomes(passed=40)
        head = run(pytester, server, base, 2000 + i, REPEATS, "-q", "--ocr-baseline=base.json")
        passed.append(head.ret)
        regressed = run(pytester, server, worse, 3000 + i, REPEATS, "-q", "--ocr-baseline=base.json")
        failed.append(regressed.ret)
        if i == 0:  # what a regressed run says
            out = regressed.stdout.str()
            assert "FAILED ocr-gates::vlm: baseline, beyond the noise of repeats" in out
            assert "vlm: cer over 40 items with repeats, worse than their tolerances by +0.03" in out
            assert "over the run's 41 tests, Holm, at 95%): REGRESSED" in out
            # what the repeats cannot show, said once where the run's verdicts are
            assert "with these repeats no single unstable item can be shown to have regressed at 95%" in out
    assert passed == [0] * 20
    assert failed == [1] * 20


def test_a_change_within_the_spread_of_an_unstable_items_repeats_is_not_a_regression(pytester, service):
    server, items = service
    right = sampling.readings(items)
    broken = {image: (a, b, "x" * len(a)) for image, (a, b) in right.items()}  # a third reading: all wrong
    first = items[0][0]
    ten = "--ocr-repeat=10"
    run(pytester, server, broken, 1, ten, "--ocr-report=base.json", plan={first: [0] * 9 + [1]})
    # nine of ten right before, nine of ten off by two letters now: a change the item's own
    # repeats showed (one of them), which a test with ten repeats would call significant
    result = run(
        pytester,
        server,
        broken,
        1,
        ten,
        "--ocr-baseline=base.json",
        "--ocr-report=head.json",
        plan={first: [1] * 9 + [0]},
    )
    assert result.ret == 0, result.stdout.str()
    record = next(r for r in report(pytester, "head.json")["results"] if r["case"] == "p00")
    delta = next(d for d in record["baseline"]["deltas"] if d["metric"] == "cer")
    assert delta["verdict"] == "worse" and delta["noise"]["adjusted"] <= 0.05  # shown, yet within the spread
    assert delta["how"].startswith("within the spread of its repeats (10 and 10 recognitions, best to worst 0.")
    assert "not a regression" in delta["how"]

    # beyond the spread: all ten now read every letter wrong
    result = run(
        pytester, server, broken, 1, ten, "--ocr-baseline=base.json", "--ocr-report=head.json", plan={first: [2] * 10}
    )
    assert result.ret == 1
    out = result.stdout.str()
    assert "1 regressed beyond the noise of their repeats (sampled.ocr.yaml::p00[vlm]: cer 0.0" in out
    assert "-> 1 (10 and 10 recognitions, p = " in out and "shown at 95%))" in out
    record = next(r for r in report(pytester, "head.json")["results"] if r["case"] == "p00")
    assert record["outcome"] == "failed" and record["baseline"]["regressed"]


def test_a_deterministic_engine_with_repeats_regresses_on_any_change(pytester, service):
    """No repeat of any item differed in either run: the change is certain, as without repeats."""
    server, items = service
    right = sampling.readings(items)
    stable = {image: (a, b) for image, (a, b) in right.items()}
    always_first = {image: [0] * 5 for image, _ in items}
    run(pytester, server, stable, 1, REPEATS, "--ocr-report=base.json", plan=always_first)
    result = run(
        pytester,
        server,
        stable,
        1,
        REPEATS,
        "--ocr-baseline=base.json",
        "--ocr-report=head.json",
        plan={**always_first, items[3][0]: [1] * 5},
    )
    result.assert_outcomes(passed=40, failed=1)  # the item's own test passed; the run's check failed
    out = result.stdout.str()
    assert "5 and 5 recognitions, every one alike in both runs: the change is certain" in out
    document = report(pytester, "head.json")
    failed = [r["case"] for r in document["results"] if r["outcome"] == "failed"]
    assert failed == ["p03"]
    check = next(g for g in document["gates"] if g["name"] == "vlm: baseline, beyond the noise of repeats")
    assert not check["passed"]
    assert "1 regressed beyond the noise of their repeats (sampled.ocr.yaml::p03[vlm]: cer " in check["message"]


def test_regression_null_turns_the_comparison_of_a_metric_off(pytester, service):
    server, items = service
    right = sampling.readings(items)
    always = {image: [0] * 5 for image, _ in items}
    changed = {**always, items[3][0]: [1] * 5}
    run(pytester, server, right, 1, REPEATS, "--ocr-report=base.json", plan=always)
    config = json.loads((pytester.path / "sampled.ocr.yaml").read_text())
    config["defaults"]["regression"] = {"cer": None}
    (pytester.path / "sampled.ocr.yaml").write_text(json.dumps(config))
    result = run(
        pytester, server, right, 1, REPEATS, "--ocr-baseline=base.json", "--ocr-report=head.json", plan=changed
    )
    assert result.ret == 0
    record = next(r for r in report(pytester, "head.json")["results"] if r["case"] == "p03")
    assert record["tolerances"] == {} and record["baseline"]["deltas"] == []
    # without repeats too: a threshold's metric is no longer compared at all
    result = run(pytester, server, right, 1, "--ocr-baseline=base.json", plan=changed)
    assert result.ret == 0


def test_a_confidence_on_an_items_tolerance_makes_a_family_of_its_own(pytester, service):
    server, items = service
    base, worse = sampling.readings(items), sampling.readings(items, 0.03)
    config = json.loads((pytester.path / "sampled.ocr.yaml").read_text())
    config["defaults"]["regression"] = {"cer": "0@99.9%"}
    (pytester.path / "sampled.ocr.yaml").write_text(json.dumps(config))
    run(pytester, server, base, 1, REPEATS, "--ocr-report=base.json")
    result = run(pytester, server, worse, 2, REPEATS, "--ocr-baseline=base.json", "--ocr-report=head.json")
    families = report(pytester, "head.json")["baseline"]["families"]
    assert [(f["confidence"], f["tests"], f["item_tests"]) for f in families] == [(0.999, 41, 40)]
    overall = families[0]["overall"][0]
    # 10,000 sign flips cannot show p <= 0.001/41: more are drawn, up to what the level needs
    assert overall["adjusted"] <= 0.001 and overall["p_value"] < 0.001 / 41
    assert result.ret == 1 and "at 99.9%): REGRESSED" in result.stdout.str()


def test_every_process_layout_and_compare_give_the_same_numbers(pytester, service):
    """Issue 26 point 3: statistics that depend on the set of items alone. The same outputs
    (the service's draws depend on the seed only) run serially, three times under
    pytest-xdist, in three shards merged, and read back by compare: bit-identical paired
    intervals and p-values, noise tests and gates."""
    server, items = service
    base, worse = sampling.readings(items), sampling.readings(items, 0.01)
    gate = "--ocr-gate=cer.macro:+0.002@95%"
    run(pytester, server, base, 1, REPEATS, "--ocr-report=base.json").assert_outcomes(passed=40)

    def numbers(document):
        view = document["baseline"]
        return {
            "families": view["families"],
            "moves": [m for e in view["engines"] for m in e["metrics"]],
            "gates": [g for g in document["gates"]],
            "deltas": {r["key"]: r["baseline"]["deltas"] for r in document["results"]},
        }

    run(pytester, server, worse, 5, REPEATS, gate, "--ocr-baseline=base.json", "--ocr-report=serial.json")
    serial = numbers(report(pytester, "serial.json"))
    assert serial["moves"][0]["paired"][0]["n"] == 40  # more than 13 items: resampled, not enumerated
    for k in range(3):
        run(pytester, server, worse, 5, REPEATS, "-n", "2", gate, "--ocr-baseline=base.json", f"--ocr-report=x{k}.json")
        assert numbers(report(pytester, f"x{k}.json")) == serial
    for k in (1, 2, 3):
        run(
            pytester,
            server,
            worse,
            5,
            REPEATS,
            gate,
            f"--ocr-shard={k}/3",
            "--ocr-baseline=base.json",
            f"--ocr-report=shard{k}.json",
        )
    pending = report(pytester, "shard1.json")["results"][0]["baseline"]["deltas"][0]["noise"]
    assert pending["adjusted"] is None  # a shard's items wait for the merge
    merge = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest_ocr.cli",
            "merge",
            "shard1.json",
            "shard2.json",
            "shard3.json",
            "--baseline=base.json",
            "-o",
            "merged.json",
        ],
        cwd=pytester.path,
        capture_output=True,
        text=True,
    )
    assert merge.returncode in (0, 1), merge.stderr
    merged = numbers(report(pytester, "merged.json"))
    assert merged["families"] == serial["families"] and merged["deltas"] == serial["deltas"]
    assert merged["moves"] == serial["moves"]
    assert [g for g in merged["gates"] if g["paired"]] == [g for g in serial["gates"] if g["paired"]]

    compared = subprocess.run(
        [sys.executable, "-m", "pytest_ocr.cli", "compare", "base.json", "serial.json", "--json"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        check=True,
    )
    comparison = json.loads(compared.stdout)
    assert comparison["families"] == serial["families"]
    paired = {(m["metric"], p["kind"]): p for m in serial["moves"] for p in m["paired"]}
    for engine in comparison["engines"]:
        for row in engine["aggregates"]:
            if (row["metric"], row["kind"]) in paired:
                assert row["paired"] == paired[(row["metric"], row["kind"])]
    regressed = {c["key"] for c in comparison["cases"] if c["regressed"]}
    assert regressed == {r["key"] for r in report(pytester, "serial.json")["results"] if r["baseline"]["regressed"]}
    # one comparison: compare's shares the run's own baseline section, member for member
    run_view = report(pytester, "serial.json")["baseline"]
    shared = ("records", "current", "matched", "warnings", "families")
    assert {k: comparison[k] for k in shared} == {k: run_view[k] for k in shared}
    assert [{k: e[k] for k in run_view["engines"][0]} for e in comparison["engines"]] == run_view["engines"]


def test_compare_shows_instability_and_judges_as_the_run_did(pytester, service):
    server, items = service
    base, worse = sampling.readings(items), sampling.readings(items, 0.03)
    run(pytester, server, base, 1, REPEATS, "--ocr-report=base.json")
    run(pytester, server, worse, 2, REPEATS, "--ocr-baseline=base.json", "--ocr-report=head.json")

    def compare(*args):
        return subprocess.run(
            [sys.executable, "-m", "pytest_ocr.cli", "compare", "base.json", "head.json", *args],
            cwd=pytester.path,
            capture_output=True,
            text=True,
            check=True,
        ).stdout

    text = compare()
    assert "unstable items: " in text and "repeated items: 40 -> 40" in text
    assert "items with repeats are compared as samples: 40 item tests and 1 overall change, 41 tests at 95%" in text
    assert "overall: vlm: cer over 40 items with repeats" in text and "REGRESSED" in text
    markdown = compare("--markdown")
    assert "| unstable items |" in markdown and "items with repeats are compared as samples" in markdown
    document = json.loads(compare("--json"))
    head = report(pytester, "head.json")
    assert document["families"] == head["baseline"]["families"]
    assert {c["key"]: c["unstable"] for c in document["cases"]} == {
        r["key"]: r["repeats"]["unstable"] or b["repeats"]["unstable"]
        for r, b in zip(head["results"], report(pytester, "base.json")["results"], strict=True)
    }


def test_compares_per_item_rules_judge_items_with_repeats_as_the_run_does(pytester, service):
    """``pytest-ocr compare --fail-on cer:+0.01`` compared each item's mean at zero noise: on a
    run where nothing changed (which passed) it failed 7 of 40 items, and ``cer:+0.01@95%`` was
    refused ("one item's change has no spread"). Now the rule is the run's comparison with the
    rule's tolerance: its own family of tests, each engine's overall change among them."""
    server, items = service
    base, worse = sampling.readings(items), sampling.readings(items, 0.03)
    run(pytester, server, base, 1, REPEATS, "--ocr-report=base.json")
    assert run(pytester, server, base, 2, REPEATS, "--ocr-baseline=base.json", "--ocr-report=same.json").ret == 0
    assert run(pytester, server, worse, 3, REPEATS, "--ocr-baseline=base.json", "--ocr-report=worse.json").ret == 1

    def compare(head, *rules):
        return subprocess.run(
            [sys.executable, "-m", "pytest_ocr.cli", "compare", "base.json", head, "--json"]
            + [f"--fail-on={rule}" for rule in rules],
            cwd=pytester.path,
            capture_output=True,
            text=True,
        )

    for rules in (["cer:+0"], ["cer:+0.01"], ["cer:+0.01@95%"], ["cer:+0", "cer:+0.01@99%"]):
        same = compare("same.json", *rules)
        assert same.returncode == 0, (rules, same.stdout[-3000:], same.stderr)
        assert json.loads(same.stdout)["violations"] == []
    worse_by = compare("worse.json", "cer:+0.01@95%")
    assert worse_by.returncode == 1, worse_by.stderr
    [violation] = json.loads(worse_by.stdout)["violations"]
    assert violation["rule"] == "cer:+0.01@95%" and violation["engine"] == "vlm" and violation["key"] is None
    assert violation["message"].startswith("vlm: cer over 40 items with repeats, worse than their tolerances by +0.0")
    assert violation["message"].endswith("over the run's 41 tests, Holm, at 95%): REGRESSED")
    # What the rule's tests cannot show, when its family is not the comparison's own
    notes = json.loads(compare("same.json", "cer:+0.01@99.9%").stdout)["notes"]
    assert [n for n in notes if n.startswith("rule cer:+0.01@99.9%: with these repeats no single unstable item")]


def test_an_overall_change_is_resolved_within_a_bounded_work_and_says_when_it_cannot_be_shown():
    # 41 tests at 95%: 10,000 flips resolve 1e-4 < 0.05/41; 401 ask for more (0.05/401 = 1.2e-4)
    assert noise._resamples(0.05 / 41, 40) == 10_000
    assert noise._resamples(0.05 / 401, 400) == 32_080
    # 20,000 items: the flips are bounded by their work, and the family says what that leaves
    assert noise._resamples(0.05 / 20_001, 20_000) == 10_000
    family = noise.Family(0.95, 20_001, 20_000, None, 0.05 / 20_001, (), 1 / 10_001)
    assert family.note() == (
        "an engine's overall change is resolved down to p = 0.0001 over its many items, above the 2.5e-06 "
        "Holm's method asks for at 95%: it cannot be shown"
    )
