"""Whole datasets as cases: a suite file's ``dataset:`` block, read by one adapter per layout.

An adapter is a pure function of the block and the suite file's directory. It returns
raw cases in the shape of a suite's ``cases:`` entries (``id``, ``image``, ``expected``,
``group``; plus ``source``, the data file and line a case comes from, and
``min_confidence``), the engines the dataset declares (``model-csv``: one
``predictions`` engine per CSV file), and the entries it skipped, each with its file,
line and reason. A skipped entry is not an error: datasets have holes (an image without
ground truth, a malformed label line), and the run reports how many and why.

Problems with the block itself (a label file or directory that does not exist) raise
DatasetError naming the option, which the loader locates in the suite file.

Layout XML (PAGE, ALTO, hOCR) and METS are untrusted input: parsed with defusedxml, which refuses
entity declarations instead of expanding them. So are the paths data files name and the
links in a dataset's folders: a file a dataset uses must be in the folders its block names
(files.Tree), else its entry is skipped, naming the path (and the file and line that named
it) or the link that leads out; ``follow_symlinks: true`` lets links lead out.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .common import DatasetError, Loaded, Skipped, unique_ids
from .labels import ground_truth_json, model_csv, paddle, pairs
from .layout import alto, hocr, page_xml
from .ocrd import ocrd_workspace
from .olmocr_bench import olmocr_bench
from .omnidocbench import omnidocbench

__all__ = [
    "ADAPTERS",
    "TYPES",
    "DatasetError",
    "Loaded",
    "Skipped",
    "load",
    "unique_ids",
]

TYPES = (
    "pairs",
    "paddle",
    "ground-truth-json",
    "model-csv",
    "page-xml",
    "alto",
    "hocr",
    "ocrd-workspace",
    "olmocr-bench",
    "omnidocbench",
)


def load(config: dict, base: Path) -> Loaded:
    """The cases of a (schema-valid) ``dataset:`` block, with unique valid ids, sorted;
    paths relative to ``base``, the suite file's directory. Raises DatasetError."""
    loaded = ADAPTERS[config["type"]](config, base)
    for raw, case_id in zip(
        loaded.cases, unique_ids([(raw["id"], raw["source"]) for raw in loaded.cases]), strict=True
    ):
        raw["id"] = case_id
    loaded.cases.sort(key=lambda raw: raw["id"])
    loaded.skipped.sort(key=lambda s: (s.file, s.line or 0))
    return loaded


ADAPTERS: dict[str, Callable[[dict, Path], Loaded]] = {
    "pairs": pairs,
    "paddle": paddle,
    "ground-truth-json": ground_truth_json,
    "model-csv": model_csv,
    "page-xml": page_xml,
    "alto": alto,
    "hocr": hocr,
    "ocrd-workspace": ocrd_workspace,
    "olmocr-bench": olmocr_bench,
    "omnidocbench": omnidocbench,
}
