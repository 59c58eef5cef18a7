from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "example_suite" / "data"

# An engine users write in plain Python: reads the "OCR output" from a side-car
# file next to the image, so plugin tests control exactly what the engine returns
# while running the real `python` engine type end to end.
SIDECAR_ENGINE = """
from pathlib import Path

def read(image_path):
    sidecar = Path(image_path).with_suffix(".ocr.txt")
    if not sidecar.exists():
        raise RuntimeError("engine crashed on " + Path(image_path).name)
    return sidecar.read_text(encoding="utf-8")
"""

ENGINE_CONFIG = """
engines:
  fake:
    type: python
    function: sidecar_engine:read
defaults:
  engine: fake
"""


# pythonpath (not sys.path tweaks) so that pytest-xdist workers find the engine too.
INI = "[pytest]\npythonpath = .\nocr_config = ocr-config.yaml\n"


@pytest.fixture
def suite(pytester: pytest.Pytester):
    """A pytester dir with the sidecar engine as default and helpers to add cases."""
    pytester.makepyfile(sidecar_engine=SIDECAR_ENGINE)
    pytester.makefile(".yaml", **{"ocr-config": ENGINE_CONFIG})
    pytester.makeini(INI)
    return Suite(pytester)


class Suite:
    def __init__(self, pytester: pytest.Pytester):
        self.pytester = pytester
        self.path = pytester.path

    def image(self, name: str, ocr_text: str | None, source: str = "pages/tess_phototest.tif") -> str:
        """Copy a real image under ``name`` and set what the sidecar engine will 'read'."""
        target = self.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DATA / source, target)
        if ocr_text is not None:
            target.with_suffix(".ocr.txt").write_text(ocr_text, encoding="utf-8")
        return name

    def write(self, name: str, text: str) -> Path:
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path


requires_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None, reason="the tesseract binary is not installed"
)
