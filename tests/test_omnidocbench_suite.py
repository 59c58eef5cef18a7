"""OmniDocBench as pytest: the oracle pages of tests/data/omnidocbench/ (our own pages in its
ground-truth format, with OmniDocBench's own results on them; see make_expected.py there) run
as a dataset suite and as case files, every aggregate against OmniDocBench's to 1e-6."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import REPO, load_report, run

from pytest_ocr.engines.base import EngineError, EngineSpec
from pytest_ocr.engines.page_outputs import OmniDocBenchOutputsEngine

ORACLE = REPO / "tests" / "data" / "omnidocbench"
PAGES = json.loads((ORACLE / "pages.json").read_text(encoding="utf-8"))
# OmniDocBench's own results, one folder per system: its name is the folder of .md outputs.
SYSTEMS = sorted(p.name for p in (ORACLE / "expected").iterdir() if p.is_dir())

# pytest-ocr's metric for each of OmniDocBench's (element, metric): its 'all' values are the
# micro ('edit_whole', TEDS 'all') and macro ('ALL_page_avg'), its 'page' values the macro per tag.
METRICS = {
    ("text_block", "Edit_dist"): "odb_text_edit",
    ("display_formula", "Edit_dist"): "odb_formula_edit",
    ("table", "Edit_dist"): "odb_table_edit",
    ("table", "TEDS"): "odb_table_teds",
    ("table", "TEDS_structure_only"): "odb_table_teds_struct",
    ("reading_order", "Edit_dist"): "odb_reading_order_edit",
}


def _tag(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_\-]+", "_", text)


def _attribute_tags() -> dict[str, str]:
    """OmniDocBench's name of a page attribute (get_page_split: ``language: english``, or a
    special issue alone) -> the tag pytest-ocr gives the pages that have it."""
    tags = {}
    for page in PAGES:
        for key, value in page["page_info"].get("page_attribute", {}).items():
            if isinstance(value, list):
                tags.update({entry: _tag(f"{key}-{entry}") for entry in value if "table" not in entry})
            else:
                tags[f"{key}: {value}"] = _tag(f"{key}-{value}")
    return tags


def _dataset(suite, path: Path = ORACLE, extra: str = "") -> None:
    suite.write("bench.ocr.yaml", f"dataset: {{type: omnidocbench, path: {json.dumps(str(path))}{extra}}}\n")


def _copy(tmp_path: Path) -> Path:
    """The oracle dataset's ground truth, images and outputs, to change."""
    root = tmp_path / "bench"
    shutil.copytree(ORACLE, root, ignore=shutil.ignore_patterns("expected", "*.py"))
    return root


# -- the dataset -------------------------------------------------------------------------------


def test_one_item_per_page_and_system_its_attributes_as_tags(suite):
    _dataset(suite)
    result = run(suite, "--collect-only", "-q")
    ids = [line for line in result.stdout.lines if line.startswith("bench.ocr.yaml::")]
    assert len(ids) == len(PAGES) * len(SYSTEMS)
    assert "bench.ocr.yaml::earnings_pg1[olmocr]" in ids
    assert "bench.ocr.yaml::made_quirk_tif[olmocr]" in ids  # made_quirk_tif.tif, beside made_quirk.png
    # Page attributes are tags: -m selects pages by them (a list's entries one by one).
    colourful = run(suite, "--collect-only", "-q", "-m", "special_issue-colorful_backgroud")
    selected = {line for line in colourful.stdout.lines if line.startswith("bench.ocr.yaml::")}
    expected = {
        f"bench.ocr.yaml::{Path(p['page_info']['image_path']).stem}[olmocr]"
        for p in PAGES
        if "colorful_backgroud" in p["page_info"]["page_attribute"].get("special_issue", [])
    }
    assert selected == expected and len(expected) == 2
    # Table issues are left out of the tags, as OmniDocBench's get_page_split leaves them out.
    tables = run(suite, "--collect-only", "-q", "-m", "special_issue-table_span")
    assert not [line for line in tables.stdout.lines if line.startswith("bench.ocr.yaml::")]


def test_filter_takes_the_pages_with_those_attributes(suite):
    _dataset(suite, extra=", filter: {data_source: book, layout: double_column}")
    result = run(suite, "--collect-only", "-q")
    ids = {line for line in result.stdout.lines if line.startswith("bench.ocr.yaml::")}
    assert ids == {
        "bench.ocr.yaml::openstax_caculus_pg_273_pg1[olmocr]",
        "bench.ocr.yaml::made_truncated[olmocr]",
    }


def test_bad_pages_are_skipped_with_file_index_and_reason(suite, tmp_path):
    root = _copy(tmp_path)
    pages = json.loads(json.dumps(PAGES))
    del pages[1]["extra"]
    pages[2]["layout_dets"][0]["category_type"] = 7
    pages[3]["page_info"]["image_path"] = "not_there.jpg"
    (root / "pages.json").write_text(json.dumps(pages, indent=1), encoding="utf-8")
    _dataset(suite, root)
    result = run(suite, "--ocr-report", "report.json", "-k", "earnings_pg1")
    text = result.stdout.str()
    lines = (root / "pages.json").read_text(encoding="utf-8").splitlines()
    starts = [i + 1 for i, line in enumerate(lines) if line == " {"]  # each page's first line
    assert f"pages.json:{starts[1]}: [1].extra.relation: expected a list of relations" in text
    assert f"pages.json:{starts[2]}: [2].layout_dets[0].category_type: expected a category name" in text
    assert f"pages.json:{starts[3]}: [3]: no image not_there.jpg in" in text
    report = load_report(suite)
    (dataset,) = report["datasets"]
    assert dataset["skipped"] == 3
    assert {r["case"] for r in report["results"]} == {"earnings_pg1"}


def test_the_ground_truth_is_the_one_json_file_or_named(suite, tmp_path):
    root = _copy(tmp_path)
    shutil.copy(root / "pages.json", root / "other.json")
    _dataset(suite, root)
    result = run(suite, "--collect-only", "-q")
    assert "expected one ground-truth .json file in" in result.stdout.str()
    assert "found 2: other.json, pages.json; name it with ground_truth:" in result.stdout.str()
    _dataset(suite, root, f", ground_truth: {json.dumps(str(root / 'pages.json'))}")
    result = run(suite, "--collect-only", "-q")
    assert f"{len(PAGES) * len(SYSTEMS)} tests collected" in result.stdout.str()


def test_a_page_without_a_prediction_is_the_items_error(suite, tmp_path):
    """OmniDocBench prints a warning and leaves such a page out of every score; here it is the
    item's error (as any stored output that is missing), and out of every score as well."""
    root = _copy(tmp_path)
    (root / "olmocr" / "earnings_pg1.md").unlink()
    _dataset(suite, root)
    result = run(suite, "--ocr-report", "report.json", "-k", "earnings_pg1")
    assert result.ret == 1
    (item,) = load_report(suite)["results"]
    assert item["outcome"] == "error" and item["metrics"] == {}
    assert "no stored output for earnings_pg1.jpg in" in item["error"]
    assert "(looked for earnings_pg1.md, earnings_pg1.mmd, earnings_pg1.jpg.md)" in item["error"]


def test_outputs_are_found_as_omnidocbench_finds_them(tmp_path):
    """End2EndDataset.get_matched_elements's order: the image name without its last four
    characters + .md; that without ".pdf" + .mmd (nougat), + .md (marker); the image name + .md."""
    folder = tmp_path / "system"
    folder.mkdir()
    engine = _outputs(folder)
    page = tmp_path / "report.pdf_3.jpg"
    names = ["report.pdf_3.jpg.md", "report_3.md", "report_3.mmd", "report.pdf_3.md"]
    with pytest.raises(EngineError, match=r"looked for report\.pdf_3\.md, report_3\.mmd, report_3\.md, report"):
        engine.outputs(page, 1)
    for name in names:  # each one added is found before those added earlier
        (folder / name).write_text(f"from {name}", encoding="utf-8")
        engine = _outputs(folder)  # a new one: an engine lists its folder once
        (recognition,) = engine.outputs(page, 1)
        assert recognition.text == f"from {name}"


def _outputs(folder: Path) -> OmniDocBenchOutputsEngine:
    return OmniDocBenchOutputsEngine(EngineSpec(folder.name, "omnidocbench-outputs", {"path": str(folder)}, folder))
