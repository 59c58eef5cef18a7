"""pytest-ocr's OmniDocBench scoring against OmniDocBench's own: for every page and engine of the
oracle fixture (tests/data/omnidocbench: our pages in its ground-truth format, three engines'
Markdown, and the result files its end-to-end evaluation wrote for them, make_expected.py), every
sample of every element equals the original's, and every page's edit distance and the dataset's
aggregates equal its values to 1e-6."""

from __future__ import annotations

import json
import math
import os
from collections import defaultdict
from functools import cache
from typing import Any

import pytest
from helpers.omnidocbench import DATA, fixture_pages

from pytest_ocr.metrics.omnidocbench.page import ELEMENTS, PageScores, Sample, score_page

ENGINES = ("olmocr", "handmade", "latex_tables")


def _prediction(engine: str, image: str) -> str | None:
    """The engine's Markdown for a page, found as OmniDocBench finds it (the image's name
    without its 4-character extension, .md); None: the engine has no output for it."""
    path = DATA / engine / f"{image[:-4]}.md"
    return path.read_text(encoding="utf-8") if path.exists() else None


def _cases() -> list[tuple[str, str]]:
    cases = []
    for engine in ENGINES:
        for page in fixture_pages():
            image = os.path.basename(page["page_info"]["image_path"])
            if _prediction(engine, image) is not None:
                cases.append((engine, image))
    return cases


@cache
def _expected(engine: str, name: str) -> Any:
    return json.loads((DATA / "expected" / engine / f"{engine}_quick_match_{name}.json").read_text(encoding="utf-8"))


@cache
def _scores(engine: str, image: str) -> PageScores:
    page = next(p for p in fixture_pages() if os.path.basename(p["page_info"]["image_path"]) == image)
    markdown = _prediction(engine, image)
    assert markdown is not None
    return score_page(page, markdown)


def _indices(value: Any) -> list[Any]:
    # A LaTeX table's emptied prediction has pred_idx "" where the others have a list.
    return list(value) if isinstance(value, list) else [value]


def _as_original(sample: Sample, original: dict[str, Any]) -> dict[str, Any]:
    """The sample's fields under the original's keys, those the original's entry has."""
    mine: dict[str, Any] = {
        "gt": sample.gt,
        "pred": sample.pred,
        "Edit_num": sample.edit_num,
        "upper_len": sample.upper_len,
    }
    if "gt_idx" in original:  # every element but reading order
        mine |= {
            "norm_gt": sample.norm_gt,
            "norm_pred": sample.norm_pred,
            "gt_idx": list(sample.gt_idx),
            "pred_idx": list(sample.pred_idx),
            "gt_category_type": sample.gt_category_type,
            "pred_category_type": sample.pred_category_type,
            "gt_attribute": list(sample.gt_attribute),
        }
    return json.loads(json.dumps(mine))


def _original(entry: dict[str, Any]) -> dict[str, Any]:
    keys = ("gt", "pred", "upper_len", "norm_gt", "norm_pred", "gt_category_type", "pred_category_type", "gt_attribute")
    original = {k: entry[k] for k in keys if k in entry}
    original["Edit_num"] = entry.get("Edit_num")  # absent when both sides are empty
    if "gt_idx" in entry:
        original["gt_idx"] = _indices(entry["gt_idx"])
        original["pred_idx"] = _indices(entry["pred_idx"])
    return original


@pytest.mark.parametrize(("engine", "image"), _cases())
@pytest.mark.parametrize("element", ELEMENTS)
def test_every_sample_equals_the_originals(engine: str, image: str, element: str) -> None:
    expected = [e for e in _expected(engine, f"{element}_result") if e["img_id"] == image]
    samples = _scores(engine, image).of(element)
    assert len(samples) == len(expected)
    for sample, entry in zip(samples, expected, strict=True):
        assert _as_original(sample, entry) == _original(entry)
        if element == "table":
            assert sample.teds == pytest.approx(entry["metric"]["TEDS"], abs=1e-9)
            assert sample.teds_struct == pytest.approx(entry["metric"]["TEDS_structure_only"], abs=1e-9)
        else:
            assert sample.teds is None and sample.teds_struct is None


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("element", ELEMENTS)
def test_every_page_value_and_aggregate_equals_the_originals(engine: str, element: str) -> None:
    # Counts are summed per edit group (the original's per-page key), then divided.
    groups: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    ratio_sum, scored, teds, teds_struct = 0.0, 0, [], []
    for case_engine, image in _cases():
        if case_engine != engine:
            continue
        scores = _scores(engine, image)
        counts = scores.edit_counts(element)
        groups[scores.edit_group][0] += counts.edits
        groups[scores.edit_group][1] += counts.upper
        ratio_sum += counts.ratio_sum
        scored += counts.samples
        teds += [s.teds for s in scores.of(element) if s.teds is not None]
        teds_struct += [s.teds_struct for s in scores.of(element) if s.teds_struct is not None]

    per_page = _expected(engine, f"{element}_per_page_edit")
    values = {group: edits / upper for group, (edits, upper) in groups.items() if upper}
    assert set(values) == {group for group, value in per_page.items() if not math.isnan(value)}
    for group, value in values.items():
        assert value == pytest.approx(per_page[group], abs=1e-6), group

    aggregates = _expected(engine, "metric_result")[element]["all"]
    if not values:
        assert aggregates["Edit_dist"] == {"ALL_page_avg": "NaN"}
        return
    edits = sum(e for e, _ in groups.values())
    upper = sum(u for _, u in groups.values())
    assert sum(values.values()) / len(values) == pytest.approx(aggregates["Edit_dist"]["ALL_page_avg"], abs=1e-6)
    assert edits / upper == pytest.approx(aggregates["Edit_dist"]["edit_whole"], abs=1e-6)
    assert ratio_sum / scored == pytest.approx(aggregates["Edit_dist"]["edit_sample_avg"], abs=1e-6)
    if element == "table":
        assert sum(teds) / len(teds) == pytest.approx(aggregates["TEDS"]["all"], abs=1e-6)
        assert sum(teds_struct) / len(teds_struct) == pytest.approx(aggregates["TEDS_structure_only"]["all"], abs=1e-6)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("element", ELEMENTS)
def test_the_block_attribute_groups_equal_the_originals(engine: str, element: str) -> None:
    # get_full_labels_results: each label's mean of each metric over the samples carrying it.
    scores: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for image in [image for case_engine, image in _cases() if case_engine == engine]:
        for sample in _scores(engine, image).of(element):
            values = {"TEDS": sample.teds, "TEDS_structure_only": sample.teds_struct, "Edit_dist": sample.edit}
            for label in sample.labels:
                for metric, value in values.items():
                    if value is not None:
                        scores[metric][label].append(value)
    expected = dict(_expected(engine, "metric_result")[element]["group"])
    counts = expected.pop("sample_count", {})
    assert {metric: set(by_label) for metric, by_label in scores.items()} == {
        metric: set(by_label) for metric, by_label in expected.items()
    }
    for metric, by_label in expected.items():
        for label, value in by_label.items():
            assert sum(scores[metric][label]) / len(scores[metric][label]) == pytest.approx(value, abs=1e-6)
            assert len(scores[metric][label]) == counts[label]


def test_the_fixture_holds_every_scored_page() -> None:
    # Each engine's result files hold samples of the pages it has an output for, and no other.
    for engine in ENGINES:
        images = {image for case_engine, image in _cases() if case_engine == engine}
        for element in ELEMENTS:
            assert {e["img_id"] for e in _expected(engine, f"{element}_result")} <= images
        assert {e["img_id"] for e in _expected(engine, "text_block_result")} == images - {
            image for image in images if not _scores(engine, image).of("text_block")
        }
