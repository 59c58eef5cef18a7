"""The terminal summary: columns aligned by display width (CJK), its shapes
(--ocr-summary), and engine performance."""

from __future__ import annotations

import json
import re

import pytest
from conftest import load_report, run
from helpers.terminal import display_width

from pytest_ocr.report.terminal import table

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow


def test_the_chinese_table_of_the_dataset_evaluator_spec_lines_up():
    # dataset-evaluator-data-model.md, "Table Format (Console Display)"
    metrics = table(
        ["完全准确率", "归一化编辑距离", "编辑距离相似度"], [("OCR评估", ["0.925", "0.045", "0.955"])], "指标"
    )
    counts = table(["总样本数", "评估数", "过滤数", "跳过数"], [("样本统计", ["1000", "980", "15", "5"])], "统计信息")
    for lines in (metrics, counts):
        assert len({display_width(line) for line in lines}) == 1  # every row as wide as the header
        # each right-aligned value column ends in the same terminal column on both rows
        header_ends, row_ends = (
            [display_width(line[: m.end()]) for m in re.finditer(r"\S+", line)][1:] for line in lines
        )
        assert header_ends == row_ends
    assert metrics[1].startswith("OCR评估  ")  # the label column is 4 columns ("指标") + padding to "OCR评估" (7)
    assert display_width("OCR评估") == 7 and metrics[0].startswith("指标     ")


def test_summary_shapes_and_performance(suite):
    suite.image("a.tif", "hello world")
    suite.image("b.tif", "hello wrld")
    suite.write(
        "s.ocr.yaml",
        """cases:
  - {id: a, image: a.tif, expected: {text: hello world}}
  - {id: b, image: b.tif, expected: {text: hello world}}
""",
    )
    table_out = run(suite, "--ocr-report", "report.json").stdout.str()
    report = load_report(suite)
    times = sorted(r["inference_s"] for r in report["results"])
    performance = report["summary"]["fake"]["performance"]
    assert performance["pages"] == 2 and performance["mean_s"] == sum(times) / 2
    assert performance["pages_per_s"] == 2 / sum(times) and performance["p95_s"] == times[-1]
    assert "pages/s" in table_out and "time/page p95" in table_out

    out = run(suite, "--ocr-summary", "json").stdout.str()
    document = json.loads(out[out.index("{") : out.rindex("}") + 1])
    assert document["summary"]["fake"]["cases"] == 2 and document["gates"] == []
    assert document["summary"]["fake"]["metrics"]["cer"]["macro"] == (0 + 1 / 11) / 2

    out = run(suite, "--ocr-summary", "none").stdout.str()
    assert "OCR summary" not in out and "2 passed" in out
