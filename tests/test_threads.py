"""The thread budget of engines that run threaded inference: under pytest-xdist each
worker's RapidOCR (onnxruntime) and Tesseract (OpenMP) get the cores shared out among the
workers, ``threads:`` sets it, and it never changes an engine's fingerprint or cache key."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import DATA, requires_tesseract, run_bounded
from helpers.engines import spec

from pytest_ocr.engines import _options
from pytest_ocr.engines.base import EngineError
from pytest_ocr.engines.tesseract import TesseractEngine

CORES = len(os.sched_getaffinity(0))


def test_the_budget_is_the_cores_shared_among_workers_or_the_option(monkeypatch):
    engine = spec("rapidocr")
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    assert _options.threads(engine, None) is None  # no xdist: the library's own default
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "1")
    assert _options.threads(engine, None) is None
    for workers in (2, 3, 64):
        monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", str(workers))
        assert _options.threads(engine, None) == max(1, CORES // workers)
    assert _options.threads(engine, 3) == 3  # the option wins
    with pytest.raises(
        EngineError, match=r"rapidocr engine 'my-rapidocr' \(declared at ocr.yaml:7\): option 'threads'"
    ):
        _options.threads(engine, 0)


@pytest.mark.parametrize("type_", ["rapidocr", "tesseract"])
@pytest.mark.parametrize("value", ["two", 1.5, True])
def test_a_threads_option_that_is_not_a_whole_number_is_a_located_error(type_, value):
    if type_ == "tesseract" and shutil.which("tesseract") is None:
        pytest.skip("the tesseract binary is not installed")
    from pytest_ocr.engines.registry import EngineRegistry

    with pytest.raises(EngineError) as caught:
        EngineRegistry().create(spec(type_, threads=value))
    assert f"{type_} engine 'my-{type_}' (declared at ocr.yaml:7): option 'threads' must be int" in str(caught.value)


@pytest.mark.slow
def test_rapidocr_sessions_get_the_budget_and_the_fingerprint_does_not(monkeypatch):
    pytest.importorskip("rapidocr")
    from pytest_ocr.engines.rapidocr import RapidOCREngine

    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    image = DATA / "lines" / "rapidocr_en_rec.jpg"
    found = {}
    for name, options in (
        ("budget", {}),
        ("option", {"threads": 2}),
        ("params", {"threads": 2, "params": {"EngineConfig.onnxruntime.intra_op_num_threads": 1}}),
    ):
        engine = RapidOCREngine(spec("rapidocr", **options))
        text = engine.recognize(image).text
        sessions = [getattr(engine.ocr, part).session.session for part in ("text_det", "text_rec")]
        found[name] = ({s.get_session_options().intra_op_num_threads for s in sessions}, text, engine.fingerprint())
    assert found["budget"][0] == {max(1, CORES // 2)}
    assert found["option"][0] == {2}
    assert found["params"][0] == {1}  # onnxruntime's own setting in params wins
    assert found["budget"][1] == found["option"][1] == found["params"][1]  # same text
    assert found["budget"][2] == found["option"][2]  # threads are not part of what the output depends on


@pytest.mark.slow
@requires_tesseract
def test_tesseract_runs_one_openmp_thread_unless_told_otherwise(monkeypatch):
    monkeypatch.delenv("OMP_THREAD_LIMIT", raising=False)
    for workers in (None, "2"):  # serial or under xdist: OpenMP threads only slow Tesseract down
        if workers:
            monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", workers)
        engine = TesseractEngine(spec("tesseract"))
        assert engine.env is not None and engine.env["OMP_THREAD_LIMIT"] == "1"
    assert engine.recognize(DATA / "pages" / "tess_phototest.tif").text.startswith("This is a lot of 12 point text")
    more = TesseractEngine(spec("tesseract", threads=2))
    assert more.env is not None and more.env["OMP_THREAD_LIMIT"] == "2"
    assert more.fingerprint() == engine.fingerprint()
    monkeypatch.setenv("OMP_THREAD_LIMIT", "4")  # the user's setting stays
    assert TesseractEngine(spec("tesseract")).env is None


@pytest.mark.slow
@requires_tesseract
def test_a_real_xdist_run_reads_the_same_and_records_the_same_engines(tmp_path: Path):
    pytest.importorskip("rapidocr")
    pytest.importorskip("xdist")
    pages = ("tess_phototest", "unlv_8087_054")
    for page in pages:
        for suffix in (".tif", ".gt.txt"):
            shutil.copy(DATA / "pages" / f"{page}{suffix}", tmp_path / f"{page}{suffix}")
    cases = "".join(f"  - {{id: {p}, image: {p}.tif, expected: {{text_file: {p}.gt.txt}}}}\n" for p in pages)
    suite = f'defaults:\n  engine: [tesseract, rapidocr]\n  thresholds: {{cer: "< 0.95"}}\ncases:\n{cases}'
    (tmp_path / "s.ocr.yaml").write_text(suite, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_THREAD_LIMIT", "PYTEST_XDIST_WORKER_COUNT")}
    reports = {}
    for name, extra in (("serial", ()), ("parallel", ("-n", "2"))):
        run = run_bounded(
            tmp_path,
            "-p",
            "no:cacheprovider",
            "--ocr-report",
            f"{name}.json",
            *extra,
            memory_mb=4096,
            timeout=300,
            env=env,
        )
        assert run.returncode == 0, run.output
        reports[name] = run.report(tmp_path, f"{name}.json")
    serial, parallel = reports["serial"], reports["parallel"]
    assert parallel["run"]["workers"] == 2 and serial["engines"] == parallel["engines"]
    texts = {name: {r["key"]: r["prediction"] for r in report["results"]} for name, report in reports.items()}
    assert texts["serial"] == texts["parallel"] and len(texts["serial"]) == 4
    assert json.dumps(serial["engines"]).count("thread") == 0
