"""What OmniDocBench's end-to-end scoring reads of a page of its ground truth, checked before it is read.

OmniDocBench reads its JSON with ``json.load`` and trusts every value: an ``anno_id`` that is an
object, ``latex: null`` or a truncated relation naming a block the page does not have end its run in
a TypeError or KeyError, and a ``text`` that is a number or a category name with a typo is scored
silently (``str(5)``; a block of an unknown category is left out). ``check_page`` says instead what is
wrong, each problem at its key path with what was expected, and lets through what OmniDocBench reads
as intended: every page of its own files (the demo's and the fixture's load as they did). What the
scorer never reads (``ignore``, ``line_with_spans``, ``merge_list``, ``page_no``) is not checked,
but a block's ``poly``, when given, must be its 8 coordinates.

``score_page`` checks its page with it (``GroundTruthError``), so the library refuses what a case file
or a dataset refuses, and the one thing that depends on the output is checked where it is read:
the LaTeX of the ground truth's tables, read only when the output's tables are mostly LaTeX.
"""

from __future__ import annotations

import math
import os
from typing import Any

from ...errors import OcrError, did_you_mean

Problems = list[tuple[tuple, str]]  # (key path within the page, what was expected)

# OmniDocBench v1.6's 28 block categories (its dataset card; v1.5's files use a subset), its 4 span
# categories, and the two its scorer names that the card does not (utils/match.py).
CATEGORIES = frozenset(
    (
        "title text_block list_group reference figure figure_caption figure_footnote table table_caption "
        "table_footnote equation_isolated equation_caption equation_semantic equation_explanation header footer "
        "page_number page_footnote abandon code_txt code_txt_caption chart_mask table_mask text_mask "
        "organic_chemical_formula_mask algorithm_mask unknown_mask need_mask "
        "text_span equation_ignore equation_inline footnote_mark "
        "code_algorithm code_algorithm_caption"
    ).split()
)

# The categories whose blocks the scorer reads, and the key it reads of each (utils/match.py:
# get_gt_pred_lines): the text categories' text, a display formula's LaTeX, a table's HTML.
_TEXT = (
    "text_block title code_txt code_txt_caption reference equation_caption figure_caption figure_footnote "
    "table_caption table_footnote code_algorithm code_algorithm_caption header footer page_footnote page_number"
).split()
READ_KEY = {**dict.fromkeys(_TEXT, "text"), "equation_isolated": "latex", "table": "html"}

POLY_LENGTH = 8  # the four corners' x and y


class GroundTruthError(OcrError, ValueError):
    """A page of OmniDocBench ground truth the scorer cannot read as OmniDocBench means it."""


def kind(value: object) -> str:
    """What a value is, as a message names it."""
    if value is None:
        return "nothing"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    return {dict: "an object", list: "a list", bool: "a boolean"}.get(type(value), "a number")


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_id(value: object) -> bool:
    """An anno_id OmniDocBench can look up (a dict key, compared with the relations' ids)."""
    return (
        isinstance(value, str)
        or (isinstance(value, int) and not isinstance(value, bool))
        or (isinstance(value, float) and math.isfinite(value))
    )


def check_page(page: object) -> Problems:
    """What is wrong with one page of OmniDocBench ground truth, as the scorer reads it: every
    problem, each with its key path and what was expected. Empty: the page can be scored."""
    if not isinstance(page, dict):
        return [((), f"expected a page object (page_info, layout_dets, extra), got {kind(page)}")]
    problems: Problems = []
    problems += _check_info(page.get("page_info"))
    blocks = page.get("layout_dets")
    ids: dict[Any, list[int]] = {}
    if not isinstance(blocks, list):
        problems.append((("layout_dets",), f"expected a list of layout blocks, got {kind(blocks)}"))
        blocks = []
    for i, block in enumerate(blocks):
        if not isinstance(block, dict):
            problems.append((("layout_dets", i), f"expected a block object, got {kind(block)}"))
            continue
        problems += [(("layout_dets", i, *where), message) for where, message in _check_block(block)]
        if _is_id(block.get("anno_id")):
            ids.setdefault(block["anno_id"], []).append(i)
    extra = page.get("extra")
    relations = extra.get("relation") if isinstance(extra, dict) else None
    if not isinstance(relations, list):
        problems.append((("extra", "relation"), f"expected a list of relations ([] for none), got {kind(relations)}"))
    else:
        for i, relation in enumerate(relations):
            problems += [(("extra", "relation", i, *where), message) for where, message in _check_relation(relation)]
            if isinstance(relation, dict) and relation.get("relation_type") == "truncated":
                problems += _check_truncated(relation, i, blocks, ids)
    first: dict[
        tuple, str
    ] = {}  # one problem a key (a truncated block's text can be wrong for its category and its relation)
    for keypath, message in problems:
        first.setdefault(keypath, message)
    return list(first.items())


def _check_info(info: object) -> Problems:
    if not isinstance(info, dict):
        return [(("page_info",), f"expected an object with image_path, got {kind(info)}")]
    problems: Problems = []
    path = info.get("image_path")
    if not isinstance(path, str) or not os.path.basename(path):
        problems.append((("page_info", "image_path"), f"expected the page image's file name, got {kind(path)}"))
    attributes = info.get("page_attribute", {})
    if not isinstance(attributes, dict):
        problems.append((("page_info", "page_attribute"), f"expected an object, got {kind(attributes)}"))
        return problems
    for key, value in attributes.items():
        # get_page_split leaves out a list's entries that contain "table": each must be a string
        for j, entry in enumerate(value if isinstance(value, list) else ()):
            if not isinstance(entry, str):
                where = ("page_info", "page_attribute", key, j)
                problems.append((where, f"expected an attribute name (a string), got {kind(entry)}"))
    return problems


def _check_block(block: dict) -> Problems:
    """A block's own keys, as the scorer reads them (key paths within the block)."""
    problems: Problems = []
    category = block.get("category_type")
    if not isinstance(category, str):
        problems.append((("category_type",), f"expected a category name, got {kind(category)}"))
    elif category not in CATEGORIES:
        problems.append((("category_type",), _unknown(category)))
    if "anno_id" not in block:
        problems.append((("anno_id",), "expected the block's anno_id"))
    elif not _is_id(block["anno_id"]):
        got = kind(block["anno_id"])
        problems.append((("anno_id",), f"expected the block's anno_id (a number or a string), got {got}"))
    order = block.get("order")
    if order is not None and not _is_number(order):
        problems.append((("order",), f"expected a number or null, got {kind(order)}"))
    content = block.get("content")  # read instead of the category's key when not empty
    if content is not None and not isinstance(content, str):
        problems.append((("content",), f"expected a string, got {kind(content)}"))
    key = READ_KEY.get(category) if isinstance(category, str) else None
    latex = block.get("latex")
    if key is not None and not content and not isinstance(block.get(key), str):
        problems.append(((key,), f"expected the {_what(key)} (a string), got {kind(block.get(key))}"))
    if category in ("equation_isolated", "table") and "latex" in block and not isinstance(latex, str):
        # read whatever the content: a formula's to find arrays, a table's when the output's tables are LaTeX
        problems.append((("latex",), f"expected the LaTeX (a string), got {kind(latex)}"))
    if category == "equation_isolated" and order is None and isinstance(latex, str):
        problems += _check_array_order(latex)
    fine = block.get("fine_category_type")
    if fine:  # read as the block's category when given
        if not isinstance(fine, str):
            problems.append((("fine_category_type",), f"expected a category name, got {kind(fine)}"))
        elif fine not in CATEGORIES:
            problems.append((("fine_category_type",), _unknown(fine)))
    attribute = block.get("attribute", {})
    if not isinstance(attribute, dict):
        problems.append((("attribute",), f"expected an object of the block's attributes, got {kind(attribute)}"))
    position = block.get("position")
    if "position" in block and not (isinstance(position, list) and position):
        problems.append((("position",), f"expected a non-empty list, got {kind(position)}"))
    if "poly" in block:
        poly = _not_poly(block["poly"])
        if poly is not None:
            problems.append((("poly",), f"expected the block's 8 corner coordinates (numbers), got {poly}"))
    return problems


def _not_poly(poly: object) -> str | None:
    """What a block's ``poly`` is when it is not 8 numbers (None when it is)."""
    if not isinstance(poly, list):
        return kind(poly)
    if len(poly) != POLY_LENGTH:
        return f"a list of {len(poly)}"
    wrong = [v for v in poly if not _is_number(v)]
    return f"a list holding {kind(wrong[0])}" if wrong else None


def _unknown(category: str) -> str:
    return (
        f"unknown category {category[:40]!r}{did_you_mean(category, CATEGORIES)} (not one of OmniDocBench's "
        f"{len(CATEGORIES)}; it would leave the block out of every score)"
    )


def _what(key: str) -> str:
    return {"text": "block's text", "latex": "LaTeX", "html": "table's HTML"}[key]


def _check_array_order(latex: str) -> Problems:
    """A display formula that is a one-column array is split into one formula per line, each
    numbered from the block's order (utils/match_quick.py: split_gt_equation_arrays):
    ``float(None)`` fails there."""
    if "\\begin{array" not in latex:
        return []
    from .match import ARRAY_RE, is_all_l  # only for such a formula: match.py imports numpy

    found = ARRAY_RE.search(latex)
    if found is None or not is_all_l(found.group("spec")):
        return []
    return [(("order",), "expected a number: the formula is a one-column array, whose lines are numbered from it")]


def _check_relation(relation: object) -> Problems:
    if not isinstance(relation, dict):
        return [((), f"expected a relation object, got {kind(relation)}")]
    kind_of = relation.get("relation_type")
    if not isinstance(kind_of, str):
        return [(("relation_type",), f"expected the relation's type ('truncated', 'parent_son'), got {kind(kind_of)}")]
    return []


def _check_truncated(relation: dict, index: int, blocks: list, ids: dict[Any, list[int]]) -> Problems:
    """A truncated relation's two blocks are joined into one (End2EndDataset.get_page_elements):
    each id must name one block of the page, whose text is joined in the order of its ``order``."""
    problems: Problems = []
    for key in ("source_anno_id", "target_anno_id"):
        where = ("extra", "relation", index, key)
        if key not in relation:
            problems.append((where, "expected the anno_id of a truncated block"))
            continue
        named = relation[key]
        if not _is_id(named):
            problems.append((where, f"expected the anno_id of a truncated block, got {kind(named)}"))
            continue
        found = ids.get(named, [])
        if len(found) != 1:
            many = f"{len(found)} blocks: " + ", ".join(f"layout_dets[{i}]" for i in found[:3]) if found else "no block"
            problems.append((where, f"expected the anno_id of one block of the page: {named!r} names {many}"))
            continue
        block = blocks[found[0]]
        text, order = block.get("text"), block.get("order")
        if not isinstance(text, str):
            why = f"expected the block's text (a string): relation [{index}] joins it, got {kind(text)}"
            problems.append((("layout_dets", found[0], "text"), why))
        if not _is_number(order):
            why = f"expected a number: relation [{index}] joins the block by its order, got {kind(order)}"
            problems.append((("layout_dets", found[0], "order"), why))
    return problems


def check(page: object) -> None:
    """Raises GroundTruthError with the first of the page's problems (and how many more)."""
    problems = check_page(page)
    if problems:
        keypath, message = problems[0]
        where = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in keypath).lstrip(".") or "the page"
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise GroundTruthError(f"OmniDocBench ground truth: {where}: {message}{more}")
