"""A run whose outputs all came from the cache for an engine that may sample says so, once
per engine, in every summary (terminal, Markdown): engines against a real HTTP server on
127.0.0.1 that answers two readings in turn, and a python engine whose repeats in the
baseline gave different outputs, each run twice so that the second run is all cached."""

from __future__ import annotations

import itertools
import json

import pytest
from conftest import DATA
from engine_helpers.servers import FakeServer, completion

from pytest_ocr.engines.sampling import may_sample

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

READINGS = ("hello world", "hello wor1d")
# answers the two readings in turn, as a sampling service would at random
ALTERNATING = """
import itertools

READINGS = ("hello world", "hello wor1d")
_calls = itertools.count()

def read(image_path):
    return READINGS[next(_calls) % 2]
"""
STEADY = "def read(image_path):\n    return 'hello world'\n"
# what a pytest-ocr serve worker running Tesseract says at /info
SERVED_TESSERACT = {"engine": "tess", "fingerprint": {"type": "tesseract", "version": "5.3.0", "config": {}}}


@pytest.fixture
def server():
    calls = itertools.count()

    def reply(request):
        if request.path == "/info":
            return SERVED_TESSERACT
        text = READINGS[next(calls) % 2]
        return completion(text) if request.path.startswith("/v1/chat/completions") else {"text": text}

    with FakeServer(reply=reply) as started:
        yield started


def project(pytester: pytest.Pytester, server: FakeServer) -> None:
    fast = {"timeout": 5, "retries": 0}
    engines = {
        "svc": {"type": "http", "url": server.ocr_url, **fast},
        "served": {"type": "http", "url": server.ocr_url, "info_url": f"{server.url}/info", **fast},
        "vlm": {"type": "openai", "base_url": server.base_url, "model": "fake-vlm", **fast},
        "pinned": {"type": "openai", "base_url": server.base_url, "model": "fake-vlm-2024-08-06", **fast},
        "hot": {"type": "openai", "base_url": server.base_url, "model": "fake-vlm-2024-08-06", "temperature": 0.7},
        "local": {"type": "python", "function": "alternating:read"},
        "steady": {"type": "python", "function": "steady:read"},
    }
    pytester.makeini("[pytest]\npythonpath = .\nocr_config = ocr-config.yaml\n")
    pytester.makefile(".yaml", **{"ocr-config": json.dumps({"engines": engines})})
    pytester.makepyfile(alternating=ALTERNATING, steady=STEADY)
    for name, scan in (("a", "rapidocr_en_rec.jpg"), ("b", "rapidocr_text_rec.jpg")):
        (pytester.path / f"{name}.jpg").write_bytes((DATA / "lines" / scan).read_bytes())
    suite = {
        "defaults": {"engine": list(engines)},
        "cases": [{"id": name, "image": f"{name}.jpg", "expected": {"text": "hello world"}} for name in ("a", "b")],
    }
    pytester.makefile(".ocr.yaml", suite=json.dumps(suite))


def notes(lines: list[str]) -> dict[str, str]:
    """The summary's notes by engine, each seen once."""
    found: dict[str, str] = {}
    for line in lines:
        if "outputs came from the cache" in line:
            engine = line.split("**Note:** ")[-1].split("note: ")[-1].split(":")[0]
            assert engine not in found, f"said twice: {line}"
            found[engine] = line
    return found


def test_an_all_cached_run_of_an_engine_that_may_sample_says_so_once(pytester, server, monkeypatch):
    project(pytester, server)
    step_summary = pytester.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    base = ["-p", "no:cacheprovider", "--ocr-cache-dir=cache"]

    # fresh draws (and repeats that differ for the alternating engines): nothing to say
    first = pytester.runpytest_subprocess(*base, "--ocr-repeat=3", "--ocr-report=base.json")
    first.assert_outcomes(passed=14)
    assert notes(first.outlines) == {} and notes(step_summary.read_text().splitlines()) == {}
    baseline = json.loads((pytester.path / "base.json").read_text())
    unstable = {r["engine"] for r in baseline["results"] if r["repeats"]["unstable"]}
    # `local` alternates call by call; the server alternates over every engine's requests in
    # the order they come (concurrent ones interleave), so which of those differed may vary
    assert "local" in unstable and "steady" not in unstable
    recognitions = sum(r.method == "POST" for r in server.requests)

    # all from the cache: the engines that may sample by their fingerprint say so
    step_summary.unlink()
    second = pytester.runpytest_subprocess(*base)
    second.assert_outcomes(passed=14)
    assert sum(r.method == "POST" for r in server.requests) == recognitions  # nothing was recognised again
    said = notes(second.outlines)
    assert set(said) == {"svc", "vlm", "hot"}, said
    assert said["svc"] == (
        "note: svc: all 2 outputs came from the cache, and it is an http service, which may sample or change "
        "behind its URL: these scores are one earlier draw per item, not what it answers now (--ocr-refresh "
        "draws again; --ocr-repeat N measures the spread)"
    )
    assert "and its model 'fake-vlm' names no dated snapshot, so the provider may serve another model" in said["vlm"]
    assert "and it samples at temperature 0.7: these scores" in said["hot"]
    assert set(notes(step_summary.read_text().splitlines())) == {"svc", "vlm", "hot"}

    # with the baseline, also each engine whose repeats gave different outputs there
    step_summary.unlink()
    third = pytester.runpytest_subprocess(*base, "--ocr-baseline=base.json")
    third.assert_outcomes(passed=14)
    said = notes(third.outlines)
    assert set(said) == {"svc", "vlm", "hot"} | unstable, said
    assert said["local"] == (
        "note: local: all 2 outputs came from the cache, and its repeats gave different outputs on 2 item(s) of the "
        "baseline: these scores are one earlier draw per item, not what it answers now (--ocr-refresh draws again; "
        "--ocr-repeat N measures the spread)"
    )
    markdown = notes(step_summary.read_text().splitlines())
    assert set(markdown) == set(said) and all(line.startswith("**Note:** ") for line in markdown.values())
    assert "steady" not in said  # its repeats gave one output

    # a new draw of an engine: not all its outputs are cached, so nothing to say about it
    step_summary.unlink()
    fourth = pytester.runpytest_subprocess(*base, "--ocr-refresh", "--ocr-engine=svc")
    fourth.assert_outcomes(passed=2)
    assert notes(fourth.outlines) == {}


@pytest.mark.parametrize(
    ("fingerprint", "why"),
    [
        ({"type": "http", "config": {"url": "http://x/ocr"}}, "it is an http service"),
        ({"type": "http", "config": {"remote": {"type": "tesseract"}}}, None),
        ({"type": "http", "config": {"remote": {"type": "openai", "config": {"model": "m"}}}}, "behind its pytest"),
        ({"type": "openai", "config": {"model": "gpt-4o", "temperature": 0.0}}, "names no dated snapshot"),
        ({"type": "openai", "config": {"model": "gpt-4o-2024-08-06", "temperature": 0.0}}, None),
        ({"type": "openai", "config": {"model": "claude-3-5-sonnet-20241022", "temperature": 0}}, None),
        ({"type": "openai", "config": {"model": "llava:13b", "temperature": 0}}, "names no dated snapshot"),
        ({"type": "openai", "config": {"model": "m-2024-08-06", "temperature": 1}}, "samples at temperature 1"),
        ({"type": "openai", "config": {"model": "build-120240806", "temperature": 0}}, "names no dated snapshot"),
        ({"type": "tesseract", "version": "5.3.0", "config": {}}, None),
        (None, None),
    ],
)
def test_what_may_sample_by_its_fingerprint(fingerprint, why):
    found = may_sample(fingerprint)
    assert (found is None) if why is None else (found is not None and why in found), found
