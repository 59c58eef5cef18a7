"""OmniDocBench (``omnidocbench``): its ground-truth JSON of page layouts, the page images, and
every other folder of ``.md`` files a system's stored outputs; one case per page.

The pages are also what a case file's ``expected: {layout_file: ...}`` names: ``check_page``,
``pick_page`` and ``page_tags`` serve both (cases/inputs.py reads a case's file when its
item runs). The format is OmniDocBench v1.5's (``page_info``, ``layout_dets``,
``extra.relation``); the scoring is metrics/omnidocbench/.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from ...media import document as doc
from .common import (
    DatasetError,
    Loaded,
    Skipped,
    config_directory,
    config_file,
    engine_named,
    is_image,
    read_text,
    stem_path,
    tree_of,
    walk_files,
)

Problems = list[tuple[tuple, str]]  # (key path within the page, what was expected)

TAG_CHARS = re.compile(r"[^A-Za-z0-9_\-]+")


def check_page(page: object) -> Problems:
    """What is wrong with one page of OmniDocBench ground truth, as the scorer reads it: every
    problem, each with its key path and what was expected. Empty: the page can be scored."""
    if not isinstance(page, dict):
        return [((), f"expected a page object (page_info, layout_dets, extra), got {_kind(page)}")]
    problems: Problems = []
    info = page.get("page_info")
    if not isinstance(info, dict):
        problems.append((("page_info",), f"expected an object with image_path, got {_kind(info)}"))
    else:
        path = info.get("image_path")
        if not isinstance(path, str) or not os.path.basename(path):
            problems.append((("page_info", "image_path"), f"expected the page image's file name, got {_kind(path)}"))
        attributes = info.get("page_attribute", {})
        if not isinstance(attributes, dict):
            problems.append((("page_info", "page_attribute"), f"expected an object, got {_kind(attributes)}"))
    blocks = page.get("layout_dets")
    if not isinstance(blocks, list):
        problems.append((("layout_dets",), f"expected a list of layout blocks, got {_kind(blocks)}"))
    else:
        for i, block in enumerate(blocks):
            if not isinstance(block, dict):
                problems.append((("layout_dets", i), f"expected a block object, got {_kind(block)}"))
                continue
            if not isinstance(block.get("category_type"), str):
                problems.append(
                    (
                        ("layout_dets", i, "category_type"),
                        f"expected a category name, got {_kind(block.get('category_type'))}",
                    )
                )
            if "anno_id" not in block:
                problems.append((("layout_dets", i, "anno_id"), "expected the block's anno_id"))
            order = block.get("order")
            if order is not None and (isinstance(order, bool) or not isinstance(order, (int, float))):
                problems.append((("layout_dets", i, "order"), f"expected a number or null, got {_kind(order)}"))
    extra = page.get("extra")
    relations = extra.get("relation") if isinstance(extra, dict) else None
    if not isinstance(relations, list):
        problems.append((("extra", "relation"), f"expected a list of relations ([] for none), got {_kind(relations)}"))
    else:
        for i, relation in enumerate(relations):
            if not isinstance(relation, dict):
                problems.append((("extra", "relation", i), f"expected a relation object, got {_kind(relation)}"))
            elif relation.get("relation_type") == "truncated":
                for key in ("source_anno_id", "target_anno_id"):
                    if key not in relation:
                        problems.append((("extra", "relation", i, key), "expected the anno_id of a truncated block"))
    return problems


def _kind(value: object) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    return {dict: "an object", list: "a list", bool: "a boolean"}.get(type(value), "a number")


def page_name(page: dict) -> str:
    """The page's name, as OmniDocBench names it (its img_id): the image path's basename."""
    return os.path.basename(page["page_info"]["image_path"])


def pick_page(data: object, name: str | None, image: str) -> tuple[int | None, str | None]:
    """The index of the page a case takes from a ground-truth file's data (None: the file
    is one page object), or why none: ``name`` (``layout_page``) if given, else the page
    whose image has the case image's basename."""
    if isinstance(data, dict):
        if name is not None and isinstance(data.get("page_info"), dict):
            found = os.path.basename(str(data["page_info"].get("image_path", "")))
            if found != name:
                return None, f"layout_page {name!r}: the file's one page is {found!r}"
        return None, None
    if not isinstance(data, list):
        return None, f"expected a page object or a list of pages, got {_kind(data)}"
    wanted = name if name is not None else os.path.basename(image)
    for i, page in enumerate(data):
        info = page.get("page_info") if isinstance(page, dict) else None
        if isinstance(info, dict) and os.path.basename(str(info.get("image_path", ""))) == wanted:
            return i, None
    how = "layout_page" if name is not None else "the case's image"
    return None, f"no page whose page_info.image_path is {wanted!r} ({how}) among its {len(data)} pages"


def page_tags(page: dict) -> list[str]:
    """The page's attributes as tags: ``language-english`` for ``language: english``, one per
    entry of a list (``special_issue-fuzzy_scan``), leaving out entries containing "table" as
    OmniDocBench's get_page_split does. Characters a tag cannot hold become ``_``."""
    tags = []
    for key, value in (page["page_info"].get("page_attribute") or {}).items():
        values = [v for v in value if "table" not in str(v)] if isinstance(value, list) else [value]
        tags += [_tag(f"{key}-{v}") for v in values]
    return list(dict.fromkeys(tags))


def _tag(text: str) -> str:
    tag = TAG_CHARS.sub("_", text)
    return tag if re.match(r"[A-Za-z_]", tag) else "_" + tag


# -- the dataset -------------------------------------------------------------------------------


def omnidocbench(config: dict, base: Path) -> Loaded:
    """OmniDocBench's layout: the ground-truth JSON (``ground_truth``; default the one .json
    file in ``path``), the page images (``images``, default ``path/images``), and every other
    folder of ``path`` holding ``.md`` files a system's stored outputs (an
    ``omnidocbench-outputs`` engine named after the folder). One case per page, carrying its
    page of ground truth; ``filter`` keeps the pages whose page attributes equal it, as
    OmniDocBench's does. A page that is not well-formed, has no image or repeats another's
    image is skipped with the file, its index and the reason."""
    root = config_directory(config, "path", base)
    truth = _ground_truth(config, root, base)
    images = config_directory(config, "images", root) if "images" in config else root / "images"
    if not images.is_dir():
        raise DatasetError("images", f"no images/ folder in {root} (or name the page images' folder with images:)")
    tree = tree_of(config, root, images)
    escape = tree.outside(truth) if truth.parent == root else None
    if escape is not None:
        raise DatasetError("ground_truth", escape)
    loaded = Loaded()
    found: dict[str, Path] = {}
    for relative, image in walk_files(images, ["*"], []):
        if "/" not in relative and is_image(image):
            escape = tree.outside(image)
            if escape is None:
                found[relative] = image
            else:
                loaded.skipped.append(Skipped(str(image), None, escape))
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and p != images and p.name[0] != "."):
        if not any(name.endswith((".md", ".mmd")) for name in os.listdir(folder)):
            continue  # not a system's outputs (OmniDocBench's own result/ folder, say)
        escape = tree.outside(folder)
        if escape is not None:
            raise DatasetError("path", escape)
        name = engine_named("path", folder)
        loaded.engines[name] = {"type": "omnidocbench-outputs", "path": os.path.relpath(folder, base)}
        if tree.follow_symlinks:
            loaded.engines[name]["follow_symlinks"] = True
    wanted = config.get("filter") or {}
    taken: dict[str, int] = {}
    for index, (page, line) in enumerate(_pages(truth)):
        problems = check_page(page)
        if problems:
            keypath, message = problems[0]
            where = doc.format_keypath((index, *keypath))
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            loaded.skipped.append(Skipped(str(truth), line, f"{where}: {message}{more}"))
            continue
        assert isinstance(page, dict)  # check_page said so
        attributes = page["page_info"].get("page_attribute") or {}
        if any(attributes.get(k) != v for k, v in wanted.items()):
            continue  # not asked for: OmniDocBench's filter leaves it out silently
        name = page_name(page)
        if name in taken:
            loaded.skipped.append(Skipped(str(truth), line, f"[{index}]: the image {name} is also [{taken[name]}]'s"))
            continue
        picture = found.get(name)
        if picture is None:
            loaded.skipped.append(Skipped(str(truth), line, f"[{index}]: no image {name} in {images}"))
            continue
        taken[name] = index
        loaded.cases.append(
            {
                "id": stem_path(name),
                "source": f"{truth}:{line}",
                "image": str(picture),
                "layout": page,
                "tags": page_tags(page),
            }
        )
    return loaded


def _ground_truth(config: dict, root: Path, base: Path) -> Path:
    if "ground_truth" in config:
        return config_file(config, "ground_truth", base)
    candidates = sorted(p.name for p in root.iterdir() if p.suffix.lower() == ".json" and p.is_file())
    if len(candidates) != 1:
        named = f"{len(candidates)}: {', '.join(candidates)}" if candidates else "none"
        raise DatasetError(
            "path", f"expected one ground-truth .json file in {root}, found {named}; name it with ground_truth:"
        )
    return root / candidates[0]


def _pages(path: Path) -> list[tuple[object, int]]:
    """The pages of a ground-truth file, each with the line it starts on. OmniDocBench's own file
    is some 110 MB: parsed by the json module, a page at a time, not through the YAML composer
    that locates every key of a case file (forty times slower, and a dict entry per key)."""
    text = read_text(path, "ground_truth", "ground truth file")
    decoder = json.JSONDecoder()
    position = _skip(text, 0)
    if text[position : position + 1] != "[":
        raise DatasetError("ground_truth", f"{path}: expected a JSON list of pages (OmniDocBench's format)")
    pages: list[tuple[object, int]] = []
    line, counted = 1, 0
    position = _skip(text, position + 1)
    while text[position : position + 1] != "]":
        line += text.count("\n", counted, position)
        counted = position
        try:
            page, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            message = f"{path}:{exc.lineno}: malformed JSON: {exc.msg} (column {exc.colno})"
            raise DatasetError("ground_truth", message) from None
        except RecursionError:
            raise DatasetError("ground_truth", f"{path}:{line}: {doc.nesting_message()}") from None
        pages.append((page, line))
        position = _skip(text, position)
        if text[position : position + 1] == ",":
            position = _skip(text, position + 1)
        elif text[position : position + 1] != "]":
            where = line + text.count("\n", counted, position)
            raise DatasetError("ground_truth", f"{path}:{where}: malformed JSON: expected ',' or ']' after a page")
    if _skip(text, position + 1) != len(text):
        raise DatasetError("ground_truth", f"{path}: malformed JSON: more after the list of pages")
    return pages


def _skip(text: str, position: int) -> int:
    """The position of the next character that is not JSON whitespace."""
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position
