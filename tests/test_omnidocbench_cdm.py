"""CDM equals OmniDocBench's own CDM on every formula pair of tests/data/omnidocbench/cdm_pairs.json.

The expected values are OmniDocBench's (pichiu/OmniDocBench at 7bd6c2e, its CDM.evaluate called as cal_metric.py
calls it, with ImageMagick 6 rasterising), made by tests/data/omnidocbench/make_cdm_expected.py. The pairs: the
olmOCR-Bench sample's math facts against the olmOCR pipeline's Markdown, CDM's own published examples, hand-made
hard cases, and the display-formula pairs of the end-to-end fixture. The slow tests run xelatex, Ghostscript and
Node.js for real (Debian: texlive-xetex texlive-lang-cjk texlive-lang-chinese ghostscript nodejs).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import bs4  # noqa: F401  (once per process, as test_omnidocbench_suite.py says)
import pytest
import scipy.optimize  # noqa: F401  (once per process: pytester's in-process sessions forget the modules they import)
from conftest import load_report, run

from pytest_ocr.metrics.omnidocbench import cdm as cdm_module
from pytest_ocr.metrics.omnidocbench.cdm import CdmResult, CdmToolFailed, CdmToolMissing, cdm, strip_delimiters
from pytest_ocr.metrics.omnidocbench.overall import Overall, overall, pandas_round3
from pytest_ocr.report.markdown import run_markdown
from pytest_ocr.report.numbers import omnidocbench_note, omnidocbench_rows
from pytest_ocr.run.aggregate import MetricAggregate, Summary, omnidocbench_overall
from pytest_ocr.run.record import RunRecord

DATA = Path(__file__).parent / "data" / "omnidocbench"
PAIRS = json.loads((DATA / "cdm_pairs.json").read_text(encoding="utf-8"))
EXPECTED = {row["id"]: row for row in json.loads((DATA / "cdm_expected.json").read_text(encoding="utf-8"))["results"]}
# values CDM's README publishes for its figure (metrics/cdm/assets/demo/cdm_demo.png)
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uff00-\uffef]")
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
    # characters without a glyph here (CJK: the template's font is not installed) are named, no others
    gt, pred = strip_delimiters(pair["gt"], pair["pred"])
    assert set(result.missing_glyphs) == set(CJK.findall(gt + pred)), pair["id"]
    if expected["F1_score"] > 0:
        assert result.failure is None
        assert (result.gt_tokens, result.pred_tokens) == (expected["gt_boxes"], expected["pred_boxes"])
        assert result.f1 == round(2 * result.matched / (result.gt_tokens + result.pred_tokens), 3)


@pytest.mark.slow
def test_a_pair_scored_zero_without_comparison_says_why():
    assert cdm("a^{2}+b^{2}=c^{2}", "") == CdmResult(0, 0, 0, 0, 0, 0, failure="the prediction rendered no token")
    unbalanced = cdm(r"\frac{a}{b}", r"$$\frac{a}{$$")
    assert (unbalanced.f1, unbalanced.failure) == (0, "xelatex made no PDF of the formula")


@pytest.mark.slow
def test_an_item_names_the_characters_that_rendered_as_nothing(suite):
    """A CJK formula scores as OmniDocBench scores it on a machine without its template's CJK font, and the item
    warns that its value depends on the fonts installed."""
    shutil.copy(DATA / "images" / "made_formulas.png", suite.path / "cjk.png")
    formula = {"category_type": "equation_isolated", "poly": [10, 10, 300, 10, 300, 60, 10, 60], "ignore": False}
    formula |= {"order": 1, "anno_id": 0, "latex": r"v = \text{速度}", "attribute": {"formula_type": "print"}}
    page_info = {"image_path": "cjk.png", "page_attribute": {"language": "simplified_chinese"}}
    many = "".join(chr(0x4E00 + i) for i in range(50))  # 50 characters: the warning quotes the first 30
    long = formula | {"poly": [10, 80, 300, 80, 300, 130, 10, 130], "order": 2, "anno_id": 1}
    long["latex"] = f"\\text{{{many}}}"
    layout = [{"layout_dets": [formula, long], "page_info": page_info, "extra": {"relation": []}}]
    (suite.path / "layout.json").write_text(json.dumps(layout, ensure_ascii=False), encoding="utf-8")
    (suite.path / "outputs").mkdir()
    output = f"$$v = \\text{{速度}} + 1$$\n\n$$\\text{{{many}}}$$\n"
    (suite.path / "outputs" / "cjk.md").write_text(output, encoding="utf-8")
    suite.write(
        "page.ocr.yaml",
        "engines:\n  vlm: {type: omnidocbench-outputs, path: outputs}\n"
        "id: page\nimage: cjk.png\nengine: vlm\nexpected: {layout_file: layout.json}\nmetrics: [odb_formula_cdm]\n",
    )
    assert run(suite, "--ocr-report", "report.json").ret == 0
    (result,) = load_report(suite)["results"]
    assert result["details"]["odb_formula_cdm"]["scores"][0] == EXPECTED["hand_cjk_text"]["F1_score"] == 0.667
    why = "which rendered as nothing; it scores otherwise where the fonts of OmniDocBench's template are installed"
    assert (
        result["warnings"]
        == [
            "CDM scored display formula 2 0: the ground truth rendered no token",  # nothing of it rendered
            f"CDM of display formula 1: no font here has '度速', {why} (its CJK font: Source Han Sans SC)",
            f"CDM of display formula 2: no font here has '{many[:30]}...', {why} (its CJK font: Source Han Sans SC)",
        ]
    )


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
    # \begin{foo} makes CDM's tokenizer give up, so xelatex would get the \input as written; OmniDocBench's
    # xelatex typesets the file's \Omega (one token each side: CDM 1.0), here the formula is not typeset
    secret = tmp_path / "secret.tex"
    secret.write_text("\\Omega", encoding="utf-8")
    formula = rf"\input{{{secret}}} \begin{{foo}}"
    result = cdm(formula, formula)
    why = "uses \\input, which CDM does not typeset (it typesets math and text commands only)"
    assert (result.f1, result.failure) == (0, f"the ground-truth formula {why}")


# -- odb_formula_cdm: tool problems, the metric on the oracle pages, the Overall -----------------------------------


@pytest.fixture
def tools_found_again():
    """_tools() remembers the tools it found: found again under the PATH a test sets, and after it."""
    cdm_module._tools.cache_clear()
    yield
    cdm_module._tools.cache_clear()


def _crashing_node(tmp_path: Path, monkeypatch) -> None:
    """A PATH whose node aborts as Node does on a fatal error (the shell's 128 + SIGABRT), the real tools after it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    node = bin_dir / "node"
    node.write_text("#!/bin/sh\nexit 134\n", encoding="utf-8")
    node.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def test_a_crashing_tool_is_an_error_naming_the_tool_and_formula_not_a_zero(tmp_path, monkeypatch, tools_found_again):
    _crashing_node(tmp_path, monkeypatch)
    with pytest.raises(CdmToolFailed) as caught:
        cdm("$$x^{2}$$", "x^{2}")
    assert str(caught.value) == "CDM: node crashed (exit status 134: SIGABRT) on the ground-truth formula 'x^{2}'"


def test_a_tool_past_its_timeout_is_an_error_not_a_zero(tools_found_again):
    with pytest.raises(CdmToolFailed, match=r"^CDM: node took more than 1e-06 s on the ground-truth formula 'a\+b'$"):
        cdm("a+b", "a+b", timeout=1e-6)


def _formula_case(suite, image: str) -> None:
    shutil.copy(DATA / "images" / image, suite.path / image)
    suite.write(
        "page.ocr.yaml",
        f"engines:\n  handmade: {{type: omnidocbench-outputs, path: {json.dumps(str(DATA / 'handmade'))}}}\n"
        f"id: page\nimage: {image}\nengine: handmade\n"
        f"expected: {{layout_file: {json.dumps(str(DATA / 'pages.json'))}}}\n"
        "metrics: [odb_formula_cdm]\n",
    )


def test_an_item_whose_cdm_tool_is_missing_or_crashes_is_an_error(suite, tmp_path, monkeypatch, tools_found_again):
    _formula_case(suite, "made_formulas.png")
    _crashing_node(tmp_path, monkeypatch)
    assert run(suite, "--ocr-report", "report.json").ret == 1
    (result,) = load_report(suite)["results"]
    assert result["outcome"] == "error"
    assert "CDM: node crashed (exit status 134: SIGABRT) on the ground-truth formula " in result["error"]
    cdm_module._tools.cache_clear()
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    assert run(suite, "--ocr-report", "report.json").ret == 1
    (result,) = load_report(suite)["results"]
    assert result["outcome"] == "error"
    assert (
        "CDM (OmniDocBench's formula metric) needs xelatex with xeCJK, Ghostscript and Node.js; missing: "
        in (result["error"])
    )
    assert f"apt-get install --no-install-recommends {cdm_module.DEBIAN_PACKAGES}" in result["error"]


END2END = json.loads((DATA / "cdm_end2end_expected.json").read_text(encoding="utf-8"))


def test_the_overall_is_the_notebooks_on_omnidocbench_own_results():
    """overall() on the values of OmniDocBench's metric_result.json equals the row its notebook computed from it."""
    for system, expected in END2END["systems"].items():
        teds = expected["table_page"].get("TEDS", {}).get("ALL")
        ours = overall(
            expected["text_block_all"]["Edit_dist"]["ALL_page_avg"],
            expected["display_formula"]["page"]["CDM"]["ALL"],
            teds,
        )
        row = expected["notebook"]
        assert (ours.text_edit, ours.cdm, ours.teds) == (
            row["text_block_Edit_dist"],
            row["display_formula_CDM"],
            row["table_TEDS"],
        ), system
        assert ours.overall == pytest.approx(row["overall"], abs=1e-9), system
    # the notebook rounds as numpy does, half to even on x * 1000: not as Python's round() does
    assert (pandas_round3(0.0785), round(0.0785, 3)) == (0.078, 0.079)
    # rounding first is the notebook's: the Overall of unrounded inputs differs
    assert overall(0.0785, 0.80683333, 0.45156).overall != pytest.approx((0.9215 * 100 + 80.683333 + 45.156) / 3)


@pytest.mark.slow
def test_odb_formula_cdm_and_the_overall_equal_omnidocbench_on_the_oracle_pages(suite):
    """The oracle systems run as a dataset with odb_formula_cdm asked for: every page's CDM, the macro (the page
    split's ALL), the micro (its 'all'), the grouped tables and the Overall are OmniDocBench's
    (make_cdm_end2end_expected.py) to 1e-6;
    the formulas it scores 0 without comparing keep their 0 and warn; the summaries show the Overall."""
    root = suite.path / "bench"
    root.mkdir()
    shutil.copy(DATA / "pages.json", root)
    for folder in ("images", *END2END["systems"]):
        shutil.copytree(DATA / folder, root / folder)
    systems = ", ".join(END2END["systems"])
    suite.write(
        "bench.ocr.yaml",
        "dataset: {type: omnidocbench, path: bench}\n"
        f"defaults: {{engine: [{systems}], metrics: [odb_formula_cdm]}}\n",
    )
    result = run(suite, "--ocr-report", "report.json")
    report = load_report(suite)
    assert report["scorers"]["odb_formula_cdm"] == {"scorer": "omnidocbench", "version": "v1.5@7bd6c2e"}
    text = result.stdout.str()
    markdown = run_markdown(RunRecord.from_document(report))
    warnings: dict[tuple[str, str], list[str]] = {}
    for system, expected in END2END["systems"].items():
        results = {r["image"].rsplit("/", 1)[-1]: r for r in report["results"] if r["engine"] == system}
        ours = {
            n: r["metrics"]["odb_formula_cdm"]
            for n, r in results.items()
            if r["metrics"].get("odb_formula_cdm") is not None
        }
        assert ours == pytest.approx(expected["page_CDM"], abs=1e-6), system
        for name, r in results.items():  # each formula's score, in OmniDocBench's order
            scores = [s["CDM"] for s in expected["samples"] if s["img_id"] == name]
            assert (
                r["details"].get("odb_formula_cdm", {}).get("scores", []) == scores or not scores and name not in ours
            )
            warned = [w for w in r["warnings"] if "CDM scored display formula" in w]
            if warned:  # a formula OmniDocBench scores 0 without comparing: its 0 kept, the reason said
                warnings[(system, name)] = warned
                assert all(scores[int(w.split()[4]) - 1] == 0 for w in warned)
        summary = report["summary"][system]
        aggregate = summary["metrics"]["odb_formula_cdm"]
        assert aggregate["macro"] == pytest.approx(expected["display_formula"]["page"]["CDM"]["ALL"], abs=1e-6)
        assert aggregate["micro"] == pytest.approx(expected["display_formula"]["all"]["CDM"]["all"], abs=1e-6)
        assert aggregate["n"] == len(expected["page_CDM"])
        # OmniDocBench's grouped results with CDM: its column beside Edit_dist, by page and by block attribute
        grouped = summary["omnidocbench"]["display_formula"]
        for part in ("page", "group"):
            theirs = expected["display_formula"][part]
            assert grouped[part].keys() == theirs.keys() >= {"CDM", "Edit_dist"}, (system, part)
            for metric, values in theirs.items():
                assert grouped[part][metric] == pytest.approx(values, abs=1e-6), (system, part, metric)
        row = expected["notebook"]
        assert summary["omnidocbench_overall"] == pytest.approx(
            {
                "text_edit": row["text_block_Edit_dist"],
                "cdm": row["display_formula_CDM"],
                "teds": row["table_TEDS"],
                "overall": row["overall"],
            },
            abs=1e-6,
        ), system
        assert re.search(rf"formula CDM page avg +.*{aggregate['macro']:.4f} \({aggregate['n']} pages\)", text)
    assert warnings == {
        (system, "made_empty.png"): ["CDM scored display formula 1 0: the prediction rendered no token"]
        for system in ("handmade", "latex_tables")
    }
    overalls = [f"{report['summary'][s]['omnidocbench_overall']['overall']:.4f}" for s in report["summary"]]
    assert re.search(r"\nOverall +" + " +".join(overalls) + r"\n", text)
    assert "| Overall | " + " | ".join(overalls) + " |" in markdown
    assert "each rounded to 3 decimals first, as OmniDocBench's notebook does" in text
    assert "no Overall" not in text and "no Overall" not in markdown


def test_without_cdm_the_summary_says_the_overall_needs_it_and_the_json_has_none():
    def agg(macro: float | None, n: int) -> MetricAggregate:
        return MetricAggregate(macro=macro, micro=macro, n=n)

    without = {"odb_text_edit": agg(0.0785, 3), "odb_table_teds": agg(0.5, 1)}
    summary = Summary("vlm", cases=3, metrics=without, omnidocbench_overall=omnidocbench_overall(without))
    assert summary.omnidocbench_overall is None and "omnidocbench_overall" not in summary.to_dict()
    assert omnidocbench_note([summary]).endswith("; no Overall (it needs CDM)")
    assert "Overall" not in [label for label, _ in omnidocbench_rows([summary])]
    # CDM computed, no page with a formula nor a table: both 0, as the notebook takes a missing value
    with_cdm = {"odb_text_edit": agg(0.0785, 3), "odb_formula_cdm": agg(None, 0)}
    found = omnidocbench_overall(with_cdm)
    assert found == Overall(text_edit=0.078, cdm=0.0, teds=0.0, overall=(1 - 0.078) * 100 / 3)
    summary = Summary("vlm", cases=3, metrics=with_cdm, omnidocbench_overall=found)
    assert Summary.from_dict(summary.to_dict()) == summary
    assert ("Overall", ["30.7333"]) in omnidocbench_rows([summary])
    assert "no Overall" not in omnidocbench_note([summary])
    # no page with text: the notebook's Overall is NaN, here none
    assert omnidocbench_overall({"odb_text_edit": agg(None, 0), "odb_formula_cdm": agg(1.0, 1)}) is None
