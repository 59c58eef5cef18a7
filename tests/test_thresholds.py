"""Threshold expressions: parsing, the comparison itself, and the message users read.

The module's promise is that the number printed in a verdict is exactly the
number compared, so a failure never reads "cer = 0.05, expected < 0.05: FAILED"
with a hidden 0.05000000000000001 behind it.
"""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_ocr import metrics
from pytest_ocr.cases import rules as thresholds
from pytest_ocr.cases.rules import Threshold, ThresholdError
from pytest_ocr.scoring.thresholds import judge

PROPERTY = settings(max_examples=200, derandomize=True, deadline=None, database=None)

# -- parse --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "op", "bound"),
    [
        ("< 0.05", "<", 0.05),
        ("<=0.15", "<=", 0.15),
        (">= 0.8", ">=", 0.8),
        ("== 1", "==", 1.0),
        (" > 1e-3 ", ">", 0.001),
        ("<.5", "<", 0.5),
        ("> 2.", ">", 2.0),
        ("<= 1E2", "<=", 100.0),
        (">= -0.25", ">=", -0.25),
        ("<\t0.05\n", "<", 0.05),
    ],
)
def test_parse_accepts(expression, op, bound):
    threshold = thresholds.parse("cer", expression)
    assert threshold == Threshold("cer", op, bound)


@pytest.mark.parametrize(
    "expression",
    [
        "<< 0.05",
        "0.05",  # no operator
        "< abc",
        "=< 1",  # operator spelt backwards
        "!= 1",
        "= 1",
        "<",
        "",
        "   ",
        "< 0.05 0.1",
        "< 5%",
        "< 0x10",
        "< 1_000",
        "< inf",
        "< -inf",
        "< nan",
        "< infinity",
    ],
)
def test_parse_rejects_with_a_message_naming_the_metric_and_an_example(expression):
    with pytest.raises(ThresholdError) as error:
        thresholds.parse("wer", expression)
    message = str(error.value)
    assert "'wer'" in message
    assert repr(expression) in message  # shows what the user wrote
    assert '"< 0.05"' in message  # and what a valid one looks like


@pytest.mark.parametrize("expression", [0.05, 1, None, True, ["<", 0.05], {"<": 0.05}])
def test_parse_rejects_non_strings(expression):
    # YAML turns `cer: 0.05` into a number: a common mistake that must not pass as "== 0.05".
    with pytest.raises(ThresholdError) as error:
        thresholds.parse("cer", expression)
    message = str(error.value)
    assert "'cer'" in message
    assert '"< 0.05"' in message
    assert repr(expression) in message


def test_threshold_error_is_a_value_error():
    assert issubclass(ThresholdError, ValueError)


def test_parse_rejects_a_number_too_large_for_a_float():
    # "1e999" matches the number syntax but overflows to inf: still rejected.
    with pytest.raises(ThresholdError, match="'cer'"):
        thresholds.parse("cer", "< 1e999")


def test_overflowing_bound_message_shows_an_example():
    with pytest.raises(ThresholdError) as error:
        thresholds.parse("cer", "< 1e999")
    assert '"< 0.05"' in str(error.value)


# -- Threshold.check ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "value", "passes"),
    [
        ("< 0.05", 0.05, False),  # the boundary itself
        ("<= 0.05", 0.05, True),
        ("< 0.05", math.nextafter(0.05, 0.0), True),  # one ulp below
        ("<= 0.05", math.nextafter(0.05, 1.0), False),  # one ulp above
        ("> 0.8", 0.8, False),
        (">= 0.8", 0.8, True),
        (">= 0.8", math.nextafter(0.8, 0.0), False),
        ("== 1", 1.0, True),
        ("== 1", math.nextafter(1.0, 0.0), False),
        ("<= 0.3", 0.1 + 0.2, False),  # 0.30000000000000004
        ("< 0.1", 1 / 14, True),
        ("< 0.05", 1 / 14, False),
    ],
)
def test_check_boundaries(expression, value, passes):
    assert thresholds.parse("cer", expression).check(value) is passes


# -- format_number ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "printed"),
    [
        (0.05, "0.05"),
        (1.0, "1"),
        (0.0, "0"),
        (2.5, "2.5"),
        (1e-3, "0.001"),
        (1 / 14, "0.07142857142857142"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1 / 3, "0.3333333333333333"),
        (math.nextafter(0.05, 1.0), "0.05000000000000001"),
    ],
)
def test_format_number_examples(value, printed):
    assert thresholds.format_number(value) == printed


@PROPERTY
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_format_number_reads_back_as_the_same_float(value):
    assert float(thresholds.format_number(value)) == value


@PROPERTY
@given(st.integers(min_value=-(10**15) + 1, max_value=10**15 - 1))
def test_format_number_prints_integral_values_without_a_fraction(n):
    assert thresholds.format_number(float(n)) == str(n)


def test_expression_prints_the_bound_exactly():
    assert thresholds.parse("cer", " > 1e-3 ").expression == "> 0.001"
    assert thresholds.parse("cer", "==1.0").expression == "== 1"


# -- judge and Check.message --------------------------------------------------------


def test_judge_reports_each_threshold():
    rules = [
        thresholds.parse("cer", "< 0.05"),
        thresholds.parse("wer", "<= 0.15"),
        thresholds.parse("exact_match", "== 1"),
    ]
    checks = judge(rules, {"cer": 1 / 14, "wer": 0.1, "exact_match": 1.0})
    assert [c.threshold for c in checks] == rules
    assert [c.passed for c in checks] == [False, True, True]
    assert [c.value for c in checks] == [1 / 14, 0.1, 1.0]

    failed, ok, exact = (c.message() for c in checks)
    assert "cer" in failed and "0.07142857142857142" in failed and "< 0.05" in failed and "FAILED" in failed
    assert "wer" in ok and "0.1" in ok and "<= 0.15" in ok and "ok" in ok and "FAILED" not in ok
    assert "exact_match" in exact and "== 1" in exact and "FAILED" not in exact


def test_judge_fails_a_missing_metric():
    rule = thresholds.parse("cer", "< 0.05")
    (check,) = judge([rule], {"wer": 0.0})
    assert check.passed is False
    assert check.value is None
    message = check.message()
    assert "cer" in message and "< 0.05" in message
    assert "not computed" in message


def test_a_worked_example_end_to_end():
    # ocr-metrics-spec.md §1.1: CER 1/14 = 7.14 % fails a 5 % threshold and passes 10 %.
    value = metrics.cer("INVOICE #12345", "INV0ICE #12345")
    rules = [thresholds.parse("cer", "< 0.05"), thresholds.parse("cer", "< 0.1")]
    strict, loose = judge(rules, {"cer": value})
    assert not strict.passed and loose.passed
    assert strict.message() == "cer = 0.07142857142857142, expected < 0.05: FAILED"
    assert loose.message() == "cer = 0.07142857142857142, expected < 0.1: ok"


MESSAGE = re.compile(r"^cer = (?P<value>\S+), expected (?P<op><=|>=|==|<|>) (?P<bound>\S+): (?P<verdict>ok|FAILED)$")


@PROPERTY
@given(
    value=st.floats(min_value=0.0, max_value=2.0),
    bound=st.floats(min_value=0.0, max_value=2.0),
    op=st.sampled_from(["<", "<=", ">", ">=", "=="]),
)
def test_message_prints_exactly_the_numbers_compared(value, bound, op):
    # Reading the message back gives the same numbers and the same verdict, with
    # the comparison redone here on the printed numbers.
    (check,) = judge([thresholds.parse("cer", f"{op} {bound!r}")], {"cer": value})
    match = MESSAGE.match(check.message())
    assert match, check.message()
    printed_value, printed_bound = float(match["value"]), float(match["bound"])
    assert (printed_value, match["op"], printed_bound) == (value, op, bound)
    compare = {"<": float.__lt__, "<=": float.__le__, ">": float.__gt__, ">=": float.__ge__, "==": float.__eq__}[op]
    assert check.passed is compare(printed_value, printed_bound)
    assert match["verdict"] == ("ok" if check.passed else "FAILED")
