"""Two real runs of a small suite (a baseline and a head) with their JSON reports, for the comparison tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import DATA, INI, SIDECAR_ENGINE

# A second engine whose version and options we change between the runs (its fingerprint),
# reading the same side-car files as the `fake` engine. The version lives in another
# module so that the engine's own source stays the same.
ENGINE2 = """
from pathlib import Path

from engine2_version import __version__

def read(image_path, variant="a"):
    return Path(image_path).with_suffix(".ocr.txt").read_text(encoding="utf-8")
"""

CONFIG = """
engines:
  fake: {{type: python, function: sidecar_engine:read}}
  fake2: {{type: python, function: engine2:read, kwargs: {{variant: {variant}}}}}
defaults:
  engine: fake
  thresholds: {{cer: "< 0.15"}}
  metrics: [char_accuracy]
"""

# BASE and HEAD case files; each case reads its own image's side-car text.
BASE_CASES = """cases:
  - {id: worse, image: worse.tif, expected: {text: abcdefghij}}
  - {id: better, image: better.tif, expected: {text: abcdefghij}, thresholds: {cer: "< 0.05"}}
  - {id: same, image: same.tif, expected: {text: hello world}}
  - {id: removed, image: removed.tif, expected: {text: "0123456789"}}
  - {id: crashes, image: crashes.tif, expected: {text: abcdefghij}}
  - {id: other, image: other.tif, expected: {text: xyz}, engine: fake2}
"""

HEAD_CASES = """cases:
  - {id: worse, image: worse.tif, expected: {text: abcdefghij}}
  - {id: better, image: better.tif, expected: {text: abcdefghij}, thresholds: {cer: "< 0.05"}}
  - {id: same, image: same.tif, expected: {text: hello world}}
  - {id: new, image: new.tif, expected: {text: klmnopqrst}}
  - {id: crashes, image: crashes.tif, expected: {text: abcdefghij}}
  - {id: new-broken, image: broken.tif, expected: {text: abcdefghij}}
  - {id: other, image: other.tif, expected: {text: xyz}, engine: fake2}
"""

# What the engine "reads" (None: no side-car, the engine raises: an error item).
BASE_OUTPUT = {
    "worse": "abcdefghiX",
    "better": "abcdeXghij",
    "same": "hello world",
    "removed": "0123456788",
    "crashes": "abcdefghij",
    "other": "xyz",
}

HEAD_OUTPUT = {
    "worse": "abcdeVWXYZ",
    "better": "abcdefghij",
    "same": "hello world",
    "new": "klmnopqrsX",
    "crashes": None,
    "broken": None,
    "other": "xyz",
}


def _run_pytest(root: Path, report: str) -> None:
    result = subprocess.run(
        # no output cache: every case shows the same image, and what the engine reads changes between runs
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "--ocr-no-cache",
            "--ocr-report",
            report,
        ],
        cwd=root,
        capture_output=True,
        text=True,
        # engine2_version.py changes within a second and keeps its size: no stale bytecode
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert result.returncode == 1, result.stdout + result.stderr  # both runs have failures
    assert (root / report).exists(), result.stdout


def _set_outputs(root: Path, outputs: dict[str, str | None]) -> None:
    for name, text in outputs.items():
        image = root / f"{name}.tif"
        if not image.exists():
            shutil.copy(DATA / "pages/tess_phototest.tif", image)
        sidecar = image.with_suffix(".ocr.txt")
        if text is None:
            sidecar.unlink(missing_ok=True)
        else:
            sidecar.write_text(text, encoding="utf-8")


def make_runs(root: Path) -> Path:
    """BASE and HEAD reports (base.json, head.json) of one project, made by the real plugin in two runs."""
    (root / "pytest.ini").write_text(INI, encoding="utf-8")
    (root / "sidecar_engine.py").write_text(SIDECAR_ENGINE, encoding="utf-8")
    for name, version, variant, cases, outputs in (
        ("base.json", "1.0", "a", BASE_CASES, BASE_OUTPUT),
        ("head.json", "1.1", "b", HEAD_CASES, HEAD_OUTPUT),
    ):
        (root / "engine2.py").write_text(ENGINE2, encoding="utf-8")
        (root / "engine2_version.py").write_text(f"__version__ = {version!r}\n", encoding="utf-8")
        (root / "ocr-config.yaml").write_text(CONFIG.format(variant=variant), encoding="utf-8")
        (root / "s.ocr.yaml").write_text(cases, encoding="utf-8")
        _set_outputs(root, outputs)
        _run_pytest(root, name)
    return root
