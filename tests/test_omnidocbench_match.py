"""OmniDocBench's quick match under pytest-ocr's work bound (pytest_ocr/metrics/omnidocbench/match.py):
below the bound the numbers are the quick match's, whatever the bound; at it the page is matched by
OmniDocBench's simple method, as its timeout does, and says why; a hostile output is stopped by the
default bound. And the libraries of the omnidocbench extra are loaded only when a page is scored.
(tests/test_omnidocbench_agreement.py holds the values against OmniDocBench's own.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from helpers.omnidocbench import DATA, digest, fixture_pages, hostile_markdown, match_case, ordinary_page

from pytest_ocr.metrics.omnidocbench import MissingExtra
from pytest_ocr.metrics.omnidocbench.match import Work, WorkExceeded, match_gt2pred_quick, match_gt2pred_simple
from pytest_ocr.metrics.omnidocbench.page import MAX_MATCH_WORK, PageScores, score_page


def _fixture(image: str, engine: str = "olmocr") -> tuple[dict[str, Any], str]:
    page = next(p for p in fixture_pages() if p["page_info"]["image_path"] == image)
    return page, (DATA / engine / f"{image[:-4]}.md").read_text(encoding="utf-8")


def _values(scores: PageScores) -> list[tuple[Any, ...]]:
    return [(s.element, s.gt, s.pred, s.gt_idx, s.pred_idx, s.edit_num, s.upper_len) for s in scores.samples]


def test_below_the_bound_the_bound_changes_nothing_and_one_unit_less_falls_back() -> None:
    page, markdown = _fixture("openstax_caculus_pg_273_pg1.jpg")
    scores = score_page(page, markdown)
    assert scores.fallback is None and scores.match_work > 0

    exactly = score_page(page, markdown, max_match_work=scores.match_work)
    assert exactly.fallback is None
    assert _values(exactly) == _values(scores)

    short = score_page(page, markdown, max_match_work=scores.match_work - 1)
    assert short.fallback is not None
    assert f"max_match_work={scores.match_work - 1:,}" in short.fallback
    assert "simple match" in short.fallback
    assert short.match_work <= scores.match_work - 1
    # The simple match pairs each ground-truth block with one prediction: no merged paragraphs.
    assert all(len(s.gt_idx) == 1 for s in short.of("text_block"))
    assert _values(short) != _values(scores)


def test_the_work_is_checked_before_the_step_that_would_pass_it() -> None:
    page, markdown = ordinary_page(40)
    predictions = [
        {"category_type": "text_all", "content": text, "position": [i, i + 1]}
        for i, text in enumerate(markdown.split("\n\n"))
    ]
    whole = Work(MAX_MATCH_WORK)
    match_gt2pred_quick(page["layout_dets"], predictions, "ordinary_40.png", whole)
    half = Work(whole.done // 2)
    with pytest.raises(WorkExceeded) as raised:
        match_gt2pred_quick(page["layout_dets"], predictions, "ordinary_40.png", half)
    assert raised.value.needed > raised.value.bound == half.bound
    assert 0 < half.done <= half.bound  # what was done stayed within the bound


def test_an_ordinary_page_of_200_blocks_is_within_the_default_bound() -> None:
    page, markdown = ordinary_page(200)
    scores = score_page(page, markdown)
    assert scores.fallback is None
    assert scores.match_work < MAX_MATCH_WORK / 4
    # The split and merged paragraphs were matched as such.
    assert any(len(s.gt_idx) > 1 for s in scores.of("text_block"))
    assert any(len(s.pred_idx) > 1 for s in scores.of("text_block"))


@pytest.mark.slow
def test_a_hostile_output_falls_back_to_the_simple_match_and_says_why() -> None:
    page, _ = _fixture("earnings_pg1.jpg")  # a page with a table, headers and paragraphs
    markdown = hostile_markdown(10_000, 1_000)
    scores = score_page(page, markdown)
    assert scores.fallback is not None
    assert f"over max_match_work={MAX_MATCH_WORK:,}" in scores.fallback
    assert scores.match_work <= MAX_MATCH_WORK
    # What the simple match makes of it: one prediction per block of the ground truth, the
    # unmatched predictions dropped (their entry has no ground-truth category), the table scored.
    text = scores.of("text_block")
    assert text and all(len(s.gt_idx) == 1 and len(s.pred_idx) == 1 for s in text)
    assert len(scores.of("table")) == 1


def _match_expected() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads((DATA / "match" / "match_expected.json").read_text(encoding="utf-8"))[
        "cases"
    ]
    return cases


def test_both_matches_equal_the_originals_on_300_generated_pages() -> None:
    # match_expected.json: OmniDocBench's own outputs on these inputs (make_match_expected.py), as digests.
    differ = []
    for case in _match_expected():
        for name in ("quick", "simple"):
            blocks, predictions = match_case(case["seed"])
            try:
                if name == "quick":
                    got = digest(match_gt2pred_quick(blocks, predictions, "page.png", Work(MAX_MATCH_WORK)))
                else:
                    got = digest(match_gt2pred_simple(blocks, predictions, "text_all", "page.png")[0])
            except Exception as exc:
                got = f"raises {type(exc).__name__}"
            if got != case[name]:
                differ.append((case["seed"], name))
    assert len(_match_expected()) == 300
    assert differ == []


def test_the_simple_match_is_the_fallback_the_original_uses() -> None:
    # match_gt2pred_simple as End2EndDataset calls it when the quick match times out.
    blocks = [
        {"category_type": "text_block", "order": 1, "text": "First paragraph here.", "attribute": {"a": 1}},
        {"category_type": "text_block", "order": 2, "text": "Second one.", "attribute": {"a": 2}},
    ]
    predictions = [
        {"category_type": "text_all", "content": "Second one.", "position": [0, 11]},
        {"category_type": "text_all", "content": "First paragraph here!", "position": [13, 34]},
        {"category_type": "text_all", "content": "Unmatched.", "position": [36, 46]},
    ]
    matches, unmatched_tables = match_gt2pred_simple(blocks, predictions, "text_all", "p.png")
    assert unmatched_tables is None
    assert [(m["gt_idx"], m["pred_idx"], m["edit"]) for m in matches] == [
        ([0], [1], 0.0),
        # Quirk: prediction 0 is falsy, so its category and position are left empty.
        ([1], [0], 0.0),
        ([""], [2], 1),
    ]
    assert (matches[1]["pred_category_type"], matches[1]["pred_position"]) == ("", "")
    assert json.dumps(matches)  # the shapes the original's result files hold


def test_a_missing_extra_says_which_to_install() -> None:
    code = (
        "import sys; sys.modules['scipy'] = None\n"
        "from pytest_ocr.metrics.omnidocbench.page import score_page\n"
        "page = {'layout_dets': [{'category_type': 'text_block', 'order': i, 'anno_id': i, 'text': t}"
        " for i, t in ((1, 'One paragraph.'), (2, 'Another paragraph.'))],"
        " 'page_info': {'image_path': 'p.png'}, 'extra': {'relation': []}}\n"
        "score_page(page, 'One paragraph.\\n\\nAnother paragraph.')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_environment())
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert MissingExtra.__name__ in last and 'pip install "pytest-ocr[omnidocbench]"' in last


def test_importing_the_metrics_and_the_scorer_loads_none_of_its_libraries() -> None:
    code = (
        "import json, sys; import pytest_ocr.metrics; import pytest_ocr.metrics.omnidocbench.page\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=_environment())
    modules = json.loads(done.stdout)
    assert "pytest_ocr.metrics.omnidocbench.match" in modules
    heavy = ("scipy", "pylatexenc", "bs4", "lxml")
    assert [m for m in modules if m.split(".")[0] in heavy] == []


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}


def test_a_table_beyond_teds_bounds_is_not_compared_and_says_why() -> None:
    # OmniDocBench would run APTED on it for minutes; pytest-ocr's TEDS bound (max_table_nodes) applies.
    page, _ = _fixture("earnings_pg1.jpg")
    rows = "".join(f"<tr><td>{i}</td><td>{i * 7}</td></tr>" for i in range(1_500))
    scores = score_page(page, f"Quarterly results\n\n<table>{rows}</table>\n")
    (table,) = scores.of("table")
    assert table.teds == 0.0 and table.teds_struct == 0.0
    assert table.edit_num is not None  # its edit distance is computed as the original's
    (why,) = scores.not_compared
    assert "the predicted table has 4,501 nodes" in why and "max_table_nodes" in why
