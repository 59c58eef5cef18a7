"""Field extraction metrics: flattening, matchers, field precision/recall/F1 and
completeness (spec section 2.1, completeness from 2.2).

Expected values come from the spec's worked example, hand-written tables and counts
in comments, and, for the property tests, the spec's own algorithm re-implemented
here on flat fields.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections import Counter

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_ocr import metrics
from pytest_ocr.metrics import METRICS, Structured, field_scores, flatten, parse_matcher, pooled, score

PROPERTY = settings(
    max_examples=300, derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
FIELD_METRICS = ["field_precision", "field_recall", "field_f1"]

# Spec 2.1, "Example usage".
SPEC_GROUND_TRUTH = {
    "invoice_number": "INV-2024-001",
    "date": "2024-03-15",
    "total": "$150.00",
    "vendor": "Acme Corp",
}
SPEC_EXTRACTED = {
    "invoice_number": "INV-2024-001",
    "date": "2024-03-15",
    "total": "$15O.OO",  # Error: O instead of 0
    "customer": "John Doe",  # Extra field
}


def field_results(expected, extracted, field_match=None, names=FIELD_METRICS):
    structured = Structured(expected_fields=expected, extracted_fields=extracted, field_match=field_match or {})
    return score("", "", names, structured=structured)


# -- the spec's worked example --------------------------------------------------------------


def test_spec_example_field_f1():
    results = field_results(SPEC_GROUND_TRUTH, SPEC_EXTRACTED)
    # "field_precision": 0.5 (2 correct out of 4 extracted), "field_recall": 0.5 (2 of 4), "field_f1": 0.5
    assert results["field_precision"].value == 0.5
    assert results["field_recall"].value == 0.5
    assert results["field_f1"].value == 0.5
    details = results["field_f1"].details
    assert details["correct_fields"] == ["invoice_number", "date"]
    assert details["missing_fields"] == ["vendor"]
    assert details["incorrect_fields"] == ["total"]
    assert details["extra_fields"] == ["customer"]
    assert details["mismatches"] == {"total": {"expected": "$150.00", "extracted": "$15O.OO", "match": "casefold"}}
    assert results["field_f1"].counts == {"correct": 2, "extracted": 4, "expected": 4}


def test_spec_example_through_the_plain_function():
    scores = metrics.field_scores(SPEC_GROUND_TRUTH, SPEC_EXTRACTED)
    assert (scores.precision, scores.recall, scores.f1) == (0.5, 0.5, 0.5)
    assert (scores.correct, scores.missing, scores.incorrect, scores.extra) == (
        ["invoice_number", "date"],
        ["vendor"],
        ["total"],
        ["customer"],
    )


def test_a_numeric_matcher_does_not_forgive_letter_o_for_zero():
    # "$15O.OO" is not a number, so even the numeric matcher keeps "total" incorrect.
    results = field_results(SPEC_GROUND_TRUTH, SPEC_EXTRACTED, {"total": "numeric"})
    assert results["field_f1"].details["incorrect_fields"] == ["total"]
    assert results["field_f1"].details["mismatches"]["total"]["match"] == {"type": "numeric", "decimal": "."}
    fixed = dict(SPEC_EXTRACTED, total="150")
    assert field_results(SPEC_GROUND_TRUTH, fixed, {"total": "numeric"})["field_f1"].details["correct_fields"] == [
        "invoice_number",
        "date",
        "total",
    ]


@pytest.mark.parametrize(
    "expected, extracted, decimal",
    [
        ("RM8.35", "8.35", "."),  # SROIE receipts: Malaysian ringgit
        ("USD 1,500.00", "1500", "."),
        ("12,50 EUR", "12,5", ","),
        ("Rs. 100", "100.00", "."),
        ("12,50 zł", "12,5", ","),
    ],
)
def test_a_numeric_matcher_reads_a_currency_written_in_letters(expected, extracted, decimal):
    matcher = metrics.parse_matcher({"type": "numeric", "decimal": decimal})
    assert matcher(expected, extracted) and matcher.unreadable(expected) is None
    assert not matcher("RM8.35", "8.53")
    assert matcher.unreadable("TOTAL") == f"not a number with decimal {decimal!r}"


# -- flattening -------------------------------------------------------------------------------

CASE_YAML = """
invoice_number: INV-7
total: 150.0
count: 3
paid: true
note: null
date: 2024-03-15
seller:
  name: Acme
  address:
    city: Berlin
items:
  - desc: Coffee
    total: 2.50
  - desc: Tea
    total: 1.8
tags: []
"""


def test_flatten_gives_dotted_key_paths_and_values_as_written():
    assert flatten(yaml.safe_load(CASE_YAML)) == {
        "invoice_number": "INV-7",
        "total": "150.0",  # not "150": no digits invented or dropped
        "count": "3",
        "paid": "true",
        "note": "",
        "date": "2024-03-15",  # YAML reads this as a date
        "seller.name": "Acme",
        "seller.address.city": "Berlin",
        "items.0.desc": "Coffee",
        "items.0.total": "2.5",  # YAML's float 2.50: the float has no trailing zero to keep
        "items.1.desc": "Tea",
        "items.1.total": "1.8",
        # an empty list has no leaves
    }


def test_flatten_keeps_document_order_and_key_paths_include_containers():
    fields = {"b": {"y": 1, "x": 2}, "a": [3, {"z": 4}]}
    assert list(flatten(fields)) == ["b.y", "b.x", "a.0", "a.1.z"]
    assert metrics.key_paths(fields) == {"b", "b.y", "b.x", "a", "a.0", "a.1", "a.1.z"}


def test_flatten_survives_nesting_deeper_than_the_recursion_limit():
    deep: dict = {"v": "leaf"}
    for _ in range(5000):
        deep = {"n": deep}
    assert flatten(deep) == {"n." * 5000 + "v": "leaf"}


@pytest.mark.parametrize("fields", ["text", 5, None])
def test_flatten_rejects_a_scalar(fields):
    with pytest.raises(TypeError, match="mapping or a list"):
        flatten(fields)


# -- matchers -----------------------------------------------------------------------------------

MATCHER_TABLE = [
    # (matcher spec, expected, extracted, equal)
    ("casefold", "ACME Corp", " acme corp ", True),
    ("casefold", "Straße", "STRASSE", True),  # full case folding: ß -> ss
    ("casefold", "caf\u00e9", "cafe\u0301", True),  # precomposed vs decomposed é
    ("casefold", "INV-001", "INV-0O1", False),
    ("casefold", "Acme Corp", "Acme  Corp", False),  # inner whitespace counts
    ("exact", " INV-001 ", "INV-001", True),
    ("exact", "Inv-001", "INV-001", False),
    ("numeric", "$1,500.00", "1500", True),
    ("numeric", "$1,500.00", "1500.0", True),
    ("numeric", "$1,500.00", "1,500", True),
    ("numeric", "$0.50", "0.5", True),
    ("numeric", "-$12.00", "\u221212", True),  # U+2212 minus sign
    ("numeric", "+5", "5", True),
    ("numeric", "12'345.50", "12345.5", True),  # Swiss apostrophe grouping
    ("numeric", "€ 1 500", "1500", True),  # spaces and the euro sign ignored
    ("numeric", "150.00", "150.01", False),
    ("numeric", "1,5", "15", False),  # "1,5" is no grouping by three: not a number with decimal "."
    ("numeric", "1,500.00", "1.500,00", False),  # "1.500,00" is not a number with decimal "."
    ("numeric", "1e3", "1000", False),  # no exponents
    ("numeric", "150.00", "15O.OO", False),  # OCR's letter O
    ("numeric", "N/A", "N/A", True),  # the same string is the same value, read or not (a warning says so)
    ("numeric", "N/A", "n/a", False),  # not the same string, and no number to compare
    ("numeric", "", "", True),
    ({"type": "numeric", "decimal": ","}, "1.500,00", "1500", True),
    ({"type": "numeric", "decimal": ","}, "€ 1.500,00", "1500,0", True),
    ({"type": "numeric", "decimal": ","}, "1,5", "1,50", True),
    ({"type": "numeric", "decimal": ","}, "1,500.00", "1.500,00", False),  # "1,500.00" is not European
    ({"type": "numeric", "decimal": ","}, "1,500.00", "1500", False),
    ({"type": "numeric", "decimal": ","}, "12'345,50", "12345,5", True),
    ({"type": "date", "formats": ["%d/%m/%Y"]}, "15/03/2024", "2024-03-15", True),
    ({"type": "date", "formats": ["%d/%m/%Y"]}, "15/03/2024", "2024-03-16", False),
    ({"type": "date", "formats": ["%d/%m/%Y"]}, "2024-03-15", " 15/03/2024 ", True),
    ({"type": "date", "formats": ["%d/%m/%Y"]}, "03/15/2024", "2024-03-15", False),  # month 15: no date
    ({"type": "date", "formats": ["%m/%d/%Y", "%d/%m/%Y"]}, "03/04/2024", "2024-03-04", True),  # first format wins
    ({"type": "date", "formats": ["%m/%d/%Y", "%d/%m/%Y"]}, "03/04/2024", "2024-04-03", False),
    ({"type": "date", "formats": ["%d.%m.%Y", "%d/%m/%Y"]}, "15.03.2024", "15/03/2024", True),
    ({"type": "date", "formats": ["%d.%m.%Y"]}, "15.03.2024", "15/03/2024", False),
    ({"type": "date", "formats": ["%B %d, %Y"]}, "March 15, 2024", "2024-03-15", True),
    ("date", "2024-03-15", "2024-03-15", True),  # ISO is always tried
    ("date", "15/03/2024", "15/03/2024", True),  # not an ISO date, but the same string (a warning says so)
    ("date", "15/03/2024", "15/3/2024", False),  # without formats neither is a date
    ("date", "not a date", "not a date", True),
    # fuzzy: CER = edits / expected characters, case-folded, whitespace collapsed
    ("fuzzy", "ABCDEFGHIJ", "ABCDEFGHIX", True),  # 1/10 = 0.1 <= 0.1 (default)
    ("fuzzy", "ABCDEFGHIJ", "ABCDEFGHXX", False),  # 2/10
    ("fuzzy", "Acme  Corp", "ACME CORP", True),  # 0 after folding and collapsing
    ({"type": "fuzzy", "max_cer": 0.1}, "A" * 30, "A" * 27 + "XYZ", True),  # 3/30, exactly 0.1
    ({"type": "fuzzy", "max_cer": 0.1}, "A" * 30, "A" * 26 + "WXYZ", False),  # 4/30
    ({"type": "fuzzy", "max_cer": 0.3}, "ABCDEFGHIJ", "ABCDEFGXYZ", True),  # 3/10 (0.1 * 3 != 0.3 in floats)
    ({"type": "fuzzy", "max_cer": 0.2}, "ABCDEFGHIJ", "ABCDEFGXYZ", False),
    ({"type": "fuzzy", "max_cer": 0}, "abc", "ABC", True),
    ({"type": "fuzzy", "max_cer": 0}, "abc", "abd", False),
    ({"type": "fuzzy", "max_cer": 0.5}, "", "", True),  # empty expected: CER 0 only for an empty value
    ({"type": "fuzzy", "max_cer": 0.5}, "", "x", False),
]


@pytest.mark.parametrize("spec, expected, extracted, equal", MATCHER_TABLE)
def test_matchers(spec, expected, extracted, equal):
    assert parse_matcher(spec)(expected, extracted) is equal
    # and the same through field scoring
    scores = field_scores({"k": expected}, {"k": extracted}, {"k": spec})
    assert scores.correct == (["k"] if equal else [])


def test_default_matcher_is_casefold():
    assert field_scores({"k": "ACME"}, {"k": "acme"}).correct == ["k"]
    assert field_scores({"k": "ACME"}, {"k": "acme"}, {"k": "exact"}).incorrect == ["k"]


@pytest.mark.parametrize(
    "spec, message",
    [
        ("numerc", "unknown matcher 'numerc'; did you mean 'numeric'?; known: exact, casefold, numeric, date, fuzzy"),
        ({"type": "numeric", "decmal": ","}, "unknown option(s) decmal for matcher 'numeric'; known: decimal"),
        ({"type": "exact", "max_cer": 0.1}, "unknown option(s) max_cer for matcher 'exact'; known: none"),
        ({"type": "numeric", "decimal": ";"}, "matcher 'numeric': decimal must be \".\" or \",\", not ';'"),
        ({"type": "date", "formats": "%d/%m/%Y"}, "matcher 'date': formats must be a list of strptime formats"),
        ({"type": "date", "formats": ["dd/mm/yyyy"]}, "matcher 'date': formats: 'dd/mm/yyyy' is not a strptime"),
        ({"type": "date", "formats": [5]}, "matcher 'date': formats: 5 is not a strptime format"),
        ({"type": "fuzzy", "max_cer": 1.5}, "matcher 'fuzzy': max_cer must be a number from 0 to 1, not 1.5"),
        ({"type": "fuzzy", "max_cer": "0.1"}, "matcher 'fuzzy': max_cer must be a number from 0 to 1, not '0.1'"),
        ({"type": "fuzzy", "max_cer": True}, "matcher 'fuzzy': max_cer must be a number from 0 to 1, not True"),
        ({"type": "fuzzy", "max_cer": float("nan")}, "matcher 'fuzzy': max_cer must be a number from 0 to 1, not nan"),
        ({"decimal": ","}, "a matcher mapping needs a 'type'"),
        (5, "a matcher is a name or a mapping with 'type', not int 5"),
        ({"type": ["numeric"]}, "unknown matcher ['numeric']"),
    ],
)
def test_parse_matcher_errors_are_precise(spec, message):
    with pytest.raises(ValueError) as error:
        parse_matcher(spec)
    assert str(error.value).startswith(message)


def test_field_match_errors_name_the_key_and_fail_at_construction():
    with pytest.raises(ValueError, match=r"^items\.0\.total: unknown matcher 'numerc'"):
        metrics.parse_field_match({"date": "date", "items.0.total": "numerc"})
    with pytest.raises(ValueError, match=r"^total: matcher 'fuzzy': max_cer"):
        Structured(expected_fields={"total": "1"}, field_match={"total": {"type": "fuzzy", "max_cer": 2}})
    with pytest.raises(ValueError, match="field_match must be a mapping"):
        metrics.parse_field_match(["numeric"])


def test_matchers_describe_themselves_with_defaults():
    assert parse_matcher("fuzzy").describe() == {"type": "fuzzy", "max_cer": 0.1}
    assert parse_matcher({"type": "date", "formats": ["%d/%m/%Y"]}).describe() == {
        "type": "date",
        "formats": ["%d/%m/%Y"],
    }
    assert parse_matcher("exact").describe() == "exact"


# -- nested fields -----------------------------------------------------------------------------


def test_nested_fields_score_key_path_by_key_path():
    expected = {
        "seller": {"name": "Acme GmbH", "vat": "DE123456789"},
        "items": [{"desc": "Coffee", "total": "2.50"}, {"desc": "Tea", "total": "1.80"}],
        "date": "15/03/2024",
    }
    extracted = {
        "seller": {"name": "ACME GMBH"},  # vat missing
        "items": [
            {"desc": "Coffee", "total": 2.5},  # a number, as a model would return it
            {"desc": "Tea", "total": "1.30"},  # wrong
            {"desc": "Cake", "total": "3.00"},  # not on the receipt
        ],
        "date": "2024-03-15",
        "currency": "EUR",
    }
    field_match = {
        "items.0.total": "numeric",
        "items.1.total": "numeric",
        "date": {"type": "date", "formats": ["%d/%m/%Y"]},
        "not.expected": "exact",
    }
    results = field_results(expected, extracted, field_match, FIELD_METRICS + ["field_completeness"])
    details = results["field_f1"].details
    # expected key paths: seller.name, seller.vat, items.0.desc, items.0.total, items.1.desc,
    # items.1.total, date = 7; extracted: seller.name, items.{0,1,2}.{desc,total}, date, currency = 9
    assert details["correct_fields"] == ["seller.name", "items.0.desc", "items.0.total", "items.1.desc", "date"]
    assert details["missing_fields"] == ["seller.vat"]
    assert details["incorrect_fields"] == ["items.1.total"]
    assert details["extra_fields"] == ["currency", "items.2.desc", "items.2.total"]
    assert details["mismatches"] == {
        "items.1.total": {"expected": "1.80", "extracted": "1.30", "match": {"type": "numeric", "decimal": "."}}
    }
    assert results["field_f1"].counts == {"correct": 5, "extracted": 9, "expected": 7}
    assert results["field_precision"].value == pytest.approx(5 / 9)
    assert results["field_recall"].value == pytest.approx(5 / 7)
    assert results["field_f1"].value == pytest.approx(2 * 5 / (9 + 7))  # 2PR/(P+R) = 2c/(x+e)
    # completeness from the expected key paths: all but seller.vat present
    assert results["field_completeness"].value == pytest.approx(6 / 7)
    assert results["field_completeness"].details["absent_fields"] == ["seller.vat"]


# -- empty and odd inputs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "expected, extracted, precision, recall, f1",
    [
        ({}, None, 1.0, 1.0, 1.0),  # nothing expected, nothing extracted: nothing wrong
        ({}, {}, 1.0, 1.0, 1.0),
        ({"a": "1"}, None, 0.0, 0.0, 0.0),  # None: nothing could be extracted
        ({"a": "1"}, {}, 0.0, 0.0, 0.0),
        ({"a": "1"}, "a string, not fields", 0.0, 0.0, 0.0),  # untrusted output of the wrong shape
        ({"a": "1"}, 42, 0.0, 0.0, 0.0),
        ({}, {"x": "1"}, 0.0, 0.0, 0.0),  # only extras
        ({"a": "1"}, {"a": "2"}, 0.0, 0.0, 0.0),
        ({"a": "1", "b": "2"}, {"a": "1"}, 1.0, 0.5, 2 / 3),
        ({"0": "x", "1": "y"}, ["x", "z"], 0.5, 0.5, 0.5),  # a top-level list has index keys
    ],
)
def test_edge_cases(expected, extracted, precision, recall, f1):
    results = field_results(expected, extracted)
    assert results["field_precision"].value == precision
    assert results["field_recall"].value == recall
    assert results["field_f1"].value == pytest.approx(f1)


def test_field_metrics_need_expected_fields():
    with pytest.raises(ValueError, match=r"field_f1 needs expected fields \(Structured.expected_fields\)"):
        score("", "", ["field_f1"], structured=Structured(extracted_fields={"a": "1"}))
    with pytest.raises(ValueError, match="field_precision needs expected fields"):
        score("", "", ["field_precision"])
    with pytest.raises(ValueError, match="field_completeness needs expected fields or a JSON Schema"):
        score("", "", ["field_completeness"], structured=Structured(extracted_fields={"a": "1"}))


# -- completeness -------------------------------------------------------------------------------

INVOICE_SCHEMA = {
    "type": "object",
    "required": ["invoice_number", "seller", "items"],
    "properties": {
        "invoice_number": {"type": "string"},
        "seller": {
            "type": "object",
            "required": ["name", "address"],
            "properties": {
                "name": {"type": "string"},
                "address": {"type": "object", "required": ["city"], "properties": {"city": {"type": "string"}}},
            },
        },
        "buyer": {"type": "object", "required": ["name"]},  # buyer itself is optional: not followed
        "items": {"type": "array", "items": {"type": "object", "required": ["total"]}},  # arrays not followed
    },
}


def test_schema_required_paths_recurse_into_required_objects():
    assert metrics.schema_required_paths(INVOICE_SCHEMA) == [
        "invoice_number",
        "seller",
        "seller.name",
        "seller.address",
        "seller.address.city",
        "items",
    ]


@pytest.mark.parametrize(
    "extracted, present",
    [
        (
            {"invoice_number": "1", "seller": {"name": "A", "address": {"city": "B"}}, "items": []},
            ["invoice_number", "seller", "seller.name", "seller.address", "seller.address.city", "items"],
        ),
        ({"invoice_number": None, "seller": {"name": "A"}}, ["invoice_number", "seller", "seller.name"]),
        ({"seller": "Acme"}, ["seller"]),  # present, but not an object: no seller.name
        (None, []),
        (["invoice_number"], []),
    ],
)
def test_completeness_against_a_schema(extracted, present):
    structured = Structured(schema=INVOICE_SCHEMA, extracted_fields=extracted, expected_fields={"ignored": "x"})
    result = score("", "", ["field_completeness"], structured=structured)["field_completeness"]
    assert result.details["required_from"] == "schema"  # the schema wins over expected fields
    assert result.details["present_fields"] == present
    assert result.counts == {"present": len(present), "required": 6}
    assert result.value == pytest.approx(len(present) / 6)


def test_completeness_with_nothing_required_is_complete():
    structured = Structured(schema={"type": "object"}, extracted_fields=None)
    assert score("", "", ["field_completeness"], structured=structured)["field_completeness"].value == 1.0


# -- registry contract --------------------------------------------------------------------------


def test_needs_of_every_metric():
    new = {
        "field_precision": "fields", "field_recall": "fields", "field_f1": "fields",
        "field_completeness": "fields|schema", "json_valid": "output", "schema_valid": "schema",
        "xml_valid": "output", "total_tokens": "output", "meaningful_tokens": "output", "token_density": "output",
        "compression_ratio": "output", "chars_per_token": "output", "estimated_cost_usd": "output",
        "task_success": "task", "task_quality": "task", "repetition": "output", "checks_passed": "checks",
        "odb_text_edit": "layout", "odb_formula_edit": "layout", "odb_table_edit": "layout",
        "odb_reading_order_edit": "layout", "odb_table_teds": "layout", "odb_table_teds_struct": "layout",
        "odb_formula_cdm": "layout",
    }  # fmt: skip
    for name, info in METRICS.items():
        assert info.needs == new.get(name, "text"), name
    assert METRICS["field_completeness"].accepts({"output", "schema"})
    assert METRICS["field_completeness"].accepts({"fields"})
    assert not METRICS["field_completeness"].accepts({"text", "output", "task"})
    assert not METRICS["cer"].accepts({"output", "fields"})
    assert Structured(expected_fields={"a": 1}, task={"type": "qa", "expected": "x"}).inputs() == {
        "output",
        "fields",
        "task",
    }


def test_text_metrics_ignore_structured_inputs():
    structured = Structured(expected_fields={"a": "1"}, schema={"type": "object"})
    with_structure = score("abc def", "abd def", ["cer", "wer", "token_f1"], structured=structured)
    without = score("abc def", "abd def", ["cer", "wer", "token_f1"])
    assert {n: (r.value, r.counts) for n, r in with_structure.items()} == {
        n: (r.value, r.counts) for n, r in without.items()
    }


def test_results_are_json_serialisable():
    results = field_results(
        SPEC_GROUND_TRUTH,
        {**SPEC_EXTRACTED, "nan": float("nan"), "when": None},
        names=FIELD_METRICS + ["field_completeness"],
    )
    for name, r in results.items():
        assert r.value == METRICS[name].from_counts(r.counts)
        json.dumps({"value": r.value, "counts": r.counts, "details": r.details}, allow_nan=False)


# -- properties -------------------------------------------------------------------------------

KEYS = ["a", "b", "c", "d", "e"]
VALUES = ["x", "X", " x", "y", "1"]
flat_fields = st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=5)


def spec_algorithm(extracted: dict, ground_truth: dict) -> tuple[list, list, list, list]:
    """Spec 2.1's calculate_field_extraction_f1, with casefold for lower()."""
    correct = [
        k
        for k in ground_truth
        if k in extracted and str(extracted[k]).strip().casefold() == str(ground_truth[k]).strip().casefold()
    ]
    missing = [k for k in ground_truth if k not in extracted]
    incorrect = [k for k in ground_truth if k in extracted and k not in correct]
    extra = sorted(k for k in extracted if k not in ground_truth)
    return correct, missing, incorrect, extra


@pytest.mark.slow
@PROPERTY
@given(expected=flat_fields, extracted=flat_fields)
def test_field_scores_match_the_spec_algorithm(expected, extracted):
    scores = field_scores(expected, extracted)
    correct, missing, incorrect, extra = spec_algorithm(extracted, expected)
    assert (scores.correct, scores.missing, scores.incorrect, scores.extra) == (correct, missing, incorrect, extra)
    for name in FIELD_METRICS:
        assert 0.0 <= getattr(scores, name.removeprefix("field_")) <= 1.0
    if expected and extracted:
        # the spec's formulas where they are defined
        assert scores.precision == len(correct) / len(extracted)
        assert scores.recall == len(correct) / len(expected)
        assert scores.f1 == pytest.approx(2 * len(correct) / (len(extracted) + len(expected)))


@pytest.mark.slow
@PROPERTY
@given(cases=st.lists(st.tuples(flat_fields, flat_fields), min_size=1, max_size=6))
def test_micro_average_is_the_pooled_formula(cases):
    totals: Counter = Counter()
    for expected, extracted in cases:
        totals.update(field_results(expected, extracted)["field_f1"].counts)
    correct = sum(len(spec_algorithm(x, e)[0]) for e, x in cases)
    extracted = sum(len(x) for _, x in cases)
    expected = sum(len(e) for e, _ in cases)
    assert dict(totals) == {"correct": correct, "extracted": extracted, "expected": expected}
    if extracted and expected:
        assert pooled("field_precision", totals) == correct / extracted
        assert pooled("field_recall", totals) == correct / expected
        assert pooled("field_f1", totals) == pytest.approx(2 * correct / (extracted + expected))
    for name in FIELD_METRICS:
        assert math.isfinite(pooled(name, totals))


@PROPERTY
@given(text=st.text(max_size=12))
def test_casefold_matcher_ignores_surrounding_space_and_canonical_decomposition(text):
    assert parse_matcher("casefold")(text, " " + unicodedata.normalize("NFD", text) + "\n")


def test_a_value_the_matcher_cannot_read_is_a_warning_naming_field_value_and_format():
    field_scores = metrics.field_scores
    # issue 14: an expected 12/28/2017 with %d/%m/%Y counted a correct 12/28/2017 as wrong, silently
    match = {"date": {"type": "date", "formats": ["%d/%m/%Y"]}, "total": "numeric"}
    scores = field_scores({"date": "12/28/2017", "total": "9.00"}, {"date": "12/28/2017", "total": "nine"}, match)
    assert (scores.correct, scores.incorrect) == (["date"], ["total"])
    assert scores.warnings == [
        "field 'date': expected value '12/28/2017' is not a date in the formats %d/%m/%Y, %Y-%m-%d",
        "field 'total': extracted value 'nine' is not a number with decimal '.'",
    ]
    # values that read: no warning
    assert field_scores({"date": "28/12/2017"}, {"date": "2017-12-28"}, match).warnings == []
