"""`pytest-ocr serve` as a real subprocess: its endpoints give what the engine gives, bad requests
get clear 4xx answers, engine failures a 500 with the engine's message; signals stop it cleanly;
and the plugin, through the http and openai engines, scores exactly what Tesseract reads directly."""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import urllib3
from conftest import DATA, requires_tesseract

from pytest_ocr.engines import EngineError, EngineRegistry, EngineSpec
from pytest_ocr.engines.tesseract import TesseractEngine

pytest_plugins = ["pytester"]

CLI = str(Path(sys.executable).parent / "pytest-ocr")
FAKE_OCR = Path(__file__).parent / "engine_helpers" / "fake_ocr.py"
TIFF = DATA / "pages" / "tess_phototest.tif"
LINE = DATA / "lines" / "archiscribe_bub_gb_CWT4uVeV8dAC_2a7a729e.png"
URL_LINE = re.compile(r"on (http://\S+) with")

# A Python engine that reports how many recognitions ran at once (at most) and the file it got.
COUNTING_ENGINE = """
import threading, time
from pathlib import Path

lock = threading.Lock()
running = peak = 0

def read(path):
    global running, peak
    with lock:
        running += 1
        peak = max(peak, running)
    time.sleep(0.3)
    with lock:
        running -= 1
    return f"{peak} {Path(path).name} {Path(path).exists()}"
"""


class Worker:
    def __init__(self, proc: subprocess.Popen, url: str, stderr: Path) -> None:
        self.proc, self.url, self.stderr = proc, url, stderr
        self.http = urllib3.PoolManager(maxsize=8, retries=False, timeout=60)

    def request(self, method: str, path: str, **kwargs) -> tuple[int, dict]:
        response = self.http.request(method, f"{self.url}{path}", **kwargs)
        return response.status, json.loads(response.data)

    def stop(self, signum: int = signal.SIGTERM) -> int:
        self.proc.send_signal(signum)
        return self.proc.wait(timeout=20)


@contextlib.contextmanager
def serving(tmp_path: Path, *args: str, env: dict | None = None):
    """`pytest-ocr serve ARGS --port 0` as a subprocess; the URL from the line it prints."""
    stderr = tmp_path / "serve.stderr"
    with stderr.open("w") as err:
        proc = subprocess.Popen(
            [CLI, "serve", *args, "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env={**os.environ, **(env or {})},
        )
    try:
        line = proc.stdout.readline()
        found = URL_LINE.search(line)
        assert found, f"no URL in {line!r}; stderr: {stderr.read_text()}"
        yield Worker(proc, found[1], stderr)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def start_failing(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CLI, "serve", *args], capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def tesseract_worker(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("serve"), "--engine", "tesseract") as worker:
        yield worker


@pytest.fixture(scope="module")
def direct():
    """What Tesseract reads from the test images, run here without any server."""
    engine = TesseractEngine(EngineSpec("tesseract", "tesseract"))
    return {image: engine.recognize(image) for image in (TIFF, LINE)}


def as_data_url(image: Path, mime: str) -> str:
    return f"data:{mime};base64,{base64.b64encode(image.read_bytes()).decode()}"


def chat_request(url: str, model: str = "tesseract") -> dict:
    return {
        "model": model,
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "Transcribe."}, {"type": "image_url", "image_url": {"url": url}}],
            }
        ],
    }


# --- endpoints -----------------------------------------------------------------------------


@requires_tesseract
def test_ocr_multipart_and_base64_give_what_the_engine_gives(tesseract_worker, direct):
    expected = direct[TIFF]
    answer = {
        "text": expected.text,
        "lines": expected.lines,
        "confidence": expected.confidence,
        "fields": None,
        "warnings": [],
        "engine": "tesseract",
    }
    fields = {"image": ("scan.tif", TIFF.read_bytes(), "image/tiff")}
    assert tesseract_worker.request("POST", "/ocr", fields=fields) == (200, answer)
    body = json.dumps({"image": base64.b64encode(TIFF.read_bytes()).decode()})
    assert tesseract_worker.request("POST", "/ocr", body=body, headers={"Content-Type": "application/json"}) == (
        200,
        answer,
    )


@requires_tesseract
def test_chat_completions_answer_like_an_openai_server(tesseract_worker, direct):
    body = json.dumps(chat_request(as_data_url(LINE, "image/png")))
    status, answer = tesseract_worker.request(
        "POST", "/v1/chat/completions", body=body, headers={"Content-Type": "application/json"}
    )
    assert status == 200
    assert (
        answer["object"] == "chat.completion"
        and answer["model"] == "tesseract"
        and answer["id"].startswith("chatcmpl-")
    )
    assert answer["choices"] == [
        {"index": 0, "message": {"role": "assistant", "content": direct[LINE].text}, "finish_reason": "stop"}
    ]
    assert answer["usage"] == {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}


@requires_tesseract
def test_models_info_and_health(tesseract_worker):
    status, models = tesseract_worker.request("GET", "/v1/models")
    assert status == 200 and [m["id"] for m in models["data"]] == ["tesseract"] and models["object"] == "list"
    status, info = tesseract_worker.request("GET", "/info")
    assert status == 200 and info["engine"] == "tesseract"
    assert info["fingerprint"] == TesseractEngine(EngineSpec("tesseract", "tesseract")).fingerprint()
    assert tesseract_worker.request("GET", "/health") == (200, {"status": "ok"})


def multipart(**fields) -> dict:
    return {"fields": fields}


def json_body(document) -> dict:
    return {
        "body": document if isinstance(document, str) else json.dumps(document),
        "headers": {"Content-Type": "application/json"},
    }


NOT_AN_IMAGE = b"%!PS-Adobe-3.0 not an image"
EXPECTED_OCR = (
    'expected multipart/form-data with the image in file field "image", '
    'or application/json {"image": "<base64 of the image>"}'
)


@requires_tesseract
@pytest.mark.parametrize(
    ("method", "path", "request_kwargs", "status", "message"),
    [
        (
            "POST",
            "/ocr",
            multipart(file=("a.png", b"x", "image/png"), lang="eng"),
            400,
            f"no file field 'image' in the form (fields: file, lang); {EXPECTED_OCR}",
        ),
        (
            "POST",
            "/ocr",
            multipart(image=("a.ps", NOT_AN_IMAGE, "image/png")),
            400,
            "expected an image (PNG, JPEG, TIFF, GIF, BMP or WebP); got 27 bytes starting with b'%!PS-Ado'",
        ),
        (
            "POST",
            "/ocr",
            {"body": b"garbage", "headers": {"Content-Type": "multipart/form-data; boundary=xyz"}},
            400,
            f"malformed multipart body; {EXPECTED_OCR}",
        ),
        ("POST", "/ocr", json_body({"picture": "aGVsbG8="}), 400, f"the JSON body has no key 'image'; {EXPECTED_OCR}"),
        (
            "POST",
            "/ocr",
            json_body({"image": "not base64!"}),
            400,
            "'image' is not valid base64 (Only base64 data is allowed)",
        ),
        ("POST", "/ocr", json_body({"image": 42}), 400, "'image' must be a base64 string, got int"),
        (
            "POST",
            "/ocr",
            json_body('{"image": '),
            400,
            "the body is not valid JSON (Expecting value: line 1 column 11 (char 10))",
        ),
        (
            "POST",
            "/ocr",
            {"body": b"raw bytes", "headers": {"Content-Type": "text/plain"}},
            415,
            f"unsupported Content-Type 'text/plain'; {EXPECTED_OCR}",
        ),
        (
            "POST",
            "/v1/chat/completions",
            json_body({"model": "tesseract", "messages": [{"role": "user", "content": "hi"}]}),
            400,
            'no image in the messages; expected a content part {"type": "image_url", "image_url": {"url": "data:..."}}',
        ),
        (
            "POST",
            "/v1/chat/completions",
            json_body(chat_request("https://example.com/scan.png")),
            400,
            "image_url must be a data URL (data:image/png;base64,...); this worker fetches no URLs",
        ),
        (
            "POST",
            "/v1/chat/completions",
            json_body(chat_request("data:image/png,rawdata")),
            400,
            "image_url must be a base64 data URL (data:<mime>;base64,<data>)",
        ),
        (
            "POST",
            "/v1/chat/completions",
            json_body(chat_request("data:image/png;base64,aGVsbG8=", model="gpt-4o")),
            404,
            "the model 'gpt-4o' does not exist; this worker serves 'tesseract'",
        ),
        (
            "POST",
            "/v1/chat/completions",
            json_body({"model": "tesseract"}),
            400,
            "expected a chat-completions request: a JSON object with a list 'messages'",
        ),
        (
            "POST",
            "/v1/chat/completions",
            {"body": b"{}", "headers": {"Content-Type": "text/plain"}},
            415,
            "unsupported Content-Type 'text/plain'; expected application/json",
        ),
        (
            "GET",
            "/ocr",
            {},
            404,
            "no endpoint GET /ocr; endpoints: POST /ocr, POST /v1/chat/completions, "
            "GET /v1/models, GET /info, GET /health",
        ),
        ("POST", "/v1/completions", json_body({}), 404, "no endpoint POST /v1/completions; endpoints: "),
    ],
)
def test_bad_requests_get_a_4xx_saying_what_was_expected(
    tesseract_worker, method, path, request_kwargs, status, message
):
    got_status, answer = tesseract_worker.request(method, path, **request_kwargs)
    assert got_status == status
    assert answer["error"]["message"].startswith(message)
    assert answer["error"]["type"] in ("invalid_request_error", "not_found_error")


def raw_request(url: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, dict]:
    """A request with exactly these headers (http.client adds no Content-Length when given one or told not to)."""
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.putrequest("POST", "/ocr")
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders(body)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


@requires_tesseract
def test_too_large_and_unsized_bodies_are_refused_before_reading(tesseract_worker):
    status, answer = raw_request(
        tesseract_worker.url, {"Content-Type": "application/json", "Content-Length": str(60 * 2**20)}, b"{"
    )
    assert status == 413
    assert answer["error"]["message"] == f"the body is {60 * 2**20} bytes; at most {50 * 2**20} (50 MB) are accepted"
    status, answer = raw_request(
        tesseract_worker.url, {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}, b"0\r\n\r\n"
    )
    assert (status, answer["error"]["message"]) == (411, "a Content-Length header is required")
    # The worker is still there for the next client.
    assert tesseract_worker.request("GET", "/health") == (200, {"status": "ok"})


@requires_tesseract
def test_a_large_image_within_the_limit_is_read(tesseract_worker):
    big = TIFF.read_bytes() + bytes(3 * 2**20)  # a TIFF with 3 MB of padding after its data
    status, answer = tesseract_worker.request("POST", "/ocr", fields={"image": ("big.tif", big, "image/tiff")})
    assert status == 200 and answer["text"].startswith("This is a lot of 12 point text")


def test_engine_failures_are_500_with_the_engines_message(tmp_path):
    config = tmp_path / "ocr.yaml"
    config.write_text(
        json.dumps(
            {"engines": {"broken": {"type": "command", "argv": [sys.executable, str(FAKE_OCR), "fail", "{image}"]}}}
        )
    )
    with serving(tmp_path, "--engine", "broken", "--config", str(config)) as worker:
        status, answer = worker.request("POST", "/ocr", fields={"image": ("a.png", LINE.read_bytes(), "image/png")})
        assert status == 500 and answer["error"]["type"] == "engine_error"
        assert re.fullmatch(
            r"command '.*python.*' on /\S+/image\.png exited with code 3; stderr:\n"
            r"\.\.\.\(stderr shortened\)\nx+\nmodel file missing",
            answer["error"]["message"],
        )
        # and what an http engine makes of it: an EngineError carrying the worker's message
        engine = EngineRegistry().create(EngineSpec("remote", "http", {"url": f"{worker.url}/ocr", "retries": 0}))
        with pytest.raises(EngineError) as info:
            engine.recognize(LINE)
        assert "failed after 1 attempt: HTTP 500 Internal Server Error" in str(info.value)
        assert "exited with code 3" in str(info.value)
        assert worker.stop() == 0


def test_workers_bound_recognitions_at_once_and_temp_files_are_removed(tmp_path):
    (tmp_path / "counting_engine.py").write_text(COUNTING_ENGINE)
    config = tmp_path / "ocr.yaml"
    config.write_text("engines:\n  counter: {type: python, function: 'counting_engine:read'}\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with serving(
        tmp_path, "--engine", "counter", "--config", str(config), "--workers", "2", env={"TMPDIR": str(scratch)}
    ) as worker:
        jpeg = (DATA / "lines" / "rapidocr_en_rec.jpg").read_bytes()

        def post(_):
            return worker.request("POST", "/ocr", fields={"image": ("scan.jpeg", jpeg, "image/jpeg")})

        with ThreadPoolExecutor(6) as pool:
            answers = list(pool.map(post, range(6)))
        assert all(status == 200 for status, _ in answers)
        peaks = [int(answer["text"].split()[0]) for _, answer in answers]
        assert max(peaks) == 2
        # The engine got the image as a file named by its content's type, which existed then and is gone now.
        assert {answer["text"].split(maxsplit=1)[1] for _, answer in answers} == {"image.jpg True"}
        assert list(scratch.iterdir()) == []
        assert worker.stop() == 0


@requires_tesseract
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signals_stop_the_worker_cleanly(tmp_path, signum):
    with serving(tmp_path, "--engine", "tesseract") as worker:
        assert worker.request("GET", "/health")[0] == 200
        assert worker.stop(signum) == 0
    assert "pytest-ocr serve: stopped" in worker.stderr.read_text()
    assert "Traceback" not in worker.stderr.read_text()


# --- start-up errors ---------------------------------------------------------------------------


def test_unknown_engine_lists_what_can_be_served(tmp_path):
    result = start_failing(tmp_path, "--engine", "nope")
    assert result.returncode == 2
    assert result.stderr.startswith("pytest-ocr serve: unknown engine 'nope'; engine types usable by name: ")
    assert "tesseract" in result.stderr and "openai" in result.stderr
    config = tmp_path / "ocr.yaml"
    config.write_text("engines:\n  deu: {type: tesseract, lang: deu}\n")
    result = start_failing(tmp_path, "--engine", "nope", "--config", str(config))
    assert f"unknown engine 'nope'; engines declared in {config}: deu; engine types usable by name: " in result.stderr


def test_configuration_errors_are_reported(tmp_path):
    result = start_failing(tmp_path, "--engine", "x", "--config", str(tmp_path / "missing.yaml"))
    assert (result.returncode, result.stderr) == (
        2,
        f"pytest-ocr serve: configuration file not found: {tmp_path / 'missing.yaml'}\n",
    )
    config = tmp_path / "ocr.yaml"
    config.write_text("engines:\n  klingon: {type: tesseract, lang: tlh}\n  bad: [1]\n")
    result = start_failing(tmp_path, "--engine", "klingon", "--config", str(config))
    assert result.returncode == 2 and "invalid configuration file" in result.stderr and "ocr.yaml:3" in result.stderr
    config.write_text("engines:\n  klingon: {type: tesseract, lang: tlh}\n")
    result = start_failing(tmp_path, "--engine", "klingon", "--config", str(config))
    assert result.returncode == 2 and "Tesseract language(s) tlh not installed" in result.stderr
    assert "klingon" in result.stderr and "ocr.yaml:2" in result.stderr
    result = start_failing(tmp_path, "--engine", "tesseract", "--workers", "0")
    assert (result.returncode, result.stderr) == (2, "pytest-ocr serve: --workers must be 1 or more, got 0\n")


@requires_tesseract
def test_a_port_in_use_is_a_clear_error(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = start_failing(tmp_path, "--engine", "tesseract", "--port", str(port))
    assert (result.returncode, result.stderr) == (
        2,
        f"pytest-ocr serve: cannot listen on 127.0.0.1:{port}: Address already in use\n",
    )


# --- the plugin through the worker ---------------------------------------------------------------


@requires_tesseract
def test_plugin_through_the_worker_scores_what_tesseract_reads_directly(pytester, tesseract_worker, direct):
    for image in (TIFF, LINE):
        shutil.copy(image, pytester.path)
        shutil.copy(image.with_suffix(".gt.txt"), pytester.path)
    url = tesseract_worker.url
    pytester.makeini("[pytest]\nocr_config = ocr-config.yaml\n")
    pytester.makefile(
        ".yaml",
        **{
            "ocr-config": f"""
engines:
  worker-http: {{type: http, url: "{url}/ocr", info_url: "{url}/info", lines_path: lines, confidence_path: confidence}}
  worker-openai: {{type: openai, base_url: "{url}/v1", model: tesseract}}
"""
        },
    )
    pytester.makefile(
        ".ocr.yaml",
        pages=f"""
defaults:
  engine: [tesseract, worker-http, worker-openai]
cases:
  - id: phototest
    image: {TIFF.name}
    expected: {{text_file: {TIFF.stem}.gt.txt}}
    thresholds: {{cer: "< 0.01"}}
  - id: fraktur-line
    image: {LINE.name}
    expected: {{text_file: {LINE.stem}.gt.txt}}
    thresholds: {{cer: "< 0.2"}}   # measured: 3/24 = 0.125 ("AWpyothefer" for "Apotheker")
""",
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--ocr-report", "report.json")
    result.assert_outcomes(passed=6)
    report = json.loads((pytester.path / "report.json").read_text())
    records = {(r["case"], r["engine"]): r for r in report["results"]}
    for case, image in (("phototest", TIFF), ("fraktur-line", LINE)):
        reference = records[case, "tesseract"]
        assert reference["prediction"] == direct[image].text  # the plugin's own tesseract run, as run here
        for engine in ("worker-http", "worker-openai"):
            assert records[case, engine]["prediction"] == direct[image].text
            assert records[case, engine]["metrics"] == reference["metrics"]
    assert records["fraktur-line", "tesseract"]["metrics"]["cer"] > 0.1  # a case where equality says something
    assert records["phototest", "worker-http"]["confidence"] == direct[TIFF].confidence
    engines = report["engines"]
    assert engines["worker-http"]["version"] == engines["tesseract"]["version"]
    assert engines["worker-http"]["config"]["remote"]["config"] == engines["tesseract"]["config"]
    assert engines["worker-openai"]["config"]["model"] == "tesseract"
