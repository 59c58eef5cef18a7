"""Equal parts of the results a run keeps are kept once (run/result.py SharedParts), and
a result reads the same after as before."""

from __future__ import annotations

import copy

from pytest_ocr.run.result import SharedParts, make_result


def _result(key: str, errors: int, version: str = "5.3.0", tags: tuple[str, ...] = ("lines",)) -> object:
    steps = ["NFC", "collapse_whitespace"]
    return make_result(
        key=key,
        id=key,
        case=key,
        file="s.ocr.yaml",
        line=1,
        engine="tesseract",
        image="a.png",
        outcome="passed",
        tags=list(tags),
        metrics={"cer": errors / 100, "exact_match": 0.0},
        details={
            "cer": {"unit": "codepoint", "normalization": list(steps), "counts": {"errors": errors, "denominator": 99}},
            "exact_match": {"unit": "case", "normalization": list(steps), "counts": {"matches": 0.0, "cases": 1}},
        },
        thresholds={"cer": "< 0.1"},
        tolerances={"cer": "+0.01"},
        fingerprint={"type": "tesseract", "version": version, "config": {"lang": "eng", "psm": 7}},
    )


def test_equal_parts_are_kept_once_and_results_read_the_same() -> None:
    shared = SharedParts()
    made = [_result(f"k{i}", errors=i % 3) for i in range(6)]
    before = [copy.deepcopy(r.to_dict()) for r in made]
    kept = [shared(r) for r in made]
    assert [r.to_dict() for r in kept] == before
    first, *others = kept
    for r in others:
        assert r.fingerprint is first.fingerprint and r.thresholds is first.thresholds
        assert r.tolerances is first.tolerances and r.tags is first.tags
        assert r.details["cer"]["normalization"] is first.details["cer"]["normalization"]
        assert r.details["exact_match"]["counts"] is first.details["exact_match"]["counts"]
    assert kept[3].details["cer"]["counts"] is kept[0].details["cer"]["counts"]  # both 0 errors of 99
    assert kept[1].details["cer"]["counts"] is not kept[0].details["cer"]["counts"]


def test_what_differs_stays_apart() -> None:
    shared = SharedParts()
    old, new = shared(_result("a", 1)), shared(_result("b", 1, version="5.4.1", tags=("pages",)))
    assert new.fingerprint["version"] == "5.4.1" and old.fingerprint["version"] == "5.3.0"
    assert new.tags == ["pages"] and old.tags == ["lines"]


def test_counts_equal_in_value_but_not_in_type_stay_apart() -> None:
    shared = SharedParts()
    first, second = _result("a", 1), _result("b", 1)
    second.details["exact_match"]["counts"] = {"matches": 0, "cases": 1}  # 0, not 0.0: written "0" in a report
    shared(first)
    shared(second)
    assert second.details["exact_match"]["counts"] is not first.details["exact_match"]["counts"]
    assert repr(second.to_dict()["details"]["exact_match"]["counts"]) == "{'matches': 0, 'cases': 1}"


def test_equal_details_and_confusions_are_kept_once_and_read_the_same() -> None:
    shared = SharedParts()
    made = [_result(f"k{i}", errors=1) for i in range(3)]
    for r in made:
        r.details["cer"]["confusions"] = [["e", "c", 1], ["l", "1", 2]]
    before = [copy.deepcopy(r.to_dict()) for r in made]
    kept = [shared(r) for r in made]
    assert [r.to_dict() for r in kept] == before
    assert kept[2].details["exact_match"] is kept[0].details["exact_match"]
    assert kept[2].details["cer"] is not kept[0].details["cer"]  # an item's confusions are a list of its own
    assert kept[2].details["cer"]["confusions"] is not kept[0].details["cer"]["confusions"]
    assert kept[2].details["cer"]["confusions"][1] is kept[0].details["cer"]["confusions"][1]


def test_details_equal_in_value_but_not_in_type_or_sign_stay_apart() -> None:
    shared = SharedParts()
    first, second, third, fourth = (_result(key, 1) for key in "abcd")
    first.details["exact_match"]["empty_reference"] = False
    second.details["exact_match"]["empty_reference"] = 0  # equal to False, written "0" in a report
    third.details["exact_match"]["lower_bound"] = 0.0
    fourth.details["exact_match"]["lower_bound"] = -0.0  # equal to 0.0, written "-0.0"
    kept = [shared(r) for r in (first, second, third, fourth)]
    assert kept[1].details["exact_match"] is not kept[0].details["exact_match"]
    assert repr(kept[1].to_dict()["details"]["exact_match"]["empty_reference"]) == "0"
    assert kept[3].details["exact_match"] is not kept[2].details["exact_match"]
    assert repr(kept[3].to_dict()["details"]["exact_match"]["lower_bound"]) == "-0.0"
