"""CDM equals OmniDocBench's own CDM on every formula pair of tests/data/omnidocbench/cdm_pairs.json.

The expected values are OmniDocBench's (pichiu/OmniDocBench at 7bd6c2e, its CDM.evaluate called as cal_metric.py
calls it, with ImageMagick 6 rasterising), made by tests/data/omnidocbench/make_cdm_expected.py. The pairs: the
olmOCR-Bench sample's math facts against the olmOCR pipeline's Markdown, CDM's own published examples, hand-made
hard cases, and the display-formula pairs of the end-to-end fixture. The slow tests run xelatex, Ghostscript and
Node.js for real (Debian: texlive-xetex texlive-lang-cjk texlive-lang-chinese ghostscript nodejs).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_ocr.metrics.omnidocbench import cdm as cdm_module
from pytest_ocr.metrics.omnidocbench.cdm import CdmResult, CdmToolMissing, cdm, strip_delimiters

DATA = Path(__file__).parent / "data" / "omnidocbench"
PAIRS = json.loads((DATA / "cdm_pairs.json").read_text(encoding="utf-8"))
EXPECTED = {row["id"]: row for row in json.loads((DATA / "cdm_expected.json").read_text(encoding="utf-8"))["results"]}
# values CDM's README publishes for its figure (metrics/cdm/assets/demo/cdm_demo.png)
PUBLISHED = {"cdm_demo_case1": 1.0, "cdm_demo_case2": 0.933, "cdm_demo_case3": 0.7}


def test_the_fixture_holds_every_pair_and_the_published_values():
    assert [pair["id"] for pair in PAIRS] == list(EXPECTED)
    assert len(PAIRS) >= 40
    for name, value in PUBLISHED.items():
        assert EXPECTED[name]["F1_score"] == value


@pytest.mark.slow
@pytest.mark.parametrize("pair", PAIRS, ids=[pair["id"] for pair in PAIRS])
def test_cdm_equals_omnidocbench(pair):
    expected = EXPECTED[pair["id"]]
    assert strip_delimiters(pair["gt"], pair["pred"]) == (expected["gt_stripped"], expected["pred_stripped"])
    result = cdm(pair["gt"], pair["pred"])
    assert (result.f1, result.recall, result.precision) == (
        expected["F1_score"],
        expected["recall"],
        expected["precision"],
    )
    if expected["F1_score"] > 0:
        assert result.failure is None
        assert (result.gt_tokens, result.pred_tokens) == (expected["gt_boxes"], expected["pred_boxes"])
        assert result.f1 == round(2 * result.matched / (result.gt_tokens + result.pred_tokens), 3)


@pytest.mark.slow
def test_a_pair_scored_zero_without_comparison_says_why():
    assert cdm("a^{2}+b^{2}=c^{2}", "") == CdmResult(0, 0, 0, 0, 0, 0, failure="the prediction rendered no token")
    unbalanced = cdm(r"\frac{a}{b}", r"$$\frac{a}{$$")
    assert (unbalanced.f1, unbalanced.failure) == (0, "xelatex made no PDF of the formula")


def test_a_missing_tool_is_one_message_naming_the_debian_packages(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    cdm_module._tools.cache_clear()
    try:
        with pytest.raises(CdmToolMissing) as caught:
            cdm("x", "x")
    finally:
        cdm_module._tools.cache_clear()
    message = str(caught.value)
    assert "missing: xelatex, gs, node, kpsewhich" in message
    assert "apt-get install --no-install-recommends texlive-xetex texlive-lang-cjk texlive-lang-chinese" in message
    assert message.count("\n") == 0


def test_the_delimiters_are_stripped_as_cal_metric_strips_them():
    assert strip_delimiters("$$x$$", "```latex\n$y$\n```") == ("x", "y")
    assert strip_delimiters("$x$", r"\[ y \]") == ("x", r"\[ y \]")
    assert strip_delimiters("$ $", "$$$") == ("", "")


@pytest.mark.slow
def test_a_formula_cannot_read_a_file_by_its_path(tmp_path):
    # \begin{foo} makes CDM's tokenizer give up, so xelatex gets the \input as written; OmniDocBench's xelatex
    # typesets the file's \Omega (one token each side: CDM 1.0), here TeX refuses the absolute path
    secret = tmp_path / "secret.tex"
    secret.write_text("\\Omega", encoding="utf-8")
    formula = rf"\input{{{secret}}} \begin{{foo}}"
    result = cdm(formula, formula)
    assert (result.f1, result.failure) == (0, "xelatex made no PDF of the formula")
