"""A vision-language OCR service that samples, on 127.0.0.1: for each image it knows, each
request answers one of two readings, drawn at random as a sampling model's answers are.

The k-th request for an image gets the k-th draw of a generator seeded by the server's
seed and the image, so whatever order concurrent requests arrive in, an image's repeats
get the same readings: a run's outcome depends on the seed alone, and a test of how often
verdicts flap can name the runs it made.

``suite`` writes a project of ``n`` items: crops of the example suite's real page scans
(distinct images), each with a line of real ground truth from the example suite, and two
readings of it with one and three letters wrong; ``worse`` adds that share of the line's
length in further wrong letters to both readings (a real regression of that CER).
"""

from __future__ import annotations

import hashlib
import io
import json
import threading
from collections import Counter
from pathlib import Path

import numpy as np
from PIL import Image

from .servers import FakeServer

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "example_suite" / "data"


def truth_lines(n: int, min_chars: int = 40) -> list[str]:
    """``n`` distinct lines of the example suite's ground truth, at least ``min_chars`` long."""
    found: list[str] = []
    for path in sorted((DATA / "pages").glob("*.gt.txt")) + sorted((DATA / "lines").glob("*.gt.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            line = " ".join(line.split())
            if len(line) >= min_chars and line not in found:
                found.append(line[:80])
    assert len(found) >= n, f"only {len(found)} ground-truth lines of {min_chars}+ characters"
    return found[:n]


def misread(text: str, wrong: int, salt: int) -> str:
    """``text`` with ``wrong`` letters replaced, at positions spread over the line."""
    letters = [i for i, c in enumerate(text) if c.isalpha()]
    chars = list(text)
    step = max(1, len(letters) // (wrong + 1))
    for k in range(wrong):
        i = letters[(salt + (k + 1) * step) % len(letters)]
        chars[i] = "x" if chars[i] != "x" else "z"
    return "".join(chars)


def crops(n: int) -> list[bytes]:
    """``n`` distinct PNG crops of the example suite's page scans (the middle of each page,
    where there is text)."""
    paths = sorted((DATA / "pages").glob("*.tif")) + sorted((DATA / "pages").glob("*.jpg"))
    pages = [Image.open(p).convert("L") for p in paths]
    found: list[bytes] = []
    k = 0
    while len(found) < n:
        page = pages[k % len(pages)]
        width, height = page.size
        top = height // 4 + (k // len(pages)) * 45
        crop = page.crop((width // 6, top, width // 6 + 600, top + 100))
        buffer = io.BytesIO()
        crop.save(buffer, format="PNG")
        if buffer.getvalue() not in found:
            found.append(buffer.getvalue())
        k += 1
    return found


class SamplingServer:
    """One server for many runs (one URL, so one engine fingerprint): ``use`` sets the
    readings and the seed of the next run."""

    def __init__(self) -> None:
        self.readings: dict[bytes, tuple[str, ...]] = {}
        self.plan: dict[bytes, list[int]] = {}
        self.seed = 0
        self.counts: Counter[bytes] = Counter()
        self.lock = threading.Lock()
        self.draws: dict[bytes, np.ndarray] = {}
        self.server = FakeServer(reply=self.reply).start()

    def use(
        self, readings: dict[bytes, tuple[str, ...]], seed: int, plan: dict[bytes, list[int]] | None = None
    ) -> None:
        """The next run's readings and seed; ``plan``: for some images, which reading each
        request gets (by index), instead of a draw between the first two."""
        with self.lock:
            self.readings, self.seed, self.plan = readings, seed, plan or {}
            self.counts.clear()
            self.draws.clear()

    def _draw(self, image: bytes, k: int) -> int:
        if image in self.plan:
            return self.plan[image][k]
        if image not in self.draws:
            digest = int.from_bytes(hashlib.sha256(image).digest()[:8], "big")
            self.draws[image] = np.random.default_rng([self.seed, digest]).integers(0, 2, size=10_000)
        return int(self.draws[image][k])

    def reply(self, request) -> dict:
        image = request.form()["image"].data
        with self.lock:
            k = self.counts[image]
            self.counts[image] += 1
            pick = self._draw(image, k)
        return {"text": self.readings[image][pick]}

    @property
    def url(self) -> str:
        return self.server.ocr_url

    def stop(self) -> None:
        self.server.stop()


def suite(root: Path, url: str, n: int = 40) -> list[tuple[bytes, str]]:
    """A project in ``root``: ``n`` cases on a `vlm` http engine at ``url``, thresholds
    cer < 0.1; returns each image with its ground truth."""
    lines, images = truth_lines(n), crops(n)
    (root / "images").mkdir(parents=True, exist_ok=True)
    cases = []
    for i, (image, text) in enumerate(zip(images, lines, strict=True)):
        (root / "images" / f"p{i:02d}.png").write_bytes(image)
        cases.append({"id": f"p{i:02d}", "image": f"images/p{i:02d}.png", "expected": {"text": text}})
    (root / "pytest.ini").write_text("[pytest]\nocr_config = ocr-config.yaml\n")
    engines = {"vlm": {"type": "http", "url": url, "timeout": 10, "retries": 0}}
    (root / "ocr-config.yaml").write_text(json.dumps({"engines": engines}))
    suite = {"defaults": {"engine": ["vlm"], "thresholds": {"cer": "< 0.1"}}, "cases": cases}
    (root / "sampled.ocr.yaml").write_text(json.dumps(suite))
    return list(zip(images, lines, strict=True))


def readings(items: list[tuple[bytes, str]], worse: float = 0.0) -> dict[bytes, tuple[str, str]]:
    """Each image's two readings: one and three letters wrong, plus ``worse`` of its length."""
    found = {}
    for i, (image, text) in enumerate(items):
        extra = round(worse * len(text))
        found[image] = (misread(text, 1 + extra, i), misread(text, 3 + extra, i))
    return found
