"""olmOCR-Bench's own scoring of a benchmark folder, as the oracle of pytest-ocr's.

Runs olmOCR's code (the ``olmocr`` package: ``olmocr.bench.tests`` and
``olmocr.bench.benchmark.evaluate_candidate``) exactly as its ``benchmark.py`` main does:
every JSONL file's facts, a default baseline fact for each PDF that has none, one
candidate folder. olmOCR renders equations with Playwright's Chromium, which is not
downloaded here: the system's Chromium is launched in its place (the same browser
build pytest-ocr drives). Prints JSON: each fact's verdict and explanation, the
per-JSONL pass counts and the score (the mean of the per-JSONL pass rates).

Usage: python olmocr_bench.py BENCH_DIR CANDIDATE CHROMIUM OUT.json  (HOME should be a
scratch directory: olmOCR caches renderings under ~/.cache; it prints to stdout itself)."""

from __future__ import annotations

import glob
import json
import os
import sys

import playwright.sync_api._generated as playwright_api

_launch = playwright_api.BrowserType.launch


def _system_chromium(self, *args, **kwargs):
    kwargs.setdefault("executable_path", sys.argv[3])
    return _launch(self, *args, **kwargs)


playwright_api.BrowserType.launch = _system_chromium

from olmocr.bench.benchmark import evaluate_candidate  # noqa: E402
from olmocr.bench.tests import BaselineTest, load_tests  # noqa: E402


def main() -> None:
    root, candidate = sys.argv[1], sys.argv[2]
    pdfs = os.path.join(root, "pdfs")
    basenames = [os.path.relpath(p, pdfs) for p in glob.glob(os.path.join(pdfs, "**/*.pdf"), recursive=True)]
    tests, category = [], {}
    for path in sorted(glob.glob(os.path.join(root, "*.jsonl"))):
        for test in load_tests(path):
            category[test.id] = os.path.basename(path)
            tests.append(test)
    for pdf in basenames:
        if not any(t.type == "baseline" for t in tests if t.pdf == pdf):
            tests.append(BaselineTest(id=f"{pdf}_baseline", pdf=pdf, page=1, type="baseline"))
            category[tests[-1].id] = "baseline"
    *_, errors, _, _, _, results = evaluate_candidate(os.path.join(root, candidate), tests, basenames)
    verdicts = {
        test.id: {"passed": passed, "explanation": explanation}
        for pages in results.values()
        for found in pages.values()
        for test, passed, explanation in found
    }
    counts: dict[str, list[int]] = {}
    for test in tests:
        held = counts.setdefault(category[test.id], [0, 0])
        held[0] += bool(verdicts.get(test.id, {}).get("passed"))
        held[1] += 1
    score = sum(k / n for k, n in counts.values()) / len(counts)
    with open(sys.argv[4], "w", encoding="utf-8") as out:
        json.dump({"verdicts": verdicts, "categories": counts, "score": score, "errors": errors}, out)


if __name__ == "__main__":
    main()
