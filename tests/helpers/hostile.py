"""Suites for the hostile-input tests: a stem engine, real images it reads, and what the outputs say."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

MEMORY_MB = 800

TESTS_FAILED = int(pytest.ExitCode.TESTS_FAILED)

# The engine of the good items: it "reads" the image's file name, which the case expects.
STEM_ENGINE = """
from pathlib import Path

def read(image_path):
    return Path(image_path).stem
"""


def write_suite(root: Path, engines: str, cases: list[str], module: str = STEM_ENGINE) -> Path:
    """pytest.ini, the engine module ``engine.py`` and ``s.ocr.yaml`` with these engines and cases."""
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n", encoding="utf-8")
    (root / "engine.py").write_text(module, encoding="utf-8")
    suite = root / "s.ocr.yaml"
    suite.write_text(f"engines:\n{engines}\ncases:\n" + "".join(f"  - {case}\n" for case in cases), encoding="utf-8")
    return suite


def good_image(root: Path, name: str) -> str:
    """A real image showing ``name`` (the stem engine reads its stem). Images of different
    names differ in their bytes: the cache shares outputs between identical files."""
    image = Image.new("L", (240, 60), 255)
    ImageDraw.Draw(image).text((10, 20), Path(name).stem, fill=0)
    image.save(root / name)
    return name


def stem_case(name: str, engine: str = "stem") -> str:
    """A case on ``name`` that passes only when the engine returns the image's stem."""
    stem = Path(name).stem
    return f"{{id: {stem}, image: {name}, engine: {engine}, expected: {{text: {stem}}}, thresholds: {{cer: '< 0.01'}}}}"


def results(root: Path, result) -> dict[str, dict]:
    """The report's results by case id (the report must be there and valid)."""
    return {r["case"]: r for r in result.report(root)["results"]}


def html_cases(root: Path) -> dict[str, dict]:
    """The cases the HTML page embeds, by case id."""
    page = (root / "report.html").read_text(encoding="utf-8")
    data = re.search(r'<script type="application/json" id="ocr-data">(.*?)</script>', page, re.S)
    assert data is not None, "the HTML page has no case data"
    return {case["case"]: case for case in json.loads(data[1])["cases"]}
