"""Loading case files for the dataset tests: the cases, or the one located error."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ocr.cases.loader import load_cases
from pytest_ocr.cases.model import Defaults, Scope
from pytest_ocr.media.document import DocumentError


def load(path: Path):
    return load_cases(path, Scope(Defaults(), {}))


def load_error(path: Path) -> str:
    with pytest.raises(DocumentError) as info:
        load(path)
    return str(info.value)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
