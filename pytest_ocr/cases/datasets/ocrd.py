"""OCR-D workspaces (``ocrd-workspace``): the pages of a METS file's physical structure, their images and
layout files taken from its file groups."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlparse
from xml.etree.ElementTree import Element

from ...files import Tree
from .common import DatasetError, Loaded, Skipped, case_dict, config_directory, ground_truth_problem, tree_of
from .layout import _alto, _children, _descendants, _local, _page, _parse, _Unusable, _Xml

# -- ocrd-workspace: METS file groups and physical pages ----------------------------------

_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"


def _mets_files(mets: Element) -> dict[str, dict[str, Element]]:
    """The METS file groups: USE -> file ID -> its mets:file element."""
    groups: dict[str, dict[str, Element]] = {}
    for group in _descendants(mets, "fileGrp"):
        files = groups.setdefault(group.get("USE") or "", {})
        for file in _children(group, "file"):
            files[file.get("ID") or ""] = file
    return groups


def _mets_pages(mets: Element, where: Path) -> list[Element]:
    """The physical pages (structMap TYPE=PHYSICAL, div TYPE=page), by ORDER where given."""
    maps = [m for m in _descendants(mets, "structMap") if (m.get("TYPE") or "").upper() == "PHYSICAL"]
    if not maps:
        raise DatasetError("path", f'{where}: no physical structure map (mets:structMap TYPE="PHYSICAL")')
    pages = [d for d in _descendants(maps[0], "div") if (d.get("TYPE") or "").lower() == "page"]

    def order(page: Element) -> int:
        value = page.get("ORDER", "")
        return int(value) if value.isdigit() else 0

    return sorted(pages, key=order) if all(p.get("ORDER", "").isdigit() for p in pages) else pages


def _mets_path(file: Element, workspace: Path, mets: _Xml, tree: Tree) -> Path:
    """Where a mets:file is: its FLocat's href, relative to the workspace or a file: URL;
    in the workspace (``tree``), or _Unusable at the FLocat's line."""
    locations = [loc for loc in _children(file, "FLocat") if loc.get(_XLINK_HREF)]
    if not locations:
        raise _Unusable(f"file {file.get('ID')!r} has no FLocat with an xlink:href", mets.line(file))
    href, line = locations[0].get(_XLINK_HREF) or "", mets.line(locations[0])
    parsed = urlparse(href)
    if parsed.scheme in ("http", "https", "ftp"):
        raise _Unusable(
            f"file {file.get('ID')!r} is remote ({href}); pytest-ocr does not download, fetch it first", line
        )
    path = Path(os.path.normpath(unquote(parsed.path) if parsed.scheme == "file" else workspace / href))
    escape = tree.outside(path)
    if escape is not None:
        raise _Unusable(f"file {file.get('ID')!r}: xlink:href {href!r}: {escape}", line)
    return path


def ocrd_workspace(config: dict, base: Path) -> Loaded:
    """One case per physical page of an OCR-D workspace: the ground truth of file group
    ``gt`` (PAGE or ALTO) and the image of file group ``images`` that the page points at."""
    workspace = config_directory(config, "path", base)
    tree = tree_of(config, workspace)
    mets_path = workspace / config.get("mets", "mets.xml")
    escape = tree.outside(mets_path)
    if escape is not None:
        raise DatasetError("mets" if "mets" in config else "path", escape)
    if not mets_path.is_file():
        raise DatasetError("path", f"no {mets_path.name} in {workspace}: an OCR-D workspace has its METS file there")
    try:
        xml = _parse(mets_path)
    except _Unusable as exc:
        raise DatasetError("path", f"{mets_path}{f':{exc.line}' if exc.line else ''}: {exc.reason}") from None
    mets = xml.root
    if _local(mets) != "mets":
        raise DatasetError("path", f"{mets_path}: not a METS document (root element {_local(mets)!r}, expected mets)")
    groups = _mets_files(mets)
    wanted = {
        option: config.get(option, default) for option, default in (("gt", "OCR-D-GT-PAGE"), ("images", "OCR-D-IMG"))
    }
    for option, use in wanted.items():
        if use not in groups:
            have = ", ".join(sorted(g for g in groups if g)) or "none"
            raise DatasetError(option, f"no file group {use!r} in {mets_path}; its file groups: {have}")
    level = config.get("level", "line")
    loaded = Loaded()
    for number, page in enumerate(_mets_pages(mets, mets_path), 1):
        page_id = page.get("ID") or f"page-{number}"
        pointed = [fptr.get("FILEID") or "" for fptr in _children(page, "fptr")]
        found = {}
        for option, use in wanted.items():
            files = [groups[use][i] for i in pointed if i in groups[use]]
            found[option] = files[0] if files else None
        # a problem with what the page points at is located in the METS file; one inside
        # the ground-truth file, in that file (with its line)
        located = mets_path
        try:
            if found["gt"] is None or found["images"] is None:
                missing = [wanted[o] for o in ("gt", "images") if found[o] is None]
                raise _Unusable(f"no file in {' and '.join(missing)}", xml.line(page))
            truth = _mets_path(found["gt"], workspace, xml, tree)
            image = _mets_path(found["images"], workspace, xml, tree)
            # a FIFO or a directory is said to be one, not "not found"
            problem = ground_truth_problem(truth) if os.path.exists(truth) else f"ground truth not found: {truth}"
            if problem is not None:
                raise _Unusable(problem)
            if not image.is_file():
                raise _Unusable(f"image not found: {image}")
            located = truth
            root = _parse(truth).root
            if _local(root) == "PcGts":
                text, _, _ = _page(root, level)
            elif _local(root) == "alto":
                text, _, _ = _alto(root, level)
            else:
                raise _Unusable(f"neither PAGE nor ALTO (root element {_local(root)!r})")
            if not text.strip():
                raise _Unusable(f"no text at level {level}")
        except _Unusable as exc:
            loaded.skipped.append(Skipped(str(located), exc.line, f"page {page_id}: {exc.reason}"))
            continue
        except RecursionError:
            loaded.skipped.append(Skipped(str(located), None, f"page {page_id}: elements nested too deeply to read"))
            continue
        loaded.cases.append(case_dict(page_id, str(truth), image, text=text))
    return loaded
