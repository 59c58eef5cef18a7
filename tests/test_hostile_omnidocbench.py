"""Hostile outputs scored the OmniDocBench way, in a real pytest session under a memory limit and a timeout:
each costs its own item, bounded by --ocr-max-match-work, and every other page is scored as usual."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import REPO, run_bounded
from helpers.omnidocbench import hostile_markdown, ordinary_page

ORACLE = REPO / "tests" / "data" / "omnidocbench"
PAGES = ("earnings_pg1", "made_md_table", "math_2503_04086_pg1")


@pytest.mark.slow
def test_hostile_outputs_cost_their_own_item_within_the_match_bound(tmp_path: Path) -> None:
    """10,000 paragraphs and 1,000 tables: the quick match stops at its bound and the simple match scores the page,
    with a warning. 100,000 one-word paragraphs (half a megabyte, far below --ocr-max-output-mb) against a page of
    200 blocks: the simple match's matrix would be 20 million pairs, past the bound too, so the item is an error
    saying so, before that matrix is built (it took 600 MB). The other pages score as usual."""
    root = tmp_path / "bench"
    (root / "images").mkdir(parents=True)
    oracle = json.loads((ORACLE / "pages.json").read_text("utf-8"))
    pages = [p for p in oracle if p["page_info"]["image_path"][:-4] in PAGES]
    large, _ = ordinary_page(200)
    outputs = root / "hostile"
    outputs.mkdir()
    for page in pages:
        image = page["page_info"]["image_path"]
        shutil.copy(ORACLE / "images" / image, root / "images" / image)
        shutil.copy(ORACLE / "handmade" / f"{image[:-4]}.md", outputs)
    shutil.copy(ORACLE / "images" / "made_paragraphs.png", root / "images" / large["page_info"]["image_path"])
    (root / "pages.json").write_text(json.dumps([*pages, large], ensure_ascii=False), encoding="utf-8")
    (outputs / "earnings_pg1.md").write_text(hostile_markdown(10_000, 1_000), encoding="utf-8")
    tiny = "\n\n".join(f"w{i % 97}" for i in range(100_000))
    (outputs / "ordinary_200.md").write_text(tiny, encoding="utf-8")
    (tmp_path / "bench.ocr.yaml").write_text("dataset: {type: omnidocbench, path: bench}\n", encoding="utf-8")

    done = run_bounded(tmp_path, "--ocr-report", "report.json", "-q", memory_mb=1024, timeout=180)

    assert done.returncode == 1, done.output[-3000:]
    report = json.loads((tmp_path / "report.json").read_text("utf-8"))
    results = {Path(r["image"]).stem: r for r in report["results"]}
    assert set(results) == {*PAGES, "ordinary_200"}
    fallback = results["earnings_pg1"]
    assert fallback["outcome"] == "passed"
    (warning,) = fallback["warnings"]
    assert warning.startswith("OmniDocBench's quick match gave up on this page (the quick match stopped: ")
    assert "over max_match_work=10,000,000" in warning
    assert fallback["metrics"]["odb_text_edit"] is not None and fallback["metrics"]["odb_table_teds"] is not None
    too_large = results["ordinary_200"]
    assert too_large["outcome"] == "error"
    assert too_large["error"].endswith(
        "OmniDocBench's simple match of the page's 200 ground-truth and 100,000 predicted blocks: the edit-distance "
        "matrix would take the match's work to 21,618,614, over max_match_work=10,000,000; the page is not scored "
        "(--ocr-max-match-work sets the bound)"
    )
    for ordinary in ("made_md_table", "math_2503_04086_pg1"):
        assert results[ordinary]["outcome"] == "passed" and not results[ordinary]["warnings"], ordinary
        assert results[ordinary]["metrics"]["odb_text_edit"] is not None
    assert done.max_rss_mb < 600, done.max_rss_mb
    assert done.seconds < 120, done.seconds
