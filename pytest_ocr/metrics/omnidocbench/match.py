# Port of OmniDocBench's matching of a page's ground-truth blocks to its predicted blocks:
# utils/match_quick.py (match_gt2pred_quick and its helpers) and the parts of utils/match.py it
# uses (get_gt_pred_lines, compute_edit_distance_matrix_new, match_gt2pred_simple).
# Source: opendatalab/OmniDocBench, snapshot pichiu/OmniDocBench commit
# 7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d, Apache License 2.0 (its LICENSE).
"""OmniDocBench's ``quick_match`` of ground-truth blocks to predicted blocks, ported as
written, its quirks included (see ``page.py`` for the list users are told about).

The dicts OmniDocBench passes between its functions stay dicts here, with its keys; only
``page.py``'s results leave the package, typed.

Two replacements, each giving the same values as the original:

- ``Levenshtein.distance`` (python-Levenshtein) is rapidfuzz's, identical on strings and
  on lists; a row of distances is computed at once (``process.cdist``) and divided as the
  original divides, so each float is the same.
- OmniDocBench stops the quick match after 30 s of wall-clock time (``func_timeout``) and
  falls back to ``match_gt2pred_simple``. Here the bound is on work, so the same inputs
  always give the same numbers: ``Work`` counts the edit distances the quick match
  computes, each as ``1 + len(a) * len(b) // 4096`` (a 64 x 64 block of characters is one
  machine word's worth of rapidfuzz's bit-parallel algorithm), and raises ``WorkExceeded``
  before the step that would pass ``max_match_work``; ``page.py`` then falls back to the
  simple match as the original's timeout does. Below the bound nothing changes. The simple
  match is bounded by the same work (``MatchTooLarge`` past it): unbounded, its one matrix of
  a long output against a large page would hold a number per pair of blocks.
"""

from __future__ import annotations

import copy
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from ...errors import OcrError
from . import require
from .clean import clean_string, normalized_formula, textblock2unicode

Item = dict[str, Any]

# The ground-truth categories the quick match first matches on their own (loosely, < 0.25)
# and that End2EndDataset later drops from the text samples.
IGNORED_CATEGORIES = (
    "figure_caption",
    "figure_footnote",
    "table_caption",
    "table_footnote",
    "code_algorithm",
    "code_algorithm_caption",
    "header",
    "footer",
    "page_footnote",
    "page_number",
    "equation_caption",
)

# The text categories in the original's order, which orders blocks of equal "order" (see page.py).
TEXT_CATEGORIES = ("text_block", "title", "code_txt", "code_txt_caption", "reference", "equation_caption") + tuple(
    c for c in IGNORED_CATEGORIES if c != "equation_caption"
)


class WorkExceeded(Exception):
    """The quick match would pass its work bound (``max_match_work``)."""

    def __init__(self, needed: int, bound: int, step: str) -> None:
        super().__init__(f"{step} would take the match's work to {needed:,}, over max_match_work={bound:,}")
        self.needed = needed
        self.bound = bound
        self.step = step


class MatchTooLarge(OcrError):
    """A page whose simple match, the quick match's fallback, would pass ``max_match_work`` too: not scored."""


class Work:
    """The work the quick match has done, against its bound (see the module's docstring)."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self.done = 0

    def spend(self, units: int, step: str) -> None:
        if self.done + units > self.bound:
            raise WorkExceeded(self.done + units, self.bound, step)
        self.done += units


def linear_sum_assignment(cost_matrix: Any) -> tuple[Any, Any]:
    """scipy's, which breaks ties as OmniDocBench's matches need (the ``omnidocbench`` extra)."""
    return require("scipy.optimize").linear_sum_assignment(cost_matrix)


def _pair_work(a: int, b: int) -> int:
    return 1 + a * b // 4096


def _matrix_work(rows: Sequence[str], columns: Sequence[str]) -> int:
    """The work of every edit distance between rows and columns, in O(rows + columns)."""
    cells = len(rows) * len(columns)
    return cells + sum(len(r) for r in rows) * sum(len(c) for c in columns) // 4096


def _distance(a: Any, b: Any, work: Work | None, step: str) -> int:
    if work is not None:
        work.spend(_pair_work(len(a), len(b)), step)
    return int(Levenshtein.distance(a, b))


def get_pred_category_type(pred_idx: int, pred_items: Sequence[Item]) -> str:
    # port of utils/match.py: get_pred_category_type
    if pred_items[pred_idx].get("fine_category_type"):
        pred_pred_category_type = pred_items[pred_idx]["fine_category_type"]
    else:
        pred_pred_category_type = pred_items[pred_idx]["category_type"]
    return str(pred_pred_category_type)


def compute_edit_distance_matrix_new(
    gt_lines: Sequence[str], matched_lines: Sequence[str], work: Work | None = None
) -> np.ndarray:
    # port of utils/match.py: compute_edit_distance_matrix_new
    if work is not None:
        # The bound is checked before the matrix (the sum over pairs is at most this).
        work.spend(_matrix_work(gt_lines, matched_lines), "the edit-distance matrix")
    if not gt_lines or not matched_lines:
        return np.zeros((len(gt_lines), len(matched_lines)))
    # One float matrix, divided in place a row at a time: the simple match of a long output
    # holds one number per pair, not four.
    matrix = process.cdist(
        list(gt_lines), list(matched_lines), scorer=Levenshtein.distance, dtype=np.float64, workers=1
    )
    columns = np.array([len(line) for line in matched_lines], dtype=np.float64)
    for row, line in zip(matrix, gt_lines, strict=True):
        upper = np.maximum(columns, len(line))
        # IEEE division of two exact integers is correctly rounded, as Python's int / int is: the
        # same floats as the original's; two empty lines are 0 apart, as there.
        np.divide(row, upper, out=row, where=upper > 0)
    return matrix


def get_gt_pred_lines(
    gt_mix: list[Item], pred_dataset_mix: list[Item], line_type: str | None
) -> tuple[list[str], list[str], list[str], list[str], list[str], list[Item], list[Item]]:
    # port of utils/match.py: get_gt_pred_lines
    norm_html_lines: list[str] = []
    gt_lines: list[str] = []
    pred_lines: list[str] = []
    norm_gt_lines: list[str] = []
    norm_pred_lines: list[str] = []
    gt_cat_list: list[str] = []
    if line_type in ["html_table", "latex_table"]:
        for item in gt_mix:
            if item.get("fine_category_type"):
                gt_cat_list.append(item["fine_category_type"])
            else:
                gt_cat_list.append(item["category_type"])
            if item.get("content"):
                gt_lines.append(str(item["content"]))
                norm_html_lines.append(str(item["content"]))
            elif line_type == "html_table":
                gt_lines.append(str(item["html"]))
            elif line_type == "latex_table":
                gt_lines.append(str(item["latex"]))
                norm_html_lines.append(str(item["html"]))
        pred_lines = [str(item["content"]) for item in pred_dataset_mix]
        norm_gt_lines = gt_lines
        norm_pred_lines = pred_lines
        if line_type == "latex_table":
            gt_lines = norm_html_lines
    else:
        for item in pred_dataset_mix:
            if item["category_type"] == "text_all":
                pred_lines.append(str(item["content"]))
                norm_pred_lines.append(clean_string(textblock2unicode(str(item["content"]))))
            elif item["category_type"] == "equation_isolated":
                pred_lines.append(str(item["content"]))
                norm_pred_lines.append(normalized_formula(str(item["content"])))
            else:
                pred_lines.append(str(item["content"]))
                norm_pred_lines.append(str(item["content"]))
        for item in gt_mix:
            if item.get("content"):
                gt_lines.append(str(item["content"]))
                if item["category_type"] == "text_all":
                    norm_gt_lines.append(clean_string(textblock2unicode(str(item["content"]))))
                else:
                    norm_gt_lines.append(item["content"])
                norm_html_lines.append(str(item["content"]))
                if item.get("fine_category_type"):
                    gt_cat_list.append(item["fine_category_type"])
                else:
                    gt_cat_list.append(item["category_type"])
            elif item["category_type"] in TEXT_CATEGORIES:
                gt_lines.append(str(item["text"]))
                norm_gt_lines.append(clean_string(textblock2unicode(str(item["text"]))))
                if item.get("fine_category_type"):
                    gt_cat_list.append(item["fine_category_type"])
                else:
                    gt_cat_list.append(item["category_type"])
            elif item["category_type"] == "equation_isolated":
                gt_lines.append(str(item["latex"]))
                norm_gt_lines.append(normalized_formula(str(item["latex"])))
                if item.get("fine_category_type"):
                    gt_cat_list.append(item["fine_category_type"])
                else:
                    gt_cat_list.append(item["category_type"])

    # Quirk: lines emptied here (by the cleaning) are dropped, but gt_mix and pred_dataset_mix
    # are returned whole, so later indices into them (positions, attributes, categories of
    # predictions) shift by the number of lines dropped before.
    gt_kept = [(a, b, c) for a, b, c in zip(gt_lines, norm_gt_lines, gt_cat_list, strict=False) if a and b]
    pred_kept = [(a, b) for a, b in zip(pred_lines, norm_pred_lines, strict=False) if a and b]
    return (
        [a for a, _, _ in gt_kept],
        [b for _, b, _ in gt_kept],
        [c for _, _, c in gt_kept],
        [a for a, _ in pred_kept],
        [b for _, b in pred_kept],
        gt_mix,
        pred_dataset_mix,
    )


def _gt_position(item: Item) -> Any:
    return item.get("order") if item.get("order") else item.get("position", [""])[0]


def _unmatched_predictions(
    pred_idx_list: Sequence[int],
    pred_lines: list[str],
    norm_pred_lines: list[str],
    pred_items: list[Item],
    img_name: str,
) -> Item:
    """The simple match's one entry for the predictions it matched to nothing, concatenated."""
    return {
        "gt_idx": [""],
        "gt": "",
        "pred_idx": pred_idx_list,
        "pred": "".join(pred_lines[_] for _ in pred_idx_list),
        "gt_position": [""],
        "pred_position": pred_items[pred_idx_list[0]]["position"][0],  # the first prediction's
        "norm_gt": "",
        "norm_pred": "".join(norm_pred_lines[_] for _ in pred_idx_list),
        "gt_category_type": "",
        "pred_category_type": get_pred_category_type(pred_idx_list[0], pred_items),
        "gt_attribute": [{}],
        "edit": 1,
        "img_id": img_name,
    }


def _unmatched_block(
    gt_idx: int,
    gt_lines: list[str],
    norm_gt_lines: list[str],
    gt_cat_list: list[str],
    gt_items: list[Item],
    img_name: str,
) -> Item:
    """The entry of a ground-truth block matched to nothing (a page without predictions)."""
    return {
        "gt_idx": [gt_idx],
        "gt": gt_lines[gt_idx],
        "pred_idx": [""],
        "pred": "",
        "gt_position": [_gt_position(gt_items[gt_idx])],
        "pred_position": "",
        "norm_gt": norm_gt_lines[gt_idx],
        "norm_pred": "",
        "gt_category_type": gt_cat_list[gt_idx],
        "pred_category_type": "",
        "gt_attribute": [gt_items[gt_idx].get("attribute", {})],
        "edit": 1,
        "img_id": img_name,
    }


def match_gt2pred_simple(
    gt_items: list[Item], pred_items: list[Item], line_type: str, img_name: str, bound: int | None = None
) -> tuple[list[Item], list[Item] | None]:
    # port of utils/match.py: match_gt2pred_simple. ``bound``: the work its edit-distance
    # matrix may take (as the quick match's), else MatchTooLarge: unbounded, a long output's
    # matrix against a large page would take the memory of one number per pair.
    gt_lines, norm_gt_lines, gt_cat_list, pred_lines, norm_pred_lines, gt_items, pred_items = get_gt_pred_lines(
        gt_items, pred_items, line_type
    )
    match_list: list[Item] = []

    pred_idx_list: Sequence[int]
    if not norm_gt_lines:  # the unmatched predictions, concatenated
        pred_idx_list = range(len(norm_pred_lines))
        # Raises IndexError with no prediction either, as the original does (a page whose
        # ground-truth tables all have empty HTML, and no table in its output).
        match_list.append(_unmatched_predictions(pred_idx_list, pred_lines, norm_pred_lines, pred_items, img_name))
        return match_list, None
    elif not norm_pred_lines:
        match_list = [
            _unmatched_block(gt_idx, gt_lines, norm_gt_lines, gt_cat_list, gt_items, img_name)
            for gt_idx in range(len(norm_gt_lines))
        ]
        return match_list, None

    try:
        cost_matrix = compute_edit_distance_matrix_new(
            norm_gt_lines, norm_pred_lines, None if bound is None else Work(bound)
        )
    except WorkExceeded as exceeded:
        raise MatchTooLarge(
            f"OmniDocBench's simple match of the page's {len(norm_gt_lines):,} ground-truth and "
            f"{len(norm_pred_lines):,} predicted {'tables' if 'table' in line_type else 'blocks'}: {exceeded}; "
            "the page is not scored (--ocr-max-match-work sets the bound)"
        ) from None
    row_ind, col_ind = linear_sum_assignment(cost_matrix)
    rows = list(row_ind)

    for gt_idx in range(len(norm_gt_lines)):
        pred_idx: Any
        if gt_idx in row_ind:
            row_i = rows.index(gt_idx)
            pred_idx = int(col_ind[row_i])
            pred_line = pred_lines[pred_idx]
            norm_pred_line = norm_pred_lines[pred_idx]
            edit = cost_matrix[gt_idx][pred_idx]
        else:
            pred_idx = ""
            pred_line = ""
            norm_pred_line = ""
            edit = 1
        match_list.append(
            {
                "gt_idx": [gt_idx],
                "gt": gt_lines[gt_idx],
                "norm_gt": norm_gt_lines[gt_idx],
                "gt_category_type": gt_cat_list[gt_idx],
                "gt_position": [_gt_position(gt_items[gt_idx])],
                "gt_attribute": [gt_items[gt_idx].get("attribute", {})],
                "pred_idx": [pred_idx],
                "pred": pred_line,
                "norm_pred": norm_pred_line,
                # Quirk: prediction 0 is falsy, so a ground truth matched to the first
                # prediction gets no category and no position.
                "pred_category_type": get_pred_category_type(pred_idx, pred_items) if pred_idx else "",
                "pred_position": pred_items[pred_idx]["position"][0] if pred_idx else "",
                "edit": edit,
                "img_id": img_name,
            }
        )

    pred_idx_list = [pred_idx for pred_idx in range(len(norm_pred_lines)) if pred_idx not in col_ind]
    if pred_idx_list:
        if line_type in ["html_table", "latex_table"]:
            # The unmatched predicted tables, cell by cell, join the text match.
            BeautifulSoup = require("bs4").BeautifulSoup
            unmatch_table_pred = []
            for i in pred_idx_list:
                original_item = pred_items[i]
                soup = BeautifulSoup(original_item.get("content"), "html.parser")
                text_block = [
                    re.sub(r"\$\\cdot\$", "", item.string).strip() for item in soup.find_all("td") if item.string
                ]
                for concatenate_text in text_block:
                    new_item = copy.deepcopy(original_item)
                    new_item["content"] = concatenate_text
                    new_item["category_type"] = "text_all"
                    unmatch_table_pred.append(new_item)
            return match_list, unmatch_table_pred
        else:
            match_list.append(_unmatched_predictions(pred_idx_list, pred_lines, norm_pred_lines, pred_items, img_name))
    return match_list, None


# -- the quick match (utils/match_quick.py) ---------------------------------------------------

ARRAY_RE = re.compile(r"\\begin\{array\}\{(?P<spec>[^}]*)\}(?P<body>.*?)\\end\{array\}", re.S)


def is_all_l(spec: str) -> bool:
    # port of utils/match_quick.py: is_all_l (a one-column array: l, c or r)
    spec = re.sub(r"\s+|\|", "", spec)
    spec = re.sub(r"@{[^}]*}", "", spec)
    spec = re.sub(r"!{[^}]*}", "", spec)
    return bool(spec) and len(spec) == 1 and spec in {"l", "c", "r"}


def split_gt_equation_arrays(data: list[Item]) -> list[Item]:
    # port of utils/match_quick.py: split_gt_equation_arrays
    output = []
    for item in data:
        if item.get("category_type") == "equation_isolated" and "\\begin{array" in item.get("latex", ""):
            match = ARRAY_RE.search(item["latex"])
            if match:
                spec = match.group("spec")
                if not is_all_l(spec):
                    output.append(item)
                    continue
                body = match.group("body")
                lines = [ln.strip() for ln in re.split(r"\\\\", body) if ln.strip()]
                base_order = float(item["order"])
                for idx, line in enumerate(lines, start=1):
                    new_item = copy.deepcopy(item)
                    new_item["latex"] = f"\\[{line}\\]"
                    new_item["order"] = round(base_order + idx / 10, 1)
                    output.append(new_item)
                continue
        output.append(item)
    return output


def _wrap(line: str) -> str:
    return f"\\[{line.strip()}\\]"


def split_equation_arrays(data: list[Item]) -> list[Item]:
    # port of utils/match_quick.py: split_equation_arrays
    out: list[Item] = []
    for item in data:
        if item.get("category_type") == "equation_isolated" and "\\begin{array" in item.get("content", ""):
            content = item["content"]
            m = ARRAY_RE.search(content)
            if not m:
                out.append(item)
                continue
            if not is_all_l(m.group("spec")):
                out.append(item)
                continue
            body = m.group("body")
            lines = [ln.strip() for ln in re.split(r"\\\\", body) if ln.strip()]
            pos_key = "position" if "position" in item else "positions"
            global_start = item[pos_key][0]
            body_start_in_content = m.start("body")
            search_from = 0
            for ln in lines:
                idx_in_body = body.find(ln, search_from)
                if idx_in_body == -1:
                    idx_in_body = search_from
                search_from = idx_in_body + len(ln)
                line_start_global = global_start + body_start_in_content + idx_in_body
                line_end_global = line_start_global + len(ln) - 1
                new_item = copy.deepcopy(item)
                new_item["content"] = _wrap(ln)
                new_item[pos_key] = [line_start_global, line_end_global]
                out.append(new_item)
            continue
        out.append(item)
    return out


def sort_by_position_skip_inline(items: list[Item]) -> list[tuple[int, Item]]:
    # port of utils/match_quick.py: sort_by_position_skip_inline (inline formulas last)
    return sorted(
        enumerate(items),
        key=lambda pair: (pair[1].get("fine_category_type") == "equation_inline", pair[1]["position"][0], pair[0]),
    )


def _categorise(entry: Item, gt_idx: list[Any], cat_list: list[str]) -> str:
    """The most common ground-truth category of an entry, ignored categories last."""
    clean = [cat_list[_] for _ in gt_idx if cat_list[_] not in IGNORED_CATEGORIES]
    if clean:
        return Counter(clean).most_common(1)[0][0]
    return Counter([cat_list[_] for _ in gt_idx]).most_common(1)[0][0]


def match_gt2pred_quick(gt_items: list[Item], pred_items: list[Item], img_name: str, work: Work) -> list[Item]:
    # port of utils/match_quick.py: match_gt2pred_quick (line_type is unused there)
    gt_items = split_gt_equation_arrays(gt_items)
    pred_items = [pair[1] for pair in sort_by_position_skip_inline(pred_items)]
    pred_items = split_equation_arrays(pred_items)

    gt_lines, norm_gt_lines, gt_cat_list, pred_lines, norm_pred_lines, gt_items, pred_items = get_gt_pred_lines(
        gt_items, pred_items, None
    )

    if not norm_gt_lines:
        return [
            {
                "gt_idx": [""],
                "gt": "",
                "pred_idx": [pred_idx],
                "pred": pred_lines[pred_idx],
                "gt_position": [""],
                "pred_position": pred_items[pred_idx]["position"][0],
                "norm_gt": "",
                "norm_pred": norm_pred_lines[pred_idx],
                "gt_category_type": "",
                "pred_category_type": get_pred_category_type(pred_idx, pred_items),
                "gt_attribute": [{}],
                "edit": 1,
                "img_id": img_name,
            }
            for pred_idx in range(len(norm_pred_lines))
        ]
    elif not norm_pred_lines:
        return [
            _unmatched_block(gt_idx, gt_lines, norm_gt_lines, gt_cat_list, gt_items, img_name)
            for gt_idx in range(len(norm_gt_lines))
        ]
    elif len(norm_gt_lines) == 1 and len(norm_pred_lines) == 1:
        edit_distance = _distance(norm_gt_lines[0], norm_pred_lines[0], work, "the one pair")
        normalized_edit_distance = edit_distance / max(len(norm_gt_lines[0]), len(norm_pred_lines[0]))
        return [
            {
                "gt_idx": [0],
                "gt": gt_lines[0],
                "pred_idx": [0],
                "pred": pred_lines[0],
                "gt_position": [_gt_position(gt_items[0])],
                "pred_position": pred_items[0]["position"][0],
                "norm_gt": norm_gt_lines[0],
                "norm_pred": norm_pred_lines[0],
                "gt_category_type": gt_cat_list[0],
                "pred_category_type": get_pred_category_type(0, pred_items),
                "gt_attribute": [gt_items[0].get("attribute", {})],
                "edit": normalized_edit_distance,
                "img_id": img_name,
            }
        ]

    # The ignored categories are matched first, loosely, on their own.
    ignore_gt_lines = []
    ignores_ori_gt_lines = []
    ignores_gt_items = []
    ignore_gt_idxs = []
    ignores_gt_cat_list = []
    no_ignores_gt_lines = []
    no_ignores_ori_gt_lines = []
    no_ignores_gt_idxs = []
    no_ignores_gt_items = []
    no_ignores_gt_cat_list = []
    for i, line in enumerate(norm_gt_lines):
        if gt_cat_list[i] in IGNORED_CATEGORIES:
            ignore_gt_lines.append(line)
            ignores_ori_gt_lines.append(gt_lines[i])
            ignores_gt_items.append(gt_items[i])
            ignore_gt_idxs.append(i)
            ignores_gt_cat_list.append(gt_cat_list[i])
        else:
            no_ignores_gt_lines.append(line)
            no_ignores_ori_gt_lines.append(gt_lines[i])
            no_ignores_gt_items.append(gt_items[i])
            no_ignores_gt_cat_list.append(gt_cat_list[i])
            no_ignores_gt_idxs.append(i)

    ignore_pred_idxs: list[Any] = []
    ignore_pred_lines: list[str] = []
    ignores_pred_items: list[Item] = []
    ignores_ori_pred_lines: list[str] = []
    merged_ignore_results: list[Item] = []

    if len(ignore_gt_lines) > 0:
        ignore_matches_dict = {}
        ignore_matrix = compute_edit_distance_matrix_new(ignore_gt_lines, norm_pred_lines, work)
        # Quirk: every prediction within 0.25 of an ignored block (a header, a caption...) is
        # taken out of the match, whatever else it also matches.
        ignore_matches = np.argwhere(ignore_matrix < 0.25)
        if len(ignore_matches) > 0:
            ignore_pred_idxs = [_[1] for _ in ignore_matches]
            for i in ignore_pred_idxs:
                ignore_pred_lines.append(norm_pred_lines[i])
                ignores_ori_pred_lines.append(pred_lines[i])
                ignores_pred_items.append(pred_items[i])
            for idx, pair in enumerate(ignore_matches):
                ignore_matches_dict[pair[0]] = {"pred_indices": [idx], "edit_distance": ignore_matrix[pair[0]][pair[1]]}

        ignore_final_matches = merge_matches(ignore_matches_dict, {})
        recalculate_edit_distances(ignore_final_matches, ignore_gt_lines, ignore_pred_lines, work)
        converted_ignore_results = convert_final_matches(ignore_final_matches, ignore_gt_lines, ignore_pred_lines, work)
        merged_ignore_results = merge_duplicates_add_unmatched(
            converted_ignore_results, ignore_gt_lines, ignores_ori_gt_lines
        )

        # Quirk kept: an entry is removed from the list being iterated, so the entry after it
        # is skipped (left as merge_duplicates_add_unmatched made it).
        for entry in merged_ignore_results:
            entry["gt_idx"] = [entry["gt_idx"]] if not isinstance(entry["gt_idx"], list) else entry["gt_idx"]
            entry["pred_idx"] = [entry["pred_idx"]] if not isinstance(entry["pred_idx"], list) else entry["pred_idx"]
            entry["gt_position"] = (
                [_gt_position(ignores_gt_items[_]) for _ in entry["gt_idx"]] if entry["gt_idx"] != [""] else [""]
            )
            entry["pred_position"] = (
                ignores_pred_items[entry["pred_idx"][0]]["position"][0] if entry["pred_idx"] != [""] else ""
            )
            entry["gt"] = "".join([ignores_ori_gt_lines[_] for _ in entry["gt_idx"]]) if entry["gt_idx"] != [""] else ""
            entry["pred"] = (
                "".join([ignores_ori_pred_lines[_] for _ in entry["pred_idx"]]) if entry["pred_idx"] != [""] else ""
            )
            entry["norm_gt"] = "".join([ignore_gt_lines[_] for _ in entry["gt_idx"]]) if entry["gt_idx"] != [""] else ""
            entry["norm_pred"] = (
                "".join([ignore_pred_lines[_] for _ in entry["pred_idx"]]) if entry["pred_idx"] != [""] else ""
            )
            if entry["gt_idx"] != [""]:
                entry["gt_category_type"] = _categorise(entry, entry["gt_idx"], ignores_gt_cat_list)
            else:
                entry["gt_category_type"] = ""
                entry["pred_category_type"] = (
                    get_pred_category_type(entry["pred_idx"][0], ignores_pred_items)
                    if entry["pred_idx"] != [""]
                    else ""
                )
                if entry["pred_category_type"] == "equation_inline":
                    merged_ignore_results.remove(entry)  # noqa: B909 (the original's skip, kept)
            entry["pred_category_type"] = (
                get_pred_category_type(entry["pred_idx"][0], ignores_pred_items) if entry["pred_idx"] != [""] else ""
            )
            entry["gt_attribute"] = (
                [ignores_gt_items[_].get("attribute", {}) for _ in entry["gt_idx"]] if entry["gt_idx"] != [""] else [{}]
            )
            entry["img_id"] = img_name

        for entry in merged_ignore_results:
            if isinstance(entry["gt_idx"], list) and entry["gt_idx"] != [""]:
                entry["gt_idx"] = [ignore_gt_idxs[i] for i in entry["gt_idx"]]
            if isinstance(entry["pred_idx"], list) and entry["pred_idx"] != [""]:
                entry["pred_idx"] = [int(ignore_pred_idxs[i]) for i in entry["pred_idx"]]

    no_ignores_pred_lines = []
    no_ignores_ori_pred_lines = []
    no_ignores_pred_items = []
    no_ignore_pred_idxs = []
    ignored_preds = {int(i) for i in ignore_pred_idxs}
    for idx, line in enumerate(norm_pred_lines):
        if idx not in ignored_preds:
            no_ignores_pred_lines.append(line)
            no_ignores_ori_pred_lines.append(pred_lines[idx])
            no_ignores_pred_items.append(pred_items[idx])
            no_ignore_pred_idxs.append(idx)

    cost_matrix = compute_edit_distance_matrix_new(no_ignores_gt_lines, no_ignores_pred_lines, work)
    matched_col_idx, row_ind, cost_list = cal_final_match(cost_matrix, no_ignores_gt_lines, no_ignores_pred_lines, work)
    matches, unmatched_gt_indices, _unmatched_pred = process_matches(
        matched_col_idx, row_ind, cost_list, no_ignores_gt_lines, no_ignores_pred_lines, no_ignores_ori_pred_lines
    )
    matching_dict = fuzzy_match_unmatched_items(unmatched_gt_indices, no_ignores_gt_lines, no_ignores_pred_lines, work)
    final_matches = merge_matches(matches, matching_dict)
    recalculate_edit_distances(final_matches, no_ignores_gt_lines, no_ignores_pred_lines, work)
    converted_results = convert_final_matches(final_matches, no_ignores_gt_lines, no_ignores_pred_lines, work)
    merged_results = merge_duplicates_add_unmatched(converted_results, no_ignores_gt_lines, no_ignores_ori_gt_lines)

    for entry in merged_results:
        if entry["gt_idx"] != [""]:
            entry["gt_category_type"] = _categorise(entry, entry["gt_idx"], no_ignores_gt_cat_list)
        else:
            entry["gt_category_type"] = ""
            entry["pred_category_type"] = (
                get_pred_category_type(entry["pred_idx"][0], no_ignores_pred_items) if entry["pred_idx"] != [""] else ""
            )
            if entry["pred_category_type"] == "equation_inline":
                merged_results.remove(entry)  # noqa: B909 (the original's skip, kept)

        entry["gt_idx"] = [entry["gt_idx"]] if not isinstance(entry["gt_idx"], list) else entry["gt_idx"]
        entry["pred_idx"] = [entry["pred_idx"]] if not isinstance(entry["pred_idx"], list) else entry["pred_idx"]
        entry["gt_position"] = (
            [_gt_position(no_ignores_gt_items[_]) for _ in entry["gt_idx"]] if entry["gt_idx"] != [""] else [""]
        )
        entry["pred_position"] = (
            no_ignores_pred_items[entry["pred_idx"][0]]["position"][0] if entry["pred_idx"] != [""] else ""
        )
        if entry["gt_category_type"] == "equation_isolated" and len(entry["gt_idx"]) > 1:
            entry["gt"] = _array_of(no_ignores_ori_gt_lines[_] for _ in entry["gt_idx"])
        else:
            entry["gt"] = (
                "".join([no_ignores_ori_gt_lines[_] for _ in entry["gt_idx"]]) if entry["gt_idx"] != [""] else ""
            )
        entry["pred_category_type"] = (
            get_pred_category_type(entry["pred_idx"][0], no_ignores_pred_items) if entry["pred_idx"] != [""] else ""
        )
        entry["gt_attribute"] = (
            [no_ignores_gt_items[_].get("attribute", {}) for _ in entry["gt_idx"]] if entry["gt_idx"] != [""] else [{}]
        )
        entry["img_id"] = img_name
        if "equation" in entry["pred_category_type"] and len(entry["pred_idx"]) > 1:
            entry["pred"] = _array_of(no_ignores_ori_pred_lines[_] for _ in entry["pred_idx"])
        else:
            entry["pred"] = (
                "".join([no_ignores_ori_pred_lines[_] for _ in entry["pred_idx"]]) if entry["pred_idx"] != [""] else ""
            )
        entry["norm_gt"] = "".join([no_ignores_gt_lines[_] for _ in entry["gt_idx"]]) if entry["gt_idx"] != [""] else ""
        entry["norm_pred"] = (
            "".join([no_ignores_pred_lines[_] for _ in entry["pred_idx"]]) if entry["pred_idx"] != [""] else ""
        )

    for entry in merged_results:
        if isinstance(entry["gt_idx"], list) and entry["gt_idx"] != [""]:
            entry["gt_idx"] = [no_ignores_gt_idxs[i] for i in entry["gt_idx"]]
        if isinstance(entry["pred_idx"], list) and entry["pred_idx"] != [""]:
            entry["pred_idx"] = [int(no_ignore_pred_idxs[i]) for i in entry["pred_idx"]]

    if len(merged_ignore_results) > 0:
        merged_results.extend(merged_ignore_results)
    return merged_results


def _array_of(formulas: Any) -> str:
    """Several formulas matched together, as one array (the original's 0507/0724 changes)."""
    # strip("$$") strips "$" characters, as the original's does
    rows = " \\\\ ".join(["{" + formula.strip("$$").strip("\n") + "}" for formula in formulas])  # noqa: B005
    return "\\begin{array}{l} " + rows + " \\end{array}"


def merge_duplicates_add_unmatched(
    converted_results: list[Item], norm_gt_lines: Sequence[str], gt_lines: Sequence[str]
) -> list[Item]:
    # port of utils/match_quick.py: merge_duplicates_add_unmatched (its unused arguments dropped)
    merged_results = []
    processed_pred = set()
    processed_gt = set()
    for entry in converted_results:
        pred_idx = tuple(entry["pred_idx"]) if isinstance(entry["pred_idx"], list) else (entry["pred_idx"],)
        if pred_idx not in processed_pred and pred_idx != ("",):
            merged_entry = {
                "gt_idx": [entry["gt_idx"]],
                "gt": entry["gt"],
                "pred_idx": entry["pred_idx"],
                "pred": entry["pred"],
                "edit": entry["edit"],
            }
            for other_entry in converted_results:
                other_pred_idx = (
                    tuple(other_entry["pred_idx"])
                    if isinstance(other_entry["pred_idx"], list)
                    else (other_entry["pred_idx"],)
                )
                if other_pred_idx == pred_idx and other_entry is not entry:
                    merged_entry["gt_idx"].append(other_entry["gt_idx"])
                    merged_entry["gt"] += other_entry["gt"]
                    processed_gt.add(other_entry["gt_idx"])
            merged_results.append(merged_entry)
            processed_pred.add(pred_idx)
            processed_gt.add(entry["gt_idx"])
    for gt_idx in range(len(norm_gt_lines)):
        if gt_idx not in processed_gt:
            merged_results.append({"gt_idx": [gt_idx], "gt": gt_lines[gt_idx], "pred_idx": [""], "pred": "", "edit": 1})
    return merged_results


def merge_lists_with_sublists(main_list: Sequence[int], sub_lists: list[list[int]]) -> list[Any]:
    # port of utils/match_quick.py: merge_lists_with_sublists
    main_list_final: list[Any] = list(main_list)
    for sub_list in sub_lists:
        pop_idx = main_list_final.index(sub_list[0])
        for _ in sub_list:
            main_list_final.pop(pop_idx)
        main_list_final.insert(pop_idx, sub_list)
    return main_list_final


def _min_window_distance(long: str, short: str, work: Work | None, step: str) -> int:
    """The least edit distance between ``short`` and a window of ``long`` of its length
    (the windows slide by one character); ``len(long) >= len(short) > 0``."""
    n = len(short)
    windows = len(long) - n + 1
    if work is not None:
        work.spend(windows * _pair_work(n, n), step)
    least = n  # no two strings of length n are further apart
    for i in range(windows):
        # Past the cutoff rapidfuzz stops early and returns cutoff + 1: the least is the same.
        distance = Levenshtein.distance(short, long[i : i + n], score_cutoff=least)
        if distance < least:
            least = distance
            if least == 0:
                break
    return least


def sub_pred_fuzzy_matching(gt: str, pred: str, work: Work) -> float | bool:
    # port of utils/match_quick.py: sub_pred_fuzzy_matching: the least of dist(window, pred) / len(pred)
    if len(gt) >= len(pred) and len(pred) > 0:
        return _min_window_distance(gt, pred, work, "paragraph merging") / len(pred)
    return False


def sub_gt_fuzzy_matching(pred: str, gt: str, work: Work) -> float:
    # port of utils/match_quick.py: sub_gt_fuzzy_matching (only its distance is ever used)
    if len(pred) >= len(gt) and len(gt) > 0:
        return _min_window_distance(pred, gt, work, "paragraph splitting") / len(gt)
    return 1


def get_final_subset(subset_certain: list[list[int]], subset_certain_cost: list[float]) -> list[list[int]]:
    # port of utils/match_quick.py: get_final_subset
    if not subset_certain or not subset_certain_cost:
        return []
    subset_turple = sorted(zip(subset_certain, subset_certain_cost, strict=False), key=lambda x: x[0][0])
    group_list: defaultdict[int, list[tuple[list[int], float]]] = defaultdict(list)
    group_idx = 0
    group_list[group_idx].append(subset_turple[0])
    for item in subset_turple[1:]:
        overlap_flag = False
        for subset in group_list[group_idx]:
            for idx in item[0]:
                if idx in subset[0]:
                    overlap_flag = True
                    break
            if overlap_flag:
                break
        if overlap_flag:
            group_list[group_idx].append(item)
        else:
            group_idx += 1
            group_list[group_idx].append(item)

    final_subset: list[list[int]] = []
    for _, group in group_list.items():
        if len(group) == 1:
            final_subset.append(group[0][0])
        else:
            path_dict: defaultdict[int, list[tuple[list[int], float]]] = defaultdict(list)
            path_idx = 0
            path_dict[path_idx].append(group[0])
            for subset in group[1:]:
                new_path = True
                for path_idx_s, path_items in path_dict.items():
                    is_dup = False
                    is_same = False
                    for path_item in path_items:
                        if path_item[0] == subset[0]:
                            is_dup = True
                            is_same = True
                            if path_item[1] > subset[1]:
                                path_dict[path_idx_s].pop(path_dict[path_idx_s].index(path_item))
                                path_dict[path_idx_s].append(subset)
                        else:
                            for num_1 in path_item[0]:
                                for num_2 in subset[0]:
                                    if num_1 == num_2:
                                        is_dup = True
                    if not is_dup:
                        path_dict[path_idx_s].append(subset)
                        new_path = False
                    if is_same:
                        new_path = False
                if new_path:
                    path_idx = len(path_dict.keys())
                    path_dict[path_idx].append(subset)

            saved_cost = float("inf")
            saved_subset: list[list[int]] = []
            for path in path_dict.values():
                avg_cost = sum([i[1] for i in path]) / len(path)
                if avg_cost < saved_cost:
                    saved_subset = [i[0] for i in path]
                    saved_cost = avg_cost
            final_subset.extend(saved_subset)
    return final_subset


def judge_pred_merge(gt_list: list[str], pred_list: list[str], work: Work, threshold: float = 0.6) -> tuple[bool, bool]:
    # port of utils/match_quick.py: judge_pred_merge
    if len(pred_list) == 1:
        return False, False
    cur_pred = " ".join(pred_list[:-1])
    merged_pred = " ".join(pred_list)
    cur_dist = _distance(gt_list[0], cur_pred, work, "paragraph merging") / max(len(gt_list[0]), len(cur_pred))
    merged_dist = _distance(gt_list[0], merged_pred, work, "paragraph merging") / max(len(gt_list[0]), len(merged_pred))
    if merged_dist > cur_dist:
        return False, False
    cur_fuzzy_dists = [sub_pred_fuzzy_matching(gt_list[0], cur_pred, work) for cur_pred in pred_list[:-1]]
    if any(dist is False or dist > threshold for dist in cur_fuzzy_dists):
        return False, False
    add_fuzzy_dist = sub_pred_fuzzy_matching(gt_list[0], pred_list[-1], work)
    if add_fuzzy_dist is False:
        return False, False
    merged_pred_flag = add_fuzzy_dist < threshold
    continue_flag = len(merged_pred) <= len(gt_list[0])
    return merged_pred_flag, continue_flag


def deal_with_truncated(
    cost_matrix: np.ndarray, norm_gt_lines: list[str], norm_pred_lines: list[str], work: Work
) -> tuple[np.ndarray, list[str], Sequence[Any]]:
    # port of utils/match_quick.py: deal_with_truncated (consecutive predictions merged for a
    # ground-truth block that no single prediction matches within 0.25)
    matched_first = np.argwhere(cost_matrix < 0.25)
    masked_gt_idx = {int(i[0]) for i in matched_first}  # sets where the original has lists: the same tests
    unmasked_gt_idx = [i for i in range(cost_matrix.shape[0]) if i not in masked_gt_idx]
    masked_pred_idx = {int(i[1]) for i in matched_first}
    unmasked_pred_idx = [i for i in range(cost_matrix.shape[1]) if i not in masked_pred_idx]

    merges_gt_dict = {}
    for gt_idx in unmasked_gt_idx:
        check_merge_subset = []
        merged_dist = []
        for pred_idx in unmasked_pred_idx:
            step = 1
            merged_pred = [norm_pred_lines[pred_idx]]
            while True:
                if pred_idx + step in masked_pred_idx or pred_idx + step >= len(norm_pred_lines):
                    break
                else:
                    merged_pred.append(norm_pred_lines[pred_idx + step])
                    merged_pred_flag, continue_flag = judge_pred_merge([norm_gt_lines[gt_idx]], merged_pred, work)
                    if not merged_pred_flag:
                        break
                    else:
                        step += 1
                    if not continue_flag:
                        break
            check_merge_subset.append(list(range(pred_idx, pred_idx + step)))
            matched_line = " ".join([norm_pred_lines[i] for i in range(pred_idx, pred_idx + step)])
            dist = _distance(norm_gt_lines[gt_idx], matched_line, work, "paragraph merging") / max(
                len(matched_line), len(norm_gt_lines[gt_idx])
            )
            merged_dist.append(dist)

        subset_certain: list[int]
        if not merged_dist:
            subset_certain = []
            min_cost = float("inf")
        else:
            min_cost = min(merged_dist)
            subset_certain = check_merge_subset[merged_dist.index(min_cost)]
        merges_gt_dict[gt_idx] = {"subset_certain": subset_certain, "min_cost": min_cost}

    subsets = [merges_gt_dict[g]["subset_certain"] for g in unmasked_gt_idx if merges_gt_dict[g]["subset_certain"]]
    subsets_cost = [merges_gt_dict[g]["min_cost"] for g in unmasked_gt_idx if merges_gt_dict[g]["subset_certain"]]
    subset_certain_final = get_final_subset(subsets, subsets_cost)  # type: ignore[arg-type]
    if not subset_certain_final:
        return cost_matrix, norm_pred_lines, range(len(norm_pred_lines))

    final_pred_idx_list = merge_lists_with_sublists(range(len(norm_pred_lines)), subset_certain_final)
    final_norm_pred_lines = [
        " ".join(norm_pred_lines[idx_list[0] : idx_list[-1] + 1])
        if isinstance(idx_list, list)
        else norm_pred_lines[idx_list]
        for idx_list in final_pred_idx_list
    ]
    new_cost_matrix = compute_edit_distance_matrix_new(norm_gt_lines, final_norm_pred_lines, work)
    return new_cost_matrix, final_norm_pred_lines, final_pred_idx_list


def cal_final_match(
    cost_matrix: np.ndarray, norm_gt_lines: list[str], norm_pred_lines: list[str], work: Work
) -> tuple[list[Any], Any, list[Any]]:
    # port of utils/match_quick.py: cal_final_match
    new_cost_matrix, _final_lines, final_pred_idx_list = deal_with_truncated(
        cost_matrix, norm_gt_lines, norm_pred_lines, work
    )
    row_ind, col_ind = linear_sum_assignment(new_cost_matrix)
    cost_list = [new_cost_matrix[r][c] for r, c in zip(row_ind, col_ind, strict=False)]
    matched_col_idx = [final_pred_idx_list[i] for i in col_ind]
    return matched_col_idx, row_ind, cost_list


def process_matches(
    matched_col_idx: list[Any],
    row_ind: Any,
    cost_list: list[Any],
    norm_gt_lines: list[str],
    norm_pred_lines: list[str],
    pred_lines: list[str],
) -> tuple[dict[int, Item], list[int], list[Any]]:
    # port of utils/match_quick.py: process_matches
    matches = {}
    unmatched_gt_indices = []
    unmatched_pred_indices: list[Any] = []
    rows = list(row_ind)
    for i in range(len(norm_gt_lines)):
        if i in row_ind:
            idx = rows.index(i)
            pred_idx = matched_col_idx[idx]
            if pred_idx is None or (isinstance(pred_idx, list) and None in pred_idx):
                unmatched_pred_indices.append(pred_idx)
                continue
            if isinstance(pred_idx, list):
                matched_pred_indices_range = list(range(pred_idx[0], pred_idx[-1] + 1))
            else:
                matched_pred_indices_range = [pred_idx]
            edit = cost_list[idx]
            if edit > 0.7:
                unmatched_pred_indices.extend(matched_pred_indices_range)
                unmatched_gt_indices.append(i)
            else:
                matches[i] = {"pred_indices": matched_pred_indices_range, "edit_distance": edit}
                for matched_pred_idx in matched_pred_indices_range:
                    if matched_pred_idx in unmatched_pred_indices:
                        unmatched_pred_indices.remove(matched_pred_idx)
        else:
            unmatched_gt_indices.append(i)
    return matches, unmatched_gt_indices, unmatched_pred_indices


def fuzzy_match_unmatched_items(
    unmatched_gt_indices: list[int], norm_gt_lines: list[str], norm_pred_lines: list[str], work: Work
) -> dict[int, list[int]]:
    # port of utils/match_quick.py: fuzzy_match_unmatched_items (a prediction that contains an
    # unmatched ground-truth block, within 0.4, takes it)
    matching_dict = {}
    for pred_idx, pred_content in enumerate(norm_pred_lines):
        matching_indices = []
        for unmatched_gt_idx in unmatched_gt_indices:
            gt_content = norm_gt_lines[unmatched_gt_idx]
            if sub_gt_fuzzy_matching(pred_content, gt_content, work) < 0.4:
                matching_indices.append(unmatched_gt_idx)
        if matching_indices:
            matching_dict[pred_idx] = matching_indices
    return matching_dict


def merge_matches(matches: dict[Any, Item], matching_dict: dict[int, list[int]]) -> dict[tuple[Any, ...], Item]:
    # port of utils/match_quick.py: merge_matches
    final_matches: dict[tuple[Any, ...], Item] = {}
    processed_gt_indices = set()
    for gt_idx, match_info in matches.items():
        pred_indices = match_info["pred_indices"]
        edit_distance = match_info["edit_distance"]
        pred_key = tuple(sorted(pred_indices))
        if pred_key in final_matches:
            if gt_idx not in processed_gt_indices:
                final_matches[pred_key]["gt_indices"].append(gt_idx)
                processed_gt_indices.add(gt_idx)
        else:
            final_matches[pred_key] = {"gt_indices": [gt_idx], "edit_distance": edit_distance}
            processed_gt_indices.add(gt_idx)
    for pred_idx, gt_indices in matching_dict.items():
        pred_key = (pred_idx,)
        if pred_key in final_matches:
            for gt_idx in gt_indices:
                if gt_idx not in processed_gt_indices:
                    final_matches[pred_key]["gt_indices"].append(gt_idx)
                    processed_gt_indices.add(gt_idx)
        else:
            final_matches[pred_key] = {
                "gt_indices": [gt_idx for gt_idx in gt_indices if gt_idx not in processed_gt_indices],
                "edit_distance": None,
            }
            processed_gt_indices.update(final_matches[pred_key]["gt_indices"])
    return final_matches


def recalculate_edit_distances(
    final_matches: dict[tuple[Any, ...], Item], norm_gt_lines: list[str], norm_pred_lines: list[str], work: Work
) -> None:
    # port of utils/match_quick.py: recalculate_edit_distances (its unused gt_lens_dict dropped)
    for pred_key, info in final_matches.items():
        gt_indices = sorted(set(info["gt_indices"]))
        if not gt_indices:
            info["edit_distance"] = 1
            continue
        if len(gt_indices) > 1:
            merged_gt_content = "".join(norm_gt_lines[gt_idx] for gt_idx in gt_indices)
            pred_content = norm_pred_lines[pred_key[0]] if isinstance(pred_key[0], int) else ""
        else:
            merged_gt_content = norm_gt_lines[gt_indices[0]]
            pred_content = " ".join(norm_pred_lines[pred_idx] for pred_idx in pred_key if isinstance(pred_idx, int))
            info["pred_content"] = pred_content
        upper = max(len(merged_gt_content), len(pred_content))
        edit_distance = _distance(merged_gt_content, pred_content, work, "the edit distances of the matches")
        info["edit_distance"] = edit_distance / upper if upper else 1


def convert_final_matches(
    final_matches: dict[tuple[Any, ...], Item], norm_gt_lines: list[str], norm_pred_lines: list[str], work: Work
) -> list[Item]:
    # port of utils/match_quick.py: convert_final_matches
    converted_results = []
    all_gt_indices = set(range(len(norm_gt_lines)))
    all_pred_indices = set(range(len(norm_pred_lines)))
    for pred_key, info in final_matches.items():
        pred_content = " ".join(norm_pred_lines[pred_idx] for pred_idx in pred_key if isinstance(pred_idx, int))
        for gt_idx in sorted(set(info["gt_indices"])):
            converted_results.append(
                {
                    "gt_idx": int(gt_idx),
                    "gt": norm_gt_lines[gt_idx],
                    "pred_idx": list(pred_key),
                    "pred": pred_content,
                    "edit": info["edit_distance"],
                }
            )
    matched_gt_indices = set().union(*[set(info["gt_indices"]) for info in final_matches.values()])
    unmatched_gt_indices = all_gt_indices - matched_gt_indices
    matched_pred_indices = {idx for pred_key in final_matches for idx in pred_key if isinstance(idx, int)}
    unmatched_pred_indices = all_pred_indices - matched_pred_indices

    if unmatched_pred_indices:
        if unmatched_gt_indices:
            gts = [norm_gt_lines[gt_idx] for gt_idx in unmatched_gt_indices]
            preds = [norm_pred_lines[pred_idx] for pred_idx in unmatched_pred_indices]
            distance_matrix = compute_edit_distance_matrix_new(gts, preds, work)
            row_ind, col_ind = linear_sum_assignment(distance_matrix)
            for i, j in zip(row_ind, col_ind, strict=False):
                gt_idx = list(unmatched_gt_indices)[i]
                pred_idx = list(unmatched_pred_indices)[j]
                converted_results.append(
                    {
                        "gt_idx": int(gt_idx),
                        "gt": norm_gt_lines[gt_idx],
                        "pred_idx": [pred_idx],
                        "pred": norm_pred_lines[pred_idx],
                        "edit": 1,
                    }
                )
        else:
            converted_results.append(
                {
                    "gt_idx": "",
                    "gt": "",
                    "pred_idx": list(unmatched_pred_indices),
                    "pred": " ".join(norm_pred_lines[pred_idx] for pred_idx in unmatched_pred_indices),
                    "edit": 1,
                }
            )
    else:
        for gt_idx in unmatched_gt_indices:
            converted_results.append(
                {"gt_idx": int(gt_idx), "gt": norm_gt_lines[gt_idx], "pred_idx": "", "pred": "", "edit": 1}
            )
    return converted_results
