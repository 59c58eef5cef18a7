"""The codec of the record's dataclasses (pytest_ocr/codec.py): JSON data from the fields'
types and back; the example of its docstring; the record's own parts, written and read again."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import get_args, get_type_hints

import pytest

from pytest_ocr.cases.gates import Gate
from pytest_ocr.cases.rules import EXACT, Tolerance
from pytest_ocr.codec import Coded, decode, encode, text
from pytest_ocr.run.aggregate import MetricAggregate, Summary
from pytest_ocr.run.record import RunInfo
from pytest_ocr.run.result import OUTCOMES, CaseResult, make_result
from pytest_ocr.run.stored import report_schema
from pytest_ocr.scoring.facts import FactRecord
from pytest_ocr.scoring.tolerance import Delta, ItemComparison, LostFact, Noise


@dataclass(frozen=True)
class Noisy:
    spread: float


@dataclass(frozen=True)
class Move(Coded):  # the docstring's example
    metric: str
    old: float
    # written as people write a tolerance ("0.005", "10%"), not as its fields
    tolerance: Tolerance = field(default=EXACT, metadata=text(Tolerance.parse))
    spans: tuple[tuple[int, int], ...] = ()
    noise: Noisy | None = None


def test_the_docstring_example():
    move = Move("cer", 0.1, spans=((0, 3),))
    assert move.to_dict() == {"metric": "cer", "old": 0.1, "tolerance": "0", "spans": [[0, 3]], "noise": None}
    assert Move.from_dict({"metric": "cer", "old": 0.1, "tolerance": "0", "spans": [[0, 3]]}) == move


def test_each_form_written_and_read_back():
    move = Move("wer", 0.25, Tolerance.parse("10%"), ((1, 2), (5, 9)), Noisy(0.5))
    data = move.to_dict()
    assert data == {
        "metric": "wer",
        "old": 0.25,
        "tolerance": "10%",
        "spans": [[1, 2], [5, 9]],
        "noise": {"spread": 0.5},
    }
    assert json.loads(json.dumps(data)) == data  # JSON data, nothing else
    again = Move.from_dict(json.loads(json.dumps(data)))
    assert again == move and again.spans == ((1, 2), (5, 9)) and isinstance(again.noise, Noisy)


def test_keys_that_are_no_field_are_ignored_and_missing_fields_take_their_defaults():
    read = Move.from_dict({"metric": "cer", "old": 0.5, "verdict": "worse", "message": "for readers"})
    assert read == Move("cer", 0.5)
    with pytest.raises(TypeError, match="old"):  # a field without a default is needed
        Move.from_dict({"metric": "cer"})


class Colour(enum.Enum):
    RED = "red"


@dataclass
class Palette:
    colours: dict[str, list[Colour]]
    named: dict[str, Palette] = field(default_factory=dict)
    best: Colour | None = None


def test_enums_by_value_and_dataclasses_nested_in_dicts_and_lists():
    palette = Palette({"warm": [Colour.RED]}, {"inner": Palette({}, best=Colour.RED)})
    data = encode(palette)
    assert data == {
        "colours": {"warm": ["red"]},
        "named": {"inner": {"colours": {}, "named": {}, "best": "red"}},
        "best": None,
    }
    assert decode(Palette, json.loads(json.dumps(data))) == palette


def test_plain_values_are_not_copied():
    palette = Palette({"warm": [Colour.RED]})
    tags = {"a": 1}

    @dataclass
    class Tagged:
        tags: dict[str, int]

    assert encode(Tagged(tags))["tags"] is tags
    assert encode(palette)["colours"] is not palette.colours  # its enums are written by value


@dataclass
class Either:
    value: Noisy | Palette


def test_a_union_of_dataclasses_has_no_one_form():
    with pytest.raises(TypeError, match="no one form"):
        encode(Either(Noisy(1.0)))


def test_not_a_dataclass():
    with pytest.raises(TypeError, match="not a dataclass"):
        encode(object())


def test_a_class_s_own_forms_are_used_when_nested():
    """Delta writes its verdict and message between its fields (its hand-written to_dict),
    and the item's comparison writes them so; reading takes its fields back."""
    delta = Delta("cer", 0.1, 0.3, Tolerance.parse("0.05"), Noise(3, 3, 0.02, 0.001, 0.95, 0.004, 12))
    comparison = ItemComparison("compared", (delta,), (LostFact("f1", "present", "not found"),))
    data = json.loads(json.dumps(comparison.to_dict()))
    assert list(data["deltas"][0]) == ["metric", "old", "new", "tolerance", "verdict", "message", "noise", "how"]
    assert data["deltas"][0]["tolerance"] == "0.05" and data["regressed"] is True
    assert ItemComparison.from_dict(data) == comparison


def test_the_record_s_parts_read_back():
    gate = Gate("cer", "macro", "<", 0.1, (("tag", "receipts"),), 2, "suite.ocr.yaml:7", "suite.ocr.yaml")
    against = Gate("cer", "macro", "<", 0.0, (), tolerance=Tolerance.parse("0.002@95%"))
    for g in (gate, against):
        assert Gate.from_dict(json.loads(json.dumps(g.to_dict()))) == g
    assert against.to_dict()["tolerance"] == "0.002@95%" and gate.to_dict()["scope"] == [["tag", "receipts"]]

    summary = Summary("tesseract", 3, metrics={"cer": MetricAggregate(0.1, 0.2, 3, [0.05, 0.15])})
    summary.groups["tag:a"] = Summary("tag:a", 1)
    assert Summary.from_dict(json.loads(json.dumps(summary.to_dict()))) == summary

    fact = FactRecord("f1", "present", None, False, "not found", file="c.ocr.yaml", line=4, spans=((0, 2),))
    result = make_result(
        key="k",
        id="c.ocr.yaml::a[e]",
        case="a",
        file="c.ocr.yaml",
        line=3,
        engine="e",
        image="a.png",
        outcome="failed",
        metrics={"cer": 0.5},
        facts=[fact],
    )
    data = json.loads(json.dumps(result.to_dict()))
    assert "page" not in data and data["facts"][0]["spans"] == [[0, 2]]
    assert CaseResult.from_dict(data) == result


def test_the_literals_the_record_s_fields_hold_are_the_values_the_report_schema_allows():
    """An outcome (and a run's or an item comparison's status) is typed by the values it
    holds: the type and the schema readers validate reports with name the same ones."""
    schema = report_schema()
    result, run = schema["$defs"]["result"]["properties"], schema["properties"]["run"]["properties"]
    comparison = result["baseline"]["properties"]
    assert list(OUTCOMES) == result["outcome"]["enum"]
    assert get_args(get_type_hints(CaseResult)["outcome"]) == OUTCOMES
    assert list(get_args(get_type_hints(RunInfo)["status"])) == run["status"]["enum"]
    assert list(get_args(get_type_hints(ItemComparison)["status"])) == comparison["status"]["enum"]


def test_a_type_known_only_to_the_type_checker_is_said_so():
    @dataclass
    class Hidden:
        value: NotImportedHere  # noqa: F821

    with pytest.raises(TypeError, match="Hidden: its fields' types must be importable"):
        encode(Hidden(1))
