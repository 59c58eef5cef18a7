"""OmniDocBench's end-to-end scoring of a page's Markdown, ported exactly, quirks included.

The reference is OmniDocBench v1.5's code (``opendatalab/OmniDocBench``; the snapshot ``pichiu/OmniDocBench`` at
commit 7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d, Apache-2.0): ``clean`` is its ``utils/data_preprocess.py``,
``extract`` its ``utils/extract.py``, ``match`` its ``utils/match_quick.py`` and ``utils/match.py``, ``page`` its
``End2EndDataset``'s work on one page and each sample's metric values: ``score_page(page, markdown)``; ``truth``
checks what the scorer reads of a page of ground truth before it reads it (``check_page``, ``GroundTruthError``). Its
libraries (pylatexenc, exactly the version it pins, and scipy) are the ``omnidocbench`` extra, imported when a
page is first scored: ``import pytest_ocr.metrics`` never loads them.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING

from ... import lazy
from ...errors import OcrError
from ...imports import load_failure

if TYPE_CHECKING:
    from .page import ELEMENTS, MAX_MATCH_WORK, EditCounts, PageScores, Sample, score_page
    from .truth import GroundTruthError, check_page

SCORER = "omnidocbench"
VERSION = "v1.5@7bd6c2e"

INSTALL_HINT = 'pip install "pytest-ocr[omnidocbench]"'


class Unavailable(OcrError, ImportError):
    """A library of the ``omnidocbench`` extra could not be imported: the page cannot be scored."""


class MissingExtra(Unavailable):
    """A library of the ``omnidocbench`` extra is not installed."""


def require(module: str) -> ModuleType:
    """``module`` imported, or :class:`MissingExtra` saying how to install it when it is not
    installed; :class:`Unavailable` saying why when it is but could not be loaded (a process out
    of memory cannot load scipy's compiled modules: that is not a package to install)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        raise MissingExtra(
            f"OmniDocBench's scoring needs {module.partition('.')[0]} ({exc}); install it with {INSTALL_HINT}"
        ) from exc
    except (ImportError, MemoryError) as exc:
        raise Unavailable(f"OmniDocBench's scoring: {load_failure(module, exc)}") from None


# The public API, imported from page.py (and truth.py: what a page of ground truth must be) when first read (PEP 562).
__getattr__, __dir__ = lazy.names(
    __name__,
    {
        **{name: "page" for name in ("ELEMENTS", "MAX_MATCH_WORK", "EditCounts", "PageScores", "Sample", "score_page")},
        "GroundTruthError": "truth",
        "check_page": "truth",
    },
)
__all__ = [
    "ELEMENTS",
    "MAX_MATCH_WORK",
    "EditCounts",
    "GroundTruthError",
    "PageScores",
    "Sample",
    "check_page",
    "score_page",
]
