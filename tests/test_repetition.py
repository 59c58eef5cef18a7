"""Repetition-loop detection, checked against a brute-force definition of a periodic tail."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_ocr.metrics.repetition import describe, find_repetition

PROPERTY = settings(max_examples=300, derandomize=True, deadline=None, database=None)


def brute_force_tail(text: str, period: int) -> int:
    """Length of the longest suffix in which every character equals the one `period` earlier."""
    n = len(text)
    k = 0
    while n - 1 - k - period >= 0 and text[n - 1 - k] == text[n - 1 - k - period]:
        k += 1
    return k + period if n >= period else 0


def brute_force(text: str, min_repeats: int, min_chars: int):
    text = text.rstrip()
    best = None
    for period in range(1, len(text) // min_repeats + 1):
        tail = brute_force_tail(text, period)
        unit = text[len(text) - tail : len(text) - tail + period]
        if (
            tail >= min_repeats * period
            and tail - period >= min_chars
            and any(c.isalnum() for c in unit)
            and (best is None or tail > best[0])
        ):
            best = (tail, period)
    return best


def test_a_looping_llm_output_is_found():
    text = "INVOICE 42\nDate: 2024-03-15\n" + "Total: 0.00\n" * 37 + "Total: 0."
    loop = find_repetition(text)
    assert loop is not None
    # The line break ending the date line continues the period backwards ("\n" recurs 12
    # characters later); the "5" before it does not.
    assert loop.unit == "\nTotal: 0.00"
    assert loop.start == text.index("Total") - 1
    assert loop.redundant_chars == len(text) - loop.start - 12
    assert 37 < loop.repeats < 38
    assert "repeats" in describe(loop) and "Total" in describe(loop)


def test_ordinary_text_and_short_repeats_are_not_loops():
    assert find_repetition("The quick brown fox jumps over the lazy dog.\nTOTAL 14.79\n") is None
    assert find_repetition("ha ha ha") is None  # 3 repeats but only 6 redundant characters
    assert find_repetition("") is None
    # a receipt ending in a rule of dashes: no letter or digit in the unit
    assert find_repetition("TOTAL 14.79\n" + "-" * 120) is None


def test_thresholds_are_respected():
    text = "start " + "abcde " * 4  # 4 repeats, 18 redundant characters
    assert find_repetition(text, min_repeats=3, min_chars=18) is not None
    assert find_repetition(text, min_repeats=3, min_chars=19) is None
    assert find_repetition(text, min_repeats=5, min_chars=1) is None


def test_trailing_whitespace_is_ignored():
    assert find_repetition("x " + "loop line\n" * 10 + "\n\n  ") == find_repetition("x " + "loop line\n" * 10)


def test_the_smallest_unit_is_reported():
    loop = find_repetition("intro " + "ab" * 60)
    assert loop.unit == "ab" and loop.repeats == 60


@pytest.mark.slow
@PROPERTY
@given(
    st.text(alphabet="ab \n1", max_size=30),
    st.text(alphabet="ab \n1", min_size=1, max_size=6),
    st.integers(min_value=0, max_value=12),
    st.integers(min_value=1, max_value=4),
    st.integers(min_value=0, max_value=20),
)
def test_agrees_with_brute_force(prefix, unit, repeats, min_repeats, min_chars):
    text = prefix + unit * repeats
    loop = find_repetition(text, min_repeats=min_repeats, min_chars=min_chars)
    expected = brute_force(text, min_repeats, min_chars)
    if expected is None:
        assert loop is None
    else:
        tail, period = expected
        stripped = text.rstrip()
        assert (loop.start, len(loop.unit)) == (len(stripped) - tail, period)
        assert loop.redundant_chars == tail - period
        assert loop.unit == stripped[loop.start : loop.start + period]


def test_the_repetition_metric_is_the_redundant_share_of_the_output():
    from pytest_ocr import metrics

    looping = "INVOICE 42\n" + "Total: 0.00\n" * 20
    result = metrics.score("", looping, ["repetition"])["repetition"]
    stripped = looping.rstrip()
    # the tail "\nTotal: 0.00" x 20 starts at the line break after "INVOICE 42" (index 10)
    assert result.counts == {"redundant": len(stripped) - 10 - 12, "characters": len(stripped)}
    assert result.value == (len(stripped) - 22) / len(stripped)
    assert result.details["repeats"] == 20
    assert metrics.score("", "no loop here", ["repetition"])["repetition"].value == 0.0
    assert metrics.score("", "", ["repetition"])["repetition"].value == 0.0
