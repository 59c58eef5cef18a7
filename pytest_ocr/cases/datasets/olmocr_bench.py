"""olmOCR-Bench (``olmocr-bench``): its JSONL files of facts about PDF pages, one case per page with its
facts as checks."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ...media import document as doc
from ...metrics.facts import FactError, parse_fact
from .common import (
    DatasetError,
    Loaded,
    Skipped,
    config_directory,
    engine_named,
    read_text,
    stem_path,
    tree_of,
    walk_files,
)

# -- olmOCR-Bench: facts about PDF pages --------------------------------------------------

BASELINE_CATEGORY = "baseline"  # the category olmOCR-Bench gives the baseline facts it adds


def olmocr_bench(config: dict, base: Path) -> Loaded:
    """olmOCR-Bench's layout: the facts in ``path``'s ``*.jsonl`` files (the file's name
    is the facts' category), the documents in ``path/pdfs/``, and every other folder a
    system's stored outputs (a ``page-outputs`` engine named after the folder). One case
    per page, carrying its facts. As olmOCR-Bench does, every PDF without a ``baseline``
    fact gets one on its first page (category ``baseline``) unless ``baseline: false``.
    A line that is not a well-formed fact, or names a PDF that is not in ``pdfs/``, is
    skipped with its file, line and reason."""
    root = config_directory(config, "path", base)
    pdfs = root / "pdfs"
    if not pdfs.is_dir():
        raise DatasetError("path", f"no pdfs/ folder in {root} (olmOCR-Bench keeps its documents in pdfs/)")
    tree = tree_of(config, root)
    loaded = Loaded()
    documents: set[str] = set()
    refused: dict[str, str] = {}  # a document outside the dataset -> why
    for relative, document in walk_files(pdfs, ["*.pdf"], []):
        escape = tree.outside(document)
        if escape is None:
            documents.add(relative)
        else:
            refused[relative] = escape
            loaded.skipped.append(Skipped(str(document), None, escape))
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and p.name != "pdfs" and p.name[0] != "."):
        escape = tree.outside(folder)
        if escape is not None:
            raise DatasetError("path", escape)
        engine = engine_named("path", folder)
        loaded.engines[engine] = {
            "type": "page-outputs",
            "path": os.path.relpath(folder, base),
            "documents": os.path.relpath(pdfs, base),
        }
        if tree.follow_symlinks:  # its outputs too may be links out of the dataset
            loaded.engines[folder.name]["follow_symlinks"] = True
    pages: dict[tuple[str, int], list[dict]] = {}
    sources: dict[tuple[str, int], str] = {}
    lines: dict[int, tuple[Path, int]] = {}  # id(a fact) -> its file and line
    files = sorted(p for p in root.iterdir() if p.suffix == ".jsonl" and p.is_file())
    if not files:
        raise DatasetError("path", f"no .jsonl files of facts in {root}")
    for file in files:
        escape = tree.outside(file)
        if escape is not None:
            loaded.skipped.append(Skipped(str(file), None, escape))
            continue
        text = read_text(file, "path", "facts file")
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            fact, problem = _bench_fact(line, documents, refused, file.stem)
            if problem is not None:
                loaded.skipped.append(Skipped(str(file), number, problem))
                continue
            key = (fact["pdf"], fact["page"])
            pages.setdefault(key, []).append(fact)
            lines[id(fact)] = (file, number)
            sources.setdefault(key, f"{file}:{number}")
    if config.get("baseline", True):
        with_baseline = {pdf for (pdf, _), facts in pages.items() if any(f["type"] == "baseline" for f in facts)}
        for pdf in sorted(documents - with_baseline):
            fact = {"pdf": pdf, "page": 1, "id": f"{pdf}_baseline", "type": "baseline", "category": BASELINE_CATEGORY}
            pages.setdefault((pdf, 1), []).append(fact)
            sources.setdefault((pdf, 1), str(pdfs / pdf))
    for (pdf, page), facts in sorted(pages.items()):
        checks = [{k: v for k, v in f.items() if k not in ("pdf", "page")} for f in facts]
        name = f"{stem_path(pdf)}_pg{page}"
        # A baseline fact olmOCR-Bench adds is written nowhere: it points at its page's first fact, or its PDF.
        first = lines.get(id(facts[0]), (pdfs / pdf, 1))
        loaded.cases.append(
            {
                "id": name,
                "source": sources[(pdf, page)],
                "image": str(pdfs / pdf),
                "page": page,
                "checks": checks,
                "check_sources": [lines.get(id(f), first) for f in facts],
            }
        )
    return loaded


def _bench_fact(line: str, documents: set[str], refused: dict[str, str], category: str) -> tuple[dict, str | None]:
    """A line of an olmOCR-Bench facts file as a fact with its category, or why it is none
    (``refused``: documents outside the dataset, and why)."""
    try:
        fact = doc.json_value(line)
    except ValueError as exc:
        return {}, f"not valid JSON: {exc}"
    if not isinstance(fact, dict):
        return {}, f"expected a JSON object, got {type(fact).__name__}"
    pdf, page = fact.get("pdf"), fact.get("page")
    if not isinstance(pdf, str) or not pdf:
        return {}, "no 'pdf' (the document's path in pdfs/)"
    if not isinstance(page, int) or isinstance(page, bool) or page < 1:
        return {}, f"'page' must be a page number from 1, got {json.dumps(page)}"
    if Path(pdf).as_posix() in refused:
        return {}, f"the document {pdf}: {refused[Path(pdf).as_posix()]}"
    if Path(pdf).as_posix() not in documents:
        return {}, f"the document {pdf} is not in pdfs/"
    fact = {**fact, "pdf": Path(pdf).as_posix(), "category": category}
    try:
        parse_fact(fact)
    except FactError as exc:
        return {}, f"fact {fact.get('id', '?')}: {exc}"
    return fact, None
