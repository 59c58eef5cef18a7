"""JSON/XML validity and JSON Schema compliance of raw engine output (spec section 2.2).

Schema errors are cross-checked against jsonschema called directly; XML hazards
against the standard library parser, which expands what defusedxml refuses.
"""

from __future__ import annotations

import json
import time
import xml.etree.ElementTree as StdlibElementTree

import jsonschema
import pytest

from pytest_ocr import metrics
from pytest_ocr.metrics import METRICS, Structured, parse_json_output, parse_xml_output, score

# Spec 2.2, "Example usage".
SPEC_SCHEMA = {
    "type": "object",
    "required": ["invoice_number", "date", "total"],
    "properties": {
        "invoice_number": {"type": "string"},
        "date": {"type": "string"},
        "total": {"type": "string"},
    },
}
SPEC_OCR_JSON = '{"invoice_number": "INV-001", "date": "2024-03-15", "total": "$150.00"}'


def test_spec_example_is_valid_compliant_and_complete():
    parsed = parse_json_output(SPEC_OCR_JSON)
    structured = Structured(schema=SPEC_SCHEMA, extracted_fields=parsed.value)
    results = score("", SPEC_OCR_JSON, ["json_valid", "schema_valid", "field_completeness"], structured=structured)
    # "is_valid": True, "is_schema_compliant": True, "parsing_error": None, "validation_errors": [],
    # "completeness_score": 1.0, "field_count": 3
    assert results["json_valid"].value == 1.0
    assert results["json_valid"].details["parsing_error"] is None
    assert results["schema_valid"].value == 1.0
    assert results["schema_valid"].details["validation_errors"] == []
    assert results["field_completeness"].value == 1.0
    assert len(parsed.value) == 3


# -- parsing JSON out of raw output ------------------------------------------------------------

VALUE = {"total": "$150.00", "items": [1, 2]}
BODY = json.dumps(VALUE, indent=2)


@pytest.mark.parametrize(
    "text, fenced",
    [
        (BODY, False),
        ("\n  " + BODY + "\n\n", False),
        ("```json\n" + BODY + "\n```", True),
        ("```JSON\n" + BODY + "\n```\n", True),
        ("```\n" + BODY + "\n```", True),
        ("Here is the extracted data:\n\n```json\n" + BODY + "\n```\n\nLet me know if you need more.", True),
        ("```python\nprint('hi')\n```\nand the data:\n```json\n" + BODY + "\n```", True),  # first json fence
        ("  ```json  \n" + BODY + "\n  ```", True),  # indented fence
        ("```json\n" + BODY, True),  # truncated: the fence never closes
    ],
)
def test_json_is_found_plain_or_fenced(text, fenced):
    output = parse_json_output(text)
    assert (output.value, output.fenced, output.error) == (VALUE, fenced, None)
    result = score("", text, ["json_valid"])["json_valid"]
    assert (result.value, result.details["fenced"], result.counts) == (1.0, fenced, {"valid": 1, "outputs": 1})


def test_backticks_inside_valid_json_are_just_text():
    text = '{"note": "```json\\n{} \\n```"}'
    assert parse_json_output(text) == metrics.JsonOutput({"note": "```json\n{} \n```"}, False, None)


def test_parse_errors_give_line_and_column_in_the_raw_output():
    # line 1 "Sure:", 2 the fence, 3 '{"a": 1,', 4 ' "b": }': the value is missing at column 7
    text = 'Sure:\n```json\n{"a": 1,\n "b": }\n```'
    output = parse_json_output(text)
    assert output.valid is False and output.fenced is True
    assert output.error == "Expecting value: line 4 column 7"
    with pytest.raises(json.JSONDecodeError) as direct:
        json.loads('{"a": 1,\n "b": }\n')
    assert (direct.value.msg, direct.value.lineno + 2, direct.value.colno) == ("Expecting value", 4, 7)


@pytest.mark.parametrize(
    "text, error",
    [
        ("", "Expecting value: line 1 column 1"),
        ("INVOICE 42\nTotal: 5", "Expecting value: line 1 column 1"),
        ('{"a": 1,}', None),  # the message differs between Python versions: as json reports it
        ("{'a': 1}", "Expecting property name enclosed in double quotes: line 1 column 2"),
        ('{"a": 1} trailing', "Extra data: line 1 column 10"),
        ('{"a": NaN}', "NaN is not valid JSON"),  # Python reads it; JSON does not have it
        ("[Infinity]", "Infinity is not valid JSON"),
        ("[-Infinity]", "-Infinity is not valid JSON"),
        ("1" * 5000, "Exceeds the limit (4300 digits) for integer string conversion"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply to parse"),
    ],
)
def test_invalid_json_is_reported_not_raised(text, error):
    if error is None:
        with pytest.raises(json.JSONDecodeError) as direct:
            json.loads(text)
        error = f"{direct.value.msg}: line {direct.value.lineno} column {direct.value.colno}"
    output = parse_json_output(text)
    assert output.valid is False and output.value is None
    assert output.error.startswith(error)
    result = score("", text, ["json_valid"])["json_valid"]
    assert result.value == 0.0 and result.details["parsing_error"] == output.error
    json.dumps(result.details, allow_nan=False)


@pytest.mark.slow
def test_huge_json_parses_and_scores():
    value = {f"field_{i}": f"value {i}" for i in range(200_000)}
    text = json.dumps(value)
    start = time.perf_counter()
    structured = Structured(
        expected_fields={"field_7": "VALUE 7", "field_8": "nope"},
        extracted_fields=value,
        schema={"type": "object", "additionalProperties": {"type": "string"}},
    )
    results = score("", text, ["json_valid", "schema_valid", "field_recall"], structured=structured)
    assert time.perf_counter() - start < 30
    assert results["json_valid"].value == 1.0 and results["schema_valid"].value == 1.0
    assert results["field_recall"].value == 0.5
    assert len(results["field_recall"].details["extra_fields"]) == 200_000 - 2


# -- JSON Schema ---------------------------------------------------------------------------------

RECEIPT_SCHEMA = {
    "type": "object",
    "required": ["seller", "items", "total"],
    "properties": {
        "seller": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["desc", "total"],
                "properties": {"desc": {"type": "string"}, "total": {"type": "number", "minimum": 0}},
            },
        },
        "total": {"type": "number"},
        "a/b": {"type": "string"},
        "t~x": {"type": "string"},
    },
}
RECEIPT = {
    "seller": {},
    "items": [{"desc": "Coffee", "total": "2.50"}, {"total": -1}],
    "a/b": 1,
    "t~x": 2,
}


def test_schema_errors_are_every_error_jsonschema_finds_with_pointers():
    text = "```json\n" + json.dumps(RECEIPT) + "\n```"
    result = score("", text, ["schema_valid"], structured=Structured(schema=RECEIPT_SCHEMA))["schema_valid"]
    assert result.value == 0.0 and result.counts == {"valid": 0, "outputs": 1}
    errors = result.details["validation_errors"]
    # Hand-written: where each violation is (RFC 6901: "/" in a key is ~1, "~" is ~0), sorted.
    assert [(e["pointer"], e["keyword"]) for e in errors] == [
        ("", "required"),  # total missing
        ("/a~1b", "type"),
        ("/items/0/total", "type"),  # "2.50" is a string
        ("/items/1", "required"),  # desc missing
        ("/items/1/total", "minimum"),
        ("/seller", "required"),  # name missing
        ("/t~0x", "type"),
    ]
    direct = list(jsonschema.Draft202012Validator(RECEIPT_SCHEMA).iter_errors(RECEIPT))
    assert sorted(e["message"] for e in errors) == sorted(e.message for e in direct)
    assert sorted((e["message"], e["keyword"]) for e in errors) == sorted((e.message, e.validator) for e in direct)
    assert result.details["parsing_error"] is None and result.details["fenced"] is True
    json.dumps(result.details, allow_nan=False)


def test_the_schemas_draft_decides_the_validator():
    # "dependencies" is a draft-07 keyword; Draft 2020-12 (the default) ignores it.
    schema = {"dependencies": {"total": ["currency"]}}
    text = '{"total": 5}'
    assert jsonschema.Draft202012Validator(schema).is_valid({"total": 5})
    assert score("", text, ["schema_valid"], structured=Structured(schema=schema))["schema_valid"].value == 1.0
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", **schema}
    result = score("", text, ["schema_valid"], structured=Structured(schema=draft7))["schema_valid"]
    assert result.value == 0.0
    assert [e["message"] for e in result.details["validation_errors"]] == [
        e.message for e in jsonschema.Draft7Validator(draft7).iter_errors({"total": 5})
    ]


def test_invalid_json_is_not_schema_valid_for_that_reason():
    result = score("", "{total: 5}", ["schema_valid"], structured=Structured(schema=SPEC_SCHEMA))["schema_valid"]
    assert result.value == 0.0
    assert result.details["parsing_error"] == "Expecting property name enclosed in double quotes: line 1 column 2"
    assert result.details["validation_errors"] == []


def test_nesting_too_deep_to_validate_is_an_error_not_a_crash():
    depth = 600  # parses (json allows ~1000 levels) but jsonschema recurses several frames per level
    text = "[" * depth + "]" * depth
    assert parse_json_output(text).valid
    schema = {"type": "array", "items": {"$ref": "#"}}
    with pytest.raises(RecursionError):
        list(jsonschema.Draft202012Validator(schema).iter_errors(json.loads(text)))
    result = score("", text, ["schema_valid"], structured=Structured(schema=schema))["schema_valid"]
    assert result.value == 0.0
    assert result.details["validation_errors"] == [
        {"pointer": "", "keyword": None, "message": "nested too deeply to validate"}
    ]


def test_check_schema_lists_every_problem_of_the_schema_itself():
    bad = {"type": "strin", "properties": {"total": {"type": 5}}, "required": "total"}
    problems = metrics.check_schema(bad)
    meta = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA)
    direct = list(meta.iter_errors(bad))
    assert len(problems) == len(direct) >= 3
    assert sorted(p.split(": ", 1)[1] for p in problems) == sorted(e.message for e in direct)
    assert [p.split(": ", 1)[0] for p in problems] == ["/properties/total/type", "/required", "/type"]
    assert metrics.check_schema(SPEC_SCHEMA) == []
    assert metrics.check_schema(True) == []
    assert metrics.check_schema(["type", "object"]) == ["a JSON Schema is a mapping (or true/false), not list"]
    assert metrics.check_schema({"$schema": "https://example.com/my-draft"}) == [
        "unknown $schema 'https://example.com/my-draft': not a JSON Schema draft jsonschema knows"
    ]
    with pytest.raises(ValueError, match=r"^invalid JSON Schema: /type: 'strin' is not valid"):
        metrics.schema_errors({}, {"type": "strin"})


# -- XML -----------------------------------------------------------------------------------------

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<lolz>&lol9;</lolz>"""


def test_billion_laughs_is_refused_not_expanded():
    # The same construction two levels deep, which the standard library does expand:
    small = BILLION_LAUGHS.split("<!ENTITY lol3")[0] + "]>\n<lolz>&lol2;</lolz>"
    assert StdlibElementTree.fromstring(small).text == "lol" * 100
    start = time.perf_counter()
    output = parse_xml_output(BILLION_LAUGHS)
    assert time.perf_counter() - start < 1
    assert output.valid is False
    assert output.error.startswith("entity declaration 'lol' refused (defusedxml")
    result = score("", "```xml\n" + BILLION_LAUGHS + "\n```", ["xml_valid"])["xml_valid"]
    assert result.value == 0.0 and result.details["fenced"] is True
    assert result.details["parsing_error"] == output.error


def test_external_entities_are_refused():
    output = parse_xml_output('<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>')
    assert output.valid is False and "entity declaration 'x' refused" in output.error


@pytest.mark.parametrize(
    "text, fenced",
    [
        ("<invoice><total>150.00</total></invoice>", False),
        ('\n\n<?xml version="1.0" encoding="UTF-8"?>\n<invoice total="150.00"/>\n', False),
        ("Here you go:\n```xml\n<invoice>\n  <total>150.00</total>\n</invoice>\n```", True),
        ("```\n<a>é</a>\n```", True),
    ],
)
def test_well_formed_xml(text, fenced):
    assert parse_xml_output(text) == metrics.XmlOutput(fenced, None)
    assert score("", text, ["xml_valid"])["xml_valid"].value == 1.0


@pytest.mark.parametrize(
    "text, error",
    [
        ("<a><b></a>", "mismatched tag: line 1 column 9"),  # expat: 0-based column 8
        ("Sure!\n```xml\n<a>\n<b>\n</a>\n```", "mismatched tag: line 5 column 3"),
        ("INVOICE 42", "syntax error: line 1 column 1"),
        ("", "no element found: line 1 column 1"),
        ("<a/><b/>", "junk after document element: line 1 column 5"),
    ],
)
def test_malformed_xml(text, error):
    output = parse_xml_output(text)
    assert output.valid is False and output.error == error
    with pytest.raises(StdlibElementTree.ParseError):
        StdlibElementTree.fromstring(text.split("```xml\n")[-1].split("```")[0].lstrip())


# -- registry ------------------------------------------------------------------------------------


def test_structure_metrics_need_only_the_output_except_schema_valid():
    assert score("", "{}", ["json_valid", "xml_valid"])["json_valid"].value == 1.0
    with pytest.raises(ValueError, match=r"schema_valid needs a JSON Schema \(Structured.schema\)"):
        score("", "{}", ["schema_valid"])
    for name in ("json_valid", "schema_valid", "xml_valid"):
        assert METRICS[name].better == "higher"


def test_validity_rate_pools_over_outputs():
    outputs = ['{"a": 1}', "nope", "```json\n[]\n```", "{"]
    totals = {"valid": 0, "outputs": 0}
    for text in outputs:
        for key, count in score("", text, ["json_valid"])["json_valid"].counts.items():
            totals[key] += count
    assert metrics.pooled("json_valid", totals) == 2 / 4
