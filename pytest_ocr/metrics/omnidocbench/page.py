# Port of OmniDocBench's per-page end-to-end scoring: dataset/end2end_dataset.py
# (End2EndDataset: get_page_elements, process_get_matched_elements, get_order_paired and the
# per-sample part of get_matched_elements) and the per-sample values of metrics/cal_metric.py
# (call_Edit_dist, call_TEDS).
# Source: opendatalab/OmniDocBench, snapshot pichiu/OmniDocBench commit
# 7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d, Apache License 2.0 (its LICENSE).
"""One page's OmniDocBench v1.5 end-to-end scores: its Markdown split into blocks
(``extract.md_tex_filter``), matched to the page's ground truth (``match``), each matched
pair a ``Sample`` with the values OmniDocBench's result JSON holds for it.

What OmniDocBench decides over a whole dataset is decided here for the page:

- the format the predicted tables are normalised in. OmniDocBench's rule (latex when the
  dataset matched more LaTeX than HTML tables) compares the LaTeX matches with the HTML ones
  after appending the former to the latter, so it always decides html: tables are always
  normalised as HTML here. A LaTeX table in the output is matched, then scored as an empty
  prediction (its ``pred`` fields emptied), as OmniDocBench does.
- a display formula of the ground truth matched to a prediction that is not a formula
  becomes a text sample (its ``gt`` through pylatexenc's latex2text, ``norm_gt`` cleaned as
  text). OmniDocBench does so only when the dataset has at least one text sample; here
  always (a dataset without a single text sample is the one case that differs).

The quick match is bounded by work (``max_match_work``, see ``match``); a page that would
pass it is matched by OmniDocBench's simple method, as its 30 s timeout does, and
``PageScores.fallback`` says why.

Quirks of the original kept here (each changes numbers; the extraction's own are in ``extract``):

- A block whose cleaning leaves nothing is dropped from the lines but not from the blocks, so the
  positions, attributes and categories of the blocks after it are read one place off.
- Ground-truth blocks marked truncated into one another are joined with no space between them.
- Predictions within 0.25 (normalised edit distance) of an ignored block (header, footer, page
  number, caption, footnote, algorithm) are taken out before matching, whatever else they match.
- A prediction matched to no ground-truth block is dropped, never penalised; so are the ignored
  blocks and the predictions matched to them.
- A block's edit distance is recomputed on its joined cleaned strings (no separator), not the
  match's own distance (which joined predictions with a space).
- In the simple match (tables, and the fallback), a block matched to the page's first prediction
  gets no prediction category and no position (index 0 is read as "none").
- Predicted tables are matched to the ground truth's by the simple match on their raw HTML; the
  predicted tables left over are cut into cells, which join the text matching.
- Removing an unmatched inline formula's entry while iterating skips the entry after it, which
  then has no category and is dropped.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .clean import _latex_to_text, clean_string, normalized_table
from .extract import md_tex_filter
from .match import (
    IGNORED_CATEGORIES,
    TEXT_CATEGORIES,
    Item,
    Work,
    WorkExceeded,
    match_gt2pred_quick,
    match_gt2pred_simple,
)
from .truth import GroundTruthError, check

ELEMENTS = ("text_block", "display_formula", "table", "reading_order")

# The quick match's work bound (see match.py): a 200-block page whose output splits, merges,
# swaps and misspells paragraphs takes about 480,000 (0.4 s), OmniDocBench's largest demo page
# 220,000; at about 1 microsecond a unit on a 2-core machine, the bound stops a hostile output's
# quick match after some 10 s (benchmarks/bench_omnidocbench.py).
MAX_MATCH_WORK = 10_000_000

_MIXED_CATEGORIES = (*TEXT_CATEGORIES, "equation_isolated")


@dataclass(frozen=True)
class Sample:
    """One matched pair as OmniDocBench's ``*_result.json`` holds it. Reading order: ``gt``
    and ``pred`` are lists of ground-truth indices, ``norm_gt`` and ``norm_pred`` the same
    lists (it has no normalised form), no indices, categories nor attributes."""

    element: str
    gt: str | list[Any]
    pred: str | list[Any]
    norm_gt: str | list[Any]
    norm_pred: str | list[Any]
    gt_idx: tuple[Any, ...]
    pred_idx: tuple[Any, ...]
    gt_category_type: str
    pred_category_type: str
    gt_attribute: tuple[dict[str, Any], ...]
    edit_num: int | None  # Edit_dist's numerator; None when both sides are empty (no value)
    upper_len: int  # max(len(norm_pred or pred), len(norm_gt or gt))
    teds: float | None = None
    teds_struct: float | None = None

    @property
    def edit(self) -> float | None:
        return None if self.edit_num is None else self.edit_num / self.upper_len

    @property
    def labels(self) -> tuple[str, ...]:
        """The block-attribute labels OmniDocBench groups this sample under
        (``get_full_labels_results``): ``key: value`` of every merged block's attributes."""
        return tuple(sorted({f"{k}: {v}" for attribute in self.gt_attribute for k, v in attribute.items()}))


@dataclass(frozen=True)
class EditCounts:
    """A page's edit-distance counts for one element, which add up over pages:
    ``edits / upper`` is the page's value (``*_per_page_edit.json``), ``ratio_sum / samples``
    the mean of its samples' values."""

    edits: int
    upper: int
    ratio_sum: float
    samples: int

    @property
    def value(self) -> float | None:
        return self.edits / self.upper if self.upper else None


@dataclass(frozen=True)
class PageScores:
    """A page's samples. ``page``: the image's basename (OmniDocBench's ``img_id``);
    ``fallback``: why the
    simple match was used (None: the quick match was); ``match_work``: the work the quick
    match did (when it fell back, before it stopped), against ``max_match_work``;
    ``not_compared``: why a table pair beyond TEDS's bounds scored 0 (see ``teds_pair``);
    ``attributes``: the page's attributes as OmniDocBench's page split names them
    (``page_attributes``)."""

    page: str
    samples: tuple[Sample, ...]
    fallback: str | None
    match_work: int = 0
    not_compared: tuple[str, ...] = ()
    attributes: tuple[str, ...] = ()

    def of(self, element: str) -> tuple[Sample, ...]:
        return tuple(s for s in self.samples if s.element == element)

    def edit_counts(self, element: str) -> EditCounts:
        scored = [s for s in self.of(element) if s.edit_num is not None]
        return EditCounts(
            sum(s.edit_num for s in scored if s.edit_num is not None),
            sum(s.upper_len for s in scored),
            sum(s.edit for s in scored if s.edit is not None),
            len(scored),
        )

    @property
    def edit_group(self) -> str:
        """The key OmniDocBench's per-page edit distance groups this page's samples under.
        Quirk: the image name when it ends in .jpg or .png, else the name up to its last
        ``_`` (so ``doc_1.jpeg`` and ``doc_2.jpeg`` make one "page", ``doc``)."""
        if self.page.endswith(".jpg") or self.page.endswith(".png"):
            return self.page
        return "_".join(self.page.split("_")[:-1])

    @property
    def split_page(self) -> str:
        """The page whose attributes OmniDocBench's page split (metrics/show_result.py:
        get_page_split) files this page's samples under, pooled with every page of that key.
        Quirk: the image name without its last four characters when it ends in .jpg or .png,
        else as ``edit_group`` (``made_quirk_tif.tif`` is filed under ``made_quirk.png``)."""
        return self.page[:-4] if self.page.endswith((".jpg", ".png")) else self.edit_group

    @property
    def name(self) -> str:
        """The page's own key in the split's table of attributes (task/end2end_run_eval.py:
        the image name without its last four characters, whatever they are)."""
        return self.page[:-4]


def page_attributes(page: dict[str, Any]) -> tuple[str, ...]:
    """The names get_page_split (metrics/show_result.py) gives a page's attributes:
    ``key: value``, a list's entries alone (special issues), those containing "table" left out."""
    names: list[str] = []
    for key, value in page["page_info"].get("page_attribute", {}).items():
        if isinstance(value, list):
            names += [entry for entry in value if "table" not in entry]
        else:
            names.append(f"{key}: {value}")
    return tuple(dict.fromkeys(names))


def score_page(page: dict[str, Any], markdown: str, *, max_match_work: int = MAX_MATCH_WORK) -> PageScores:
    """OmniDocBench v1.5's end-to-end samples of one page: ``page`` is one element of its
    ground-truth JSON list (``layout_dets``, ``page_info``, ``extra.relation``), ``markdown``
    the page's predicted Markdown. ``max_match_work``: the quick match's bound (see
    ``match``); past it the simple match is used and ``fallback`` says why. Raises
    GroundTruthError for a page the scorer cannot read as OmniDocBench means it (``truth``)."""
    check(page)
    img_name = os.path.basename(page["page_info"]["image_path"])
    work = Work(max_match_work)
    plain, formulas, latex_tables, html_tables, order, fallback = _matched_elements(page, markdown, img_name, work)

    # get_matched_elements, for one page (see the module's docstring)
    text_samples = list(plain)
    display = []
    for item in formulas:
        if item.get("pred_category_type", None) not in ["equation_inline", "equation_isolated", ""]:
            item["gt"] = _latex_to_text(item["gt"])
            item["norm_gt"] = clean_string(item["gt"])
            text_samples.append(item)
        else:
            display.append(item)
    for latex_table in latex_tables:
        for k in latex_table:
            if "pred" in k:
                latex_table[k] = ""
        latex_table["edit"] = 1
    tables = html_tables + latex_tables
    for table in tables:
        table["norm_gt"] = normalized_table(table["gt"])
        table["norm_pred"] = normalized_table(table["pred"])

    samples = [_sample("text_block", s) for s in text_samples]
    samples += [_sample("display_formula", s) for s in display]
    not_compared = []
    for table in tables:
        sample, why = _table_sample(table)
        samples.append(sample)
        if why:
            not_compared.append(why)
    if order:
        samples.append(_sample("reading_order", order))
    return PageScores(img_name, tuple(samples), fallback, work.done, tuple(not_compared), page_attributes(page))


def get_page_elements(selected_annos: dict[str, Any]) -> defaultdict[str, list[Item]]:
    # port of dataset/end2end_dataset.py: End2EndDataset.get_page_elements (truncated blocks merged)
    saved_element_dict: defaultdict[str, list[Item]] = defaultdict(list)
    related_truncated: list[list[Any]] = []
    truncated_all: dict[Any, Any] = {}
    for relation in selected_annos["extra"]["relation"]:
        if relation["relation_type"] == "truncated":
            truncated_all[relation["source_anno_id"]] = ""
            truncated_all[relation["target_anno_id"]] = ""
            exist_flag = False
            for merge_list in related_truncated:
                if relation["source_anno_id"] in merge_list or relation["target_anno_id"] in merge_list:
                    merge_list.append(relation["source_anno_id"])
                    merge_list.append(relation["target_anno_id"])
                    exist_flag = True
            if not exist_flag:
                related_truncated.append([relation["source_anno_id"], relation["target_anno_id"]])

    for item in selected_annos["layout_dets"]:
        if item["anno_id"] not in truncated_all:
            saved_element_dict[item["category_type"]].append(item)
        else:
            truncated_all[item["anno_id"]] = item

    for merge_list in related_truncated:
        text_block_list = [truncated_all[key] for key in merge_list]
        sorted_block = sorted(text_block_list, key=lambda x: x["order"])
        text = ""
        for block in sorted_block:
            text += block["text"]
        merged_block = {
            "category_type": sorted_block[0]["category_type"],
            "order": sorted_block[0]["order"],
            "anno_id": sorted_block[0]["anno_id"],
            "text": text,
            "merge_list": sorted_block,
        }
        saved_element_dict[sorted_block[0]["category_type"]].append(merged_block)
    return saved_element_dict


def _elements_of(gt_page_elements: dict[str, list[Item]], category_list: Sequence[str]) -> list[Item]:
    # port of End2EndDataset.get_page_elements_list
    element_list = []
    for category_type in category_list:
        if gt_page_elements.get(category_type):
            element_list.extend(gt_page_elements[category_type])
    return element_list


def _sorted_by_order(selected_annos: list[Item]) -> list[Item]:
    # port of End2EndDataset.get_sorted_text_list (a block without an order sorts as 0)
    return sorted(selected_annos, key=lambda item: item["order"] if item.get("order") else 0)


def get_order_paired(order_match_s: list[Item], img_name: str) -> Item:
    # port of End2EndDataset.get_order_paired
    matched = [
        (item["gt_position"], item["pred_position"])
        for item in order_match_s
        if (item["gt_position"] != [""] and item["pred_position"] != "")
    ]
    gt_idx_all = [item["gt_position"] for item in order_match_s if (item["gt_position"] != [""])]
    read_order_pred = [i[0] for i in sorted(matched, key=lambda x: x[1])]
    read_order_gt: list[Any] = sum(gt_idx_all, [])
    read_order_gt = [x for x in read_order_gt if x]
    gt = sorted(read_order_gt)
    pred: list[Any] = sum(read_order_pred, [])
    pred = [x for x in pred if x]
    if len(pred) > 0 or len(gt) > 0:
        return {"gt": gt, "pred": pred, "img_id": img_name}
    return {}


def _matched_elements(
    sample: dict[str, Any], pred_content: str, img_name: str, work: Work
) -> tuple[list[Item], list[Item], list[Item], list[Item], Item, str | None]:
    # port of End2EndDataset.process_get_matched_elements (quick_match)
    pred_dataset = md_tex_filter(pred_content)
    gt_page_elements = get_page_elements(sample)

    pred_dataset_mix: list[Item] = []
    for category in pred_dataset:
        if category not in ["html_table", "latex_table", "md2html_table"]:
            pred_dataset_mix.extend(pred_dataset[category])
    gt_mix = _elements_of(gt_page_elements, _MIXED_CATEGORIES)
    if gt_mix:
        gt_mix = _sorted_by_order(gt_mix)

    latex_table_match_s: list[Item] = []
    html_table_match_s: list[Item] = []
    if gt_page_elements.get("table"):
        gt_table = _sorted_by_order(gt_page_elements["table"])
        latex_preds = pred_dataset.get("latex_table") or []
        html_preds = pred_dataset.get("html_table") or []
        if len(latex_preds) == len(html_preds) == 0:
            html_table_match_s, unmatch_table_pred = match_gt2pred_simple(
                gt_table, [], "html_table", img_name, work.bound
            )
            html_table_match_s = [x for x in html_table_match_s if x["gt_idx"] != [""]]
        elif len(latex_preds) > len(html_preds):
            _check_table_latex(sample, gt_table)
            latex_table_match_s, unmatch_table_pred = match_gt2pred_simple(
                gt_table, latex_preds, "latex_table", img_name, work.bound
            )
            latex_table_match_s = [x for x in latex_table_match_s if x["gt_idx"] != [""]]
        else:
            html_table_match_s, unmatch_table_pred = match_gt2pred_simple(
                gt_table, html_preds, "html_table", img_name, work.bound
            )
            html_table_match_s = [x for x in html_table_match_s if x["gt_idx"] != [""]]
        if unmatch_table_pred:
            pred_dataset_mix.extend(unmatch_table_pred)

    fallback = None
    try:
        match = match_gt2pred_quick(gt_mix, pred_dataset_mix, img_name, work)
    except WorkExceeded as exceeded:
        fallback = f"the quick match stopped: {exceeded}; OmniDocBench's simple match was used"
        match, _ = match_gt2pred_simple(gt_mix, pred_dataset_mix, "text_all", img_name, work.bound)

    plain_text_match_s = []
    display_formula_match_s = []
    for item in match:
        gt_category = item.get("gt_category_type", None)
        if gt_category in TEXT_CATEGORIES:
            plain_text_match_s.append(item)
        elif gt_category == "equation_isolated":
            display_formula_match_s.append(item)
    display_formula_match_s = [x for x in display_formula_match_s if x["gt_idx"] != [""]]

    # Quirk: the ignored categories are dropped only here, after matching, with the
    # predictions matched to them; predictions matched to nothing are dropped too (never penalised).
    plain_text_match_clean = [x for x in plain_text_match_s if x["gt_category_type"] not in IGNORED_CATEGORIES]
    order_match_single: Item = {}
    if plain_text_match_clean:
        order_match_single = get_order_paired(plain_text_match_clean, img_name)
    return (
        plain_text_match_clean,
        display_formula_match_s,
        latex_table_match_s,
        html_table_match_s,
        order_match_single,
        fallback,
    )


def _check_table_latex(page: dict[str, Any], tables: list[Item]) -> None:
    """The ground truth's tables are matched on their LaTeX when the output's are mostly LaTeX
    (get_gt_pred_lines reads ``latex``, which a page may leave out when its output has HTML tables)."""
    for table in tables:
        if not table.get("content") and "latex" not in table:
            index = next(i for i, block in enumerate(page["layout_dets"]) if block is table)
            raise GroundTruthError(
                f"OmniDocBench ground truth: layout_dets[{index}].latex: expected the table's LaTeX (a string): "
                "the output's tables are LaTeX, which OmniDocBench matches with the ground truth's LaTeX; got nothing"
            )


def _edit(gt: Any, pred: Any) -> tuple[int | None, int]:
    """call_Edit_dist's numerator and denominator of one sample (its inputs already chosen)."""
    from rapidfuzz.distance import Levenshtein

    upper_len = max(len(pred), len(gt))
    if len(pred) > 0 or len(gt) > 0:
        return int(Levenshtein.distance(pred, gt)), upper_len
    return None, upper_len


def _sample(element: str, item: Item) -> Sample:
    # The metric's inputs, as call_Edit_dist chooses them: the normalised text when not empty.
    gt = item["norm_gt"] if item.get("norm_gt") else item["gt"]
    pred = item["norm_pred"] if item.get("norm_pred") else item["pred"]
    edit_num, upper_len = _edit(gt, pred)
    if element == "reading_order":
        return Sample(element, item["gt"], item["pred"], gt, pred, (), (), "", "", (), edit_num, upper_len)
    return Sample(
        element,
        item["gt"],
        item["pred"],
        item["norm_gt"],
        item["norm_pred"],
        tuple(item["gt_idx"]),
        tuple(item["pred_idx"]) if isinstance(item["pred_idx"], (list, range)) else (item["pred_idx"],),
        item["gt_category_type"],
        item["pred_category_type"],
        tuple(item["gt_attribute"]),
        edit_num,
        upper_len,
    )


def teds_pair(pred: str, true: str, structure_only: bool = False) -> tuple[float, str | None]:
    """OmniDocBench's TEDS of two normalised tables (``metrics/table_metric.py``, PubTabNet's,
    as ``call_TEDS`` calls it: an error scores 0), computed with pytest-ocr's TEDS trees and
    APTED costs (``metrics/teds.py``), which equal PubTabNet's on these tables (no ``<th>``
    is left by the normalisation; spans are checked as PubTabNet reads them). The
    denominator is PubTabNet's count of the elements under ``<table>``, nested tables
    included, where pytest-ocr's own ``teds`` leaves a nested table's elements out.

    Bounded as pytest-ocr's ``teds`` is (the original is not): a pair with a table of more
    than ``max_table_nodes`` nodes, or more than ``max_align_chars`` units of cell text, is
    not compared and scores 0; the second value says why (None: compared)."""
    from lxml import html  # type: ignore[import-untyped]

    from ..align import max_align_chars
    from ..teds import max_table_nodes, table_tree, tree_distance

    if (not pred) or (not true):
        return 0.0, None
    try:
        parser = html.HTMLParser(remove_comments=True, encoding="utf-8")
        tables = [html.fromstring(side, parser=parser).xpath("body/table") for side in (pred, true)]
        if not (tables[0] and tables[1]):
            return 0.0, None
        pred_table, true_table = tables[0][0], tables[1][0]
        for table in (pred_table, true_table):
            for cell in table.iter("td"):  # PubTabNet's int() of each cell's spans, which may raise
                int(cell.attrib.get("colspan", "1")), int(cell.attrib.get("rowspan", "1"))
        n_nodes = max(len(pred_table.xpath(".//*")), len(true_table.xpath(".//*")))
        trees = [table_tree(pred_table, structure_only), table_tree(true_table, structure_only)]
    except MemoryError:  # the process's, not the table's: never a 0
        raise
    except Exception:  # call_TEDS: "TEDS score error ... The score is set to 0."
        return 0.0, None
    node_limit, text_limit = max_table_nodes(None), max_align_chars(None)
    for side, tree in zip(("predicted", "ground-truth"), trees, strict=True):
        if tree.size > node_limit or tree.text > text_limit:
            return 0.0, (
                f"TEDS: the {side} table has {tree.size:,} nodes and {tree.text:,} units of cell text, more than "
                f"{node_limit:,} (max_table_nodes) or {text_limit:,} (max_align_chars); not compared, scored 0"
            )
    if n_nodes == 0:
        return 0.0, None  # PubTabNet divides by zero: an error, 0
    return 1.0 - (float(tree_distance(*trees)) / n_nodes), None


def _table_sample(item: Item) -> tuple[Sample, str | None]:
    from dataclasses import replace

    sample = _sample("table", item)
    gt = item["norm_gt"] if item.get("norm_gt") else item["gt"]
    pred = item["norm_pred"] if item.get("norm_pred") else item["pred"]
    (teds, why), (teds_struct, _) = teds_pair(pred, gt), teds_pair(pred, gt, structure_only=True)
    return replace(sample, teds=teds, teds_struct=teds_struct), why
