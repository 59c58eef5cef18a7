"""OmniDocBench as pytest: the oracle pages of tests/data/omnidocbench/ (our own pages in its
ground-truth format, with OmniDocBench's own results on them; see make_expected.py there) run
as a dataset suite and as case files, every aggregate against OmniDocBench's to 1e-6."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import bs4  # noqa: F401  (see below)
import pytest
import scipy.optimize  # noqa: F401  (see below)
from conftest import REPO, load_report, run

from pytest_ocr import limits
from pytest_ocr.engines.base import EngineError, EngineSpec
from pytest_ocr.engines.page_outputs import OmniDocBenchOutputsEngine
from pytest_ocr.report.markdown import escape, run_markdown
from pytest_ocr.report.numbers import number
from pytest_ocr.run.record import RunRecord

# scipy is imported here, once: pytester's in-process sessions forget the modules they import,
# and scipy's compiled modules cannot be imported a second time in one process. bs4 too: clean.py
# keeps the HTML tree builder it made from the first bs4 it imported, which a second bs4 cannot use.

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


@pytest.fixture(autouse=True)
def _limits_restored():
    """A session in this process sets the limits for the process (--ocr-max-table-nodes 5 would
    stay for the next test that scores tables without a session): put back as they were."""
    previous = limits.active()
    yield
    limits.use(previous)


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


def _dataset(suite, path: Path, extra: str = "") -> None:
    suite.write("bench.ocr.yaml", f"dataset: {{type: omnidocbench, path: {json.dumps(str(path))}{extra}}}\n")


def _copy(tmp_path: Path) -> Path:
    """The oracle's dataset alone (its folder holds other tests' data too): the ground truth, the
    images and each system's outputs, in a folder of its own (to change)."""
    root = tmp_path / "bench"
    root.mkdir()
    shutil.copy(ORACLE / "pages.json", root)
    for folder in ("images", *SYSTEMS):
        shutil.copytree(ORACLE / folder, root / folder)
    return root


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    return _copy(tmp_path_factory.mktemp("omnidocbench"))


# -- the dataset -------------------------------------------------------------------------------


def test_one_item_per_page_and_system_its_attributes_as_tags(suite, bench):
    _dataset(suite, bench)
    result = run(suite, "--collect-only", "-q")
    ids = [line for line in result.stdout.lines if line.startswith("bench.ocr.yaml::")]
    assert len(ids) == len(PAGES) * len(SYSTEMS)
    assert "bench.ocr.yaml::earnings_pg1[olmocr]" in ids
    assert "bench.ocr.yaml::made_quirk_tif[olmocr]" in ids  # made_quirk_tif.tif, beside made_quirk.png
    # Page attributes are tags: -m selects pages by them (a list's entries one by one).
    colourful = run(suite, "--collect-only", "-q", "-m", "special_issue-colorful_backgroud")
    selected = {line for line in colourful.stdout.lines if line.startswith("bench.ocr.yaml::")}
    expected = {
        f"bench.ocr.yaml::{Path(p['page_info']['image_path']).stem}[{system}]"
        for p in PAGES
        if "colorful_backgroud" in p["page_info"]["page_attribute"].get("special_issue", [])
        for system in SYSTEMS
    }
    assert selected == expected and len(expected) == 2 * len(SYSTEMS)
    # Table issues are left out of the tags, as OmniDocBench's get_page_split leaves them out.
    tables = run(suite, "--collect-only", "-q", "-m", "special_issue-table_span")
    assert not [line for line in tables.stdout.lines if line.startswith("bench.ocr.yaml::")]


def test_filter_takes_the_pages_with_those_attributes(suite, bench):
    _dataset(suite, bench, extra=", filter: {data_source: book, layout: double_column}")
    result = run(suite, "--collect-only", "-q")
    ids = {line for line in result.stdout.lines if line.startswith("bench.ocr.yaml::")}
    assert ids == {
        f"bench.ocr.yaml::{page}[{system}]"
        for page in ("openstax_caculus_pg_273_pg1", "made_truncated")
        for system in SYSTEMS
    }


def test_bad_pages_are_skipped_with_file_index_and_reason(suite, tmp_path):
    root = _copy(tmp_path)
    pages = json.loads(json.dumps(PAGES))
    del pages[1]["extra"]  # pages 1 to 3 are not earnings_pg1, which runs
    pages[2]["layout_dets"][0]["category_type"] = 7
    pages[3]["page_info"]["image_path"] = "not_there.jpg"
    (root / "pages.json").write_text(json.dumps(pages, indent=1), encoding="utf-8")
    _dataset(suite, root)
    suite.write("bench.ocr.yaml", (suite.path / "bench.ocr.yaml").read_text() + "defaults: {engine: [handmade]}\n")
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
    result = run(suite)
    assert "expected one ground-truth .json file in" in result.stdout.str()
    assert "found 2: other.json, pages.json; name it with ground_truth:" in result.stdout.str()
    _dataset(suite, root, f", ground_truth: {json.dumps(str(root / 'pages.json'))}")
    result = run(suite, "--collect-only", "-q")
    assert f"{len(PAGES) * len(SYSTEMS)} tests collected" in result.stdout.str()


def test_a_ground_truth_that_is_not_a_list_of_pages_is_located(suite, tmp_path):
    root = _copy(tmp_path)
    text = (root / "pages.json").read_text(encoding="utf-8")
    (root / "pages.json").write_text(text.rstrip().removesuffix("]") + ",\n {]\n", encoding="utf-8")
    _dataset(suite, root)
    result = run(suite)
    line = text.rstrip().count("\n") + 2
    assert (
        f"pages.json:{line}: malformed JSON: Expecting property name enclosed in double quotes" in result.stdout.str()
    )
    (root / "pages.json").write_text(json.dumps(PAGES[0]), encoding="utf-8")
    result = run(suite)
    assert "pages.json: expected a JSON list of pages (OmniDocBench's format)" in result.stdout.str()


def test_a_page_without_a_prediction_is_the_items_error(suite, tmp_path):
    """OmniDocBench prints a warning and leaves such a page out of every score; here it is the
    item's error (as any stored output that is missing), and out of every score as well."""
    root = _copy(tmp_path)
    (root / "olmocr" / "earnings_pg1.md").unlink()
    _dataset(suite, root)
    suite.write("bench.ocr.yaml", (suite.path / "bench.ocr.yaml").read_text() + "defaults: {engine: [olmocr]}\n")
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


# -- agreement with OmniDocBench ----------------------------------------------------------------


def _page_key(name: str) -> str:
    """The page a sample counts for in OmniDocBench's Edit_dist (cal_metric.py): its image
    name if that ends in .jpg or .png, else the name up to its last '_' (made_quirk_tif.tif
    counts as made_quirk)."""
    return name if name.endswith((".jpg", ".png")) else "_".join(name.split("_")[:-1])


def _split_key(name: str) -> str:
    """The page whose attributes a sample takes in get_page_split: the image name without its
    last four characters if it ends in .jpg or .png, else as ``_page_key``. made_quirk_tif.tif
    takes made_quirk.png's attributes, and both are pooled as one page."""
    return name[:-4] if name.endswith((".jpg", ".png")) else _page_key(name)


def _per_page(system: str, element: str, metric: str) -> dict[str, float]:
    """OmniDocBench's value of each page (by its page key) for one metric of one element."""
    prefix = ORACLE / "expected" / system / f"{system}_quick_match_{element}"
    if metric == "Edit_dist":
        return json.loads(Path(f"{prefix}_per_page_edit.json").read_text(encoding="utf-8"))
    tables: dict[str, list[float]] = {}
    for key, values in json.loads(Path(f"{prefix}_per_table_TEDS.json").read_text(encoding="utf-8")).items():
        tables.setdefault(key.rsplit("_[", 1)[0], []).append(values[metric])
    return {page: sum(v) / len(v) for page, v in tables.items()}


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_page_and_aggregate_agrees_with_omnidocbench(suite, bench, system):
    """Each page's value, the macro (ALL_page_avg), the micro (edit_whole; TEDS all) and the
    grouped results, by page attribute (get_page_split, its colliding page keys included:
    made_quirk_tif.tif is filed and pooled under made_quirk.png) and by block attribute
    (get_full_labels_results, with its sample counts), are OmniDocBench's own, to 1e-6, for
    every metric. The per-tag macro is the page split wherever no page keys collide."""
    suite.write(
        "bench.ocr.yaml",
        f"dataset: {{type: omnidocbench, path: {json.dumps(str(bench))}}}\ndefaults: {{engine: [{system}]}}\n",
    )
    result = run(suite, "--ocr-report", "report.json")
    report = load_report(suite)
    results = {r["image"].rsplit("/", 1)[-1]: r for r in report["results"]}
    outputs = {p.stem for p in (ORACLE / system).glob("*.md")}
    for name, r in results.items():  # a page without an output is the item's error, as any stored output's
        if Path(name).stem in outputs:
            assert r["outcome"] == "passed", (name, r["error"])
        else:
            assert r["outcome"] == "error" and "no stored output" in r["error"]
    assert result.ret == (0 if len(outputs) == len(PAGES) else 1)
    expected = json.loads(
        (ORACLE / "expected" / system / f"{system}_quick_match_metric_result.json").read_text(encoding="utf-8")
    )
    summary = report["summary"][system]
    for name in METRICS.values():  # the scorer each value comes from, and its version
        assert report["scorers"][name] == {"scorer": "omnidocbench", "version": "v1.5@7bd6c2e"}
    tags = _attribute_tags()
    scored = [n for n, r in results.items() if r["outcome"] == "passed"]
    collide = {_split_key(n) for n in scored if not n.endswith((".jpg", ".png"))}
    pooled = {n for n in scored if _split_key(n) in collide}  # the pages OmniDocBench's split pools
    attributes_of = {
        Path(p["page_info"]["image_path"]).name: {
            *(e for v in p["page_info"]["page_attribute"].values() if isinstance(v, list) for e in v),
            *(f"{k}: {v}" for k, v in p["page_info"]["page_attribute"].items() if not isinstance(v, list)),
        }
        for p in PAGES
    }
    shared = {a for n in pooled for a in ("ALL", *attributes_of[n])}  # none for a system without those pages
    compared = 0
    for (element, metric), name in METRICS.items():
        per_page = _per_page(system, element, metric)
        ours = {n: r["metrics"][name] for n, r in results.items() if r["metrics"].get(name) is not None}
        # every page: a value exactly where OmniDocBench has one, and the same value
        assert {_page_key(n) for n in ours} == set(per_page), (name, sorted(ours), sorted(per_page))
        for n, value in ours.items():
            assert value == pytest.approx(per_page[_page_key(n)], abs=1e-6), (name, n)
        aggregate = summary["metrics"][name]
        values = expected[element]["all"][metric]
        if metric == "Edit_dist":
            assert aggregate["macro"] == pytest.approx(values["ALL_page_avg"], abs=1e-6), name
            assert aggregate["micro"] == pytest.approx(values["edit_whole"], abs=1e-6), name
        else:
            assert aggregate["micro"] == pytest.approx(values["all"], abs=1e-6), name
        assert aggregate["n"] == len(per_page)
        for attribute, value in expected[element]["page"][metric].items():
            if attribute not in shared:  # the per-tag macro: each page as itself
                groups = summary["groups"]
                found = aggregate if attribute == "ALL" else groups[f"tag:{tags[attribute]}"]["metrics"][name]
                assert found["macro"] == pytest.approx(value, abs=1e-6), (name, attribute)
    # OmniDocBench's grouped results: every value and sample count, nothing else.
    grouped = summary["omnidocbench"]
    assert set(grouped) == {element for element, parts in expected.items() if parts["page"] or parts["group"]}
    for element, parts in grouped.items():
        for part in ("page", "group"):
            theirs = expected[element][part]
            assert parts[part].keys() == theirs.keys(), (element, part)
            for metric, values in theirs.items():
                assert parts[part][metric].keys() == values.keys(), (element, part, metric)
                for key, value in values.items():
                    if metric == "sample_count":
                        assert parts[part][metric][key] == value, (element, key)
                    else:
                        assert parts[part][metric][key] == pytest.approx(value, abs=1e-6), (element, metric, key)
                    compared += 1
    every = [v for parts in expected.values() for part in ("page", "group") for v in parts[part].values()]
    assert compared == sum(map(len, every)) > 50
    # The summary shows OmniDocBench's table, in its terms.
    text = result.stdout.str()
    edit = summary["metrics"]["odb_text_edit"]
    assert re.search(rf"text edit ALL_page_avg +{edit['macro']:.4f} \({edit['n']} pages\)", text)
    assert re.search(rf"text edit edit_whole +{edit['micro']:.4f}", text)
    assert "table TEDS-S all" in text and "reading order edit ALL_page_avg" in text
    assert "odb_text_edit macro" not in text  # not twice
    markdown = run_markdown(RunRecord.from_document(report))  # the GitHub step summary: the same table
    assert f"| text edit ALL\\_page\\_avg | {edit['macro']:.4f} ({edit['n']} pages) |" in markdown
    assert "OmniDocBench v1.5 end to end (quick_match)" in markdown and "odb_text_edit macro" not in markdown
    # OmniDocBench's grouped results: in the Markdown summary, folded; the terminal says where they are.
    assert "OmniDocBench by page attribute and by block attribute: in the JSON report" in text
    assert "<details><summary>OmniDocBench by page attribute and by block attribute</summary>" in markdown
    page = grouped["text_block"]["page"]["Edit_dist"]
    assert f"| language: english | {number(page['language: english'])} |" in markdown
    group = grouped["table"]["group"]
    label = "line: full_line"
    if label in group["sample_count"]:  # columns: each metric as OmniDocBench orders them, then samples
        cells = [number(group[m][label]) for m in group if m != "sample_count"]
        assert f"| {escape(label)} | {' | '.join(cells)} | {group['sample_count'][label]} |" in markdown


# -- case files ------------------------------------------------------------------------------


def _case_suite(suite, layout: str, image: str, threshold: str = "") -> None:
    shutil.copy(ORACLE / "images" / image, suite.path / image)
    suite.write(
        "page.ocr.yaml",
        f"engines:\n  handmade: {{type: omnidocbench-outputs, path: {json.dumps(str(ORACLE / 'handmade'))}}}\n"
        f"id: page\nimage: {image}\nengine: handmade\nexpected: {layout}\n{threshold}",
    )


def test_a_case_file_scores_one_page_as_the_dataset_does(suite):
    """A page's ground truth given to a case: the layout metrics are its defaults, each equal to
    OmniDocBench's value of the page; a threshold on one the page has nothing for (tables) is
    not applicable, and says so: it neither fails nor passes unseen (the item fails here on
    a threshold no value meets, so that its failure text lists every check)."""
    _case_suite(
        suite,
        f"{{layout_file: {json.dumps(str(ORACLE / 'pages.json'))}}}",
        "made_formulas.png",
        "thresholds: {odb_formula_edit: '<= 0.5', odb_table_teds: '>= 0.9', odb_text_edit: '< 0'}\n",
    )
    result = run(suite, "--ocr-report", "report.json")
    assert result.ret == 1
    (item,) = load_report(suite)["results"]
    assert set(item["metrics"]) == {
        "odb_text_edit",
        "odb_formula_edit",
        "odb_table_teds",
        "odb_table_teds_struct",
        "odb_table_edit",
        "odb_reading_order_edit",
    }
    for element, metric in (("text_block", "odb_text_edit"), ("display_formula", "odb_formula_edit")):
        assert item["metrics"][metric] == pytest.approx(
            _per_page("handmade", element, "Edit_dist")["made_formulas.png"]
        )
    assert item["metrics"]["odb_table_teds"] is None
    assert item["details"]["odb_table_teds"]["not_applicable"] == "the page has no tables"
    teds = next(c for c in item["checks"] if c["metric"] == "odb_table_teds")
    assert teds == {
        "metric": "odb_table_teds",
        "expression": ">= 0.9",
        "value": None,
        "passed": True,
        "not_applicable": "the page has no tables",
    }
    assert [c["metric"] for c in item["checks"] if not c["passed"]] == ["odb_text_edit"]
    text = result.stdout.str()
    assert "odb_table_teds: not applicable (the page has no tables), expected >= 0.9: ok" in text
    assert re.search(r"odb_formula_edit = 0\.\d+, expected <= 0\.5: ok", text)


def test_a_layout_file_of_one_page_or_a_named_page(suite):
    page = next(p for p in PAGES if p["page_info"]["image_path"] == "made_md_table.png")
    suite.write("one.json", json.dumps(page))
    _case_suite(suite, "{layout_file: one.json}", "made_md_table.png", "metrics: [odb_table_teds]\n")
    assert run(suite, "--ocr-report", "report.json").ret == 0
    (item,) = load_report(suite)["results"]
    assert item["metrics"]["odb_table_teds"] == pytest.approx(0.92)  # OmniDocBench's, per_table_TEDS.json
    # layout_page picks a page of a list by its image's name, whatever the case's image is called
    shutil.copy(ORACLE / "images" / "made_md_table.png", suite.path / "scan.png")
    (suite.path / "outputs").mkdir()
    shutil.copy(ORACLE / "handmade" / "made_md_table.md", suite.path / "outputs" / "scan.md")
    suite.write(
        "page.ocr.yaml",
        "engines:\n  handmade: {type: omnidocbench-outputs, path: outputs}\n"
        "id: page\nimage: scan.png\nengine: handmade\nmetrics: [odb_table_teds]\n"
        f"expected: {{layout_file: {json.dumps(str(ORACLE / 'pages.json'))}, layout_page: made_md_table.png}}\n",
    )
    assert run(suite, "--ocr-report", "report.json").ret == 0
    (item,) = load_report(suite)["results"]
    assert item["metrics"]["odb_table_teds"] == pytest.approx(0.92)


def test_a_bad_layout_file_is_located_one_line_per_problem(suite):
    page = json.loads(json.dumps(PAGES[0]))
    del page["extra"]
    page["layout_dets"][2]["category_type"] = None
    page["page_info"]["page_attribute"] = ["english"]
    text = json.dumps(page, indent=1)
    suite.write("bad.json", text)
    lines = text.splitlines()
    _case_suite(suite, "{layout_file: bad.json}", "earnings_pg1.jpg")
    result = run(suite, "--ocr-report", "report.json")
    assert result.ret == 1
    (item,) = load_report(suite)["results"]
    attribute = next(i + 1 for i, line in enumerate(lines) if '"page_attribute"' in line)
    # a block's own key (its spans' are indented deeper)
    category = [i + 1 for i, line in enumerate(lines) if line.startswith('   "category_type"')][2]
    assert item["error"].splitlines() == [
        "layout file bad.json cannot be used (case page at page.ocr.yaml:1):",
        f"  bad.json:{attribute}: page_info.page_attribute: expected an object, got a list",
        f"  bad.json:{category}: layout_dets[2].category_type: expected a category name, got nothing",
        "  bad.json:1: extra.relation: expected a list of relations ([] for none), got nothing",
    ]
    # a key of the case file itself: located by the case-file schema
    suite.write("page.ocr.yaml", "id: page\nimage: earnings_pg1.jpg\nexpected: {layout_page: earnings_pg1.jpg}\n")
    result = run(suite)
    assert "page.ocr.yaml:3: expected: expected `layout_page` names a page of a `layout_file`" in result.stdout.str()


def test_the_match_bound_falls_back_to_the_simple_match_with_a_warning(suite):
    """A page whose quick match would pass --ocr-max-match-work is matched by OmniDocBench's
    simple method, as its 30 s timeout does: the item says so, and its values say which."""
    from pytest_ocr.metrics.omnidocbench.page import MAX_MATCH_WORK

    assert limits.DEFAULT.max_match_work == MAX_MATCH_WORK  # the option's default is the scorer's
    _case_suite(suite, f"{{layout_file: {json.dumps(str(ORACLE / 'pages.json'))}}}", "made_paragraphs.png")
    assert run(suite, "--ocr-report", "report.json").ret == 0
    (quick,) = load_report(suite)["results"]
    assert "fallback" not in quick["details"]["odb_text_edit"] and not quick["warnings"]
    work = quick["details"]["odb_text_edit"]["match_work"]
    assert 1 < work < MAX_MATCH_WORK
    # one unit short: the quick match stops at its last step; the simple match's one matrix fits
    result = run(suite, "--ocr-report", "report.json", "--ocr-max-match-work", str(work - 1))
    assert result.ret == 0
    (simple,) = load_report(suite)["results"]
    (warning,) = simple["warnings"]  # once for the page, not once per metric
    assert warning.startswith("OmniDocBench's quick match gave up on this page (")
    assert f"over max_match_work={work - 1:,}" in warning
    assert simple["details"]["odb_text_edit"]["fallback"] in warning
    assert "warnings (1 items):" in result.stdout.str()
    assert simple["metrics"] != quick["metrics"]  # the simple match pairs the split paragraph otherwise
    # The simple match is bounded too: past it the page is not scored, the item's error says why.
    assert run(suite, "--ocr-report", "report.json", "--ocr-max-match-work", "1").ret == 1
    (unscored,) = load_report(suite)["results"]
    assert unscored["outcome"] == "error"
    assert unscored["error"].endswith(
        "OmniDocBench's simple match of the page's 5 ground-truth and 5 predicted blocks: the edit-distance matrix "
        "would take the match's work to 78, over max_match_work=1; the page is not scored (--ocr-max-match-work "
        "sets the bound)"
    )


def test_a_page_key_without_its_page_in_the_run_keeps_its_own_attributes(suite, bench):
    """made_quirk_tif.tif is filed under made_quirk.png's attributes when made_quirk.png is in the
    run (above); filtered out, the TIFF page keeps its own (OmniDocBench looks them up in the whole
    ground-truth file, and fails when no page has that name)."""
    _dataset(suite, bench, extra=", filter: {data_source: newspaper, layout: single_column}")
    suite.write("bench.ocr.yaml", (suite.path / "bench.ocr.yaml").read_text() + "defaults: {engine: [handmade]}\n")
    assert run(suite, "--ocr-report", "report.json").ret == 0
    report = load_report(suite)
    (item,) = report["results"]
    assert item["case"] == "made_quirk_tif"
    page = report["summary"]["handmade"]["omnidocbench"]["text_block"]["page"]["Edit_dist"]
    value = item["metrics"]["odb_text_edit"]
    assert page == {
        "ALL": value,
        "colorful_backgroud: False": value,
        "data_source: newspaper": value,
        "fuzzy_scan": value,
        "fuzzy_scan: True": value,
        "language: english": value,
        "layout: single_column": value,
        "watermark: False": value,
    }


def test_rescoring_the_dataset_gives_its_numbers_to_the_bit(suite, bench):
    """pytest-ocr rescore scores the stored outputs of a report again against the pages' ground
    truth, which the dataset reads again, without an engine: every value the same."""
    suite.write(
        "bench.ocr.yaml",
        f"dataset: {{type: omnidocbench, path: {json.dumps(str(bench))}}}\ndefaults: {{engine: [handmade]}}\n",
    )
    assert run(suite, "--ocr-report", "report.json").ret == 0
    done = subprocess.run(
        [sys.executable, "-m", "pytest_ocr.cli", "rescore", "report.json", "-o", "again.json"],
        cwd=suite.path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert f"{len(PAGES)} measured item(s) of report.json scored again; no engine ran" in done.stdout
    report, again = load_report(suite), load_report(suite, "again.json")
    assert {k: v for k, v in again.items() if k != "rescored"} == report


def test_a_table_beyond_the_teds_bound_scores_0_with_a_warning(suite):
    _case_suite(suite, f"{{layout_file: {json.dumps(str(ORACLE / 'pages.json'))}}}", "made_md_table.png")
    assert run(suite, "--ocr-report", "report.json", "--ocr-max-table-nodes", "5").ret == 0
    (item,) = load_report(suite)["results"]
    assert item["metrics"]["odb_table_teds"] == 0.0  # 0.92 within the bound (above)
    (why,) = item["details"]["odb_table_teds"]["not_compared"]
    assert why in item["warnings"] and "max_table_nodes" in why
