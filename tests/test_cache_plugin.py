"""The output cache through the plugin: re-running unchanged cases does not call the
engine; changing the image or the engine's configuration recomputes exactly what it
affects; --ocr-refresh and --ocr-no-cache; shared safely by xdist workers."""

from __future__ import annotations

import json

import pytest
from conftest import DATA

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

COUNTING_ENGINE = """
import os
from pathlib import Path

def read(image_path, suffix=""):
    with open(Path(__file__).parent / "calls.log", "a") as log:
        log.write(Path(image_path).stem + "\\n")
    return Path(image_path).with_suffix(".ocr.txt").read_text(encoding="utf-8") + suffix
"""


def make_suite(pytester, names=("a", "b", "c"), suffix="") -> None:
    pytester.makepyfile(counting=COUNTING_ENGINE)
    pytester.makeini("[pytest]\npythonpath = .\n")
    image = (DATA / "pages" / "tess_phototest.tif").read_bytes()
    for name in names:
        (pytester.path / f"{name}.tif").write_bytes(image + name.encode())  # different bytes per image
        (pytester.path / f"{name}.ocr.txt").write_text(f"text {name}")
    cases = "\n".join(f"  - {{id: {n}, image: {n}.tif, expected: {{text: text {n}}}}}" for n in names)
    kwargs = f", kwargs: {{suffix: '{suffix}'}}" if suffix else ""
    pytester.makefile(
        ".ocr.yaml",
        suite=f"""
engines: {{counting: {{type: python, function: "counting:read"{kwargs}}}}}
defaults: {{engine: counting}}
cases:
{cases}
""",
    )


def calls(pytester) -> list[str]:
    log = pytester.path / "calls.log"
    calls = sorted(log.read_text().split()) if log.exists() else []
    log.unlink(missing_ok=True)
    return calls


def run(pytester, *args):
    return pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",
        "--ocr-cache-dir",
        "ocr-cache",
        "--ocr-report",
        "report.json",
        *args,
    )


def report(pytester) -> dict:
    return {r["case"]: r for r in json.loads((pytester.path / "report.json").read_text())["results"]}


def test_unchanged_cases_are_not_recognized_again(pytester):
    make_suite(pytester)
    run(pytester).assert_outcomes(passed=3)
    assert calls(pytester) == ["a", "b", "c"]
    first = report(pytester)
    result = run(pytester)
    result.assert_outcomes(passed=3)
    assert calls(pytester) == []
    assert "OCR outputs from the cache: 3 of 3" in result.stdout.str()
    second = report(pytester)
    assert all(r["cached"] for r in second.values()) and not any(r["cached"] for r in first.values())
    for case in "abc":  # the same output and scores; not timed as new, the original time kept apart
        assert second[case]["prediction"] == first[case]["prediction"]
        assert second[case]["metrics"] == first[case]["metrics"]
        assert second[case]["inference_s"] is None and first[case]["cached_inference_s"] is None
        assert second[case]["cached_inference_s"] == first[case]["inference_s"] > 0


def test_a_changed_image_or_engine_invalidates_exactly_what_it_affects(pytester):
    make_suite(pytester)
    run(pytester)
    calls(pytester)
    (pytester.path / "b.tif").write_bytes((pytester.path / "b.tif").read_bytes() + b"changed")
    run(pytester).assert_outcomes(passed=3)
    assert calls(pytester) == ["b"]
    make_suite(pytester, suffix=" v2")  # new engine options: a new fingerprint for every case
    result = run(pytester)
    result.assert_outcomes(passed=3)  # no thresholds here: only the recomputation matters
    assert calls(pytester) == ["a", "b", "c"]
    assert all(r["prediction"].endswith(" v2") for r in report(pytester).values())


def test_refresh_and_no_cache(pytester):
    make_suite(pytester)
    run(pytester)
    calls(pytester)
    run(pytester, "--ocr-refresh")
    assert calls(pytester) == ["a", "b", "c"]
    run(pytester)
    assert calls(pytester) == []
    run(pytester, "--ocr-no-cache")
    assert calls(pytester) == ["a", "b", "c"]
    assert not any(r["cached"] for r in report(pytester).values())


def test_xdist_workers_share_the_cache(pytester):
    make_suite(pytester, names=[f"img{i}" for i in range(8)])
    run(pytester, "-n", "2").assert_outcomes(passed=8)
    assert len(calls(pytester)) == 8
    run(pytester, "-n", "2").assert_outcomes(passed=8)
    assert calls(pytester) == []
    assert not list((pytester.path / "ocr-cache").rglob("*.tmp"))


def test_the_default_cache_lives_in_pytests_cache_directory(pytester):
    make_suite(pytester, names=["a"])
    pytester.runpytest("-p", "no:hypothesispytest").assert_outcomes(passed=1)
    assert list((pytester.path / ".pytest_cache" / "d" / "ocr-outputs").rglob("*.json"))
    pytester.runpytest("-p", "no:hypothesispytest").assert_outcomes(passed=1)
    assert calls(pytester) == ["a"]  # the second run hit the cache
