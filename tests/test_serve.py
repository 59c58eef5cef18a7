"""`pytest-ocr serve` as a real subprocess: its endpoints give what the engine gives, bad requests
get clear 4xx answers, engine failures a 500 with the engine's message; its bounds hold against
real TCP clients (bodies counted whatever their framing, a queue with 503 and Retry-After, which
the http engine waits out, a burst of 50 clients answered, none reset); signals stop it cleanly,
letting requests under way finish; and the plugin, through the http and openai engines, scores
exactly what Tesseract reads directly."""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import DATA, requires_tesseract
from helpers.serve import CLI, LINE, engine_config, post_head, post_image, serving, status_and_document

from pytest_ocr.engines import EngineError, EngineRegistry, EngineSpec
from pytest_ocr.engines.tesseract import TesseractEngine

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

FAKE_OCR = Path(__file__).parent / "engine_helpers" / "fake_ocr.py"
TIFF = DATA / "pages" / "tess_phototest.tif"

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


def raw_exchange(url: str, head: bytes, body_parts=(), wait: float = 10) -> tuple[float, bytes]:
    """Send HEAD (request line and headers) and BODY_PARTS on a plain socket, then read until the
    server closes the connection. Returns how long the answer took after the last byte sent, and
    the answer as it came. Sending may fail once the server has answered and closed."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=wait) as sock:
        sock.sendall(head)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            for part in body_parts:
                sock.sendall(part)
        sent = time.perf_counter()
        answer = b""
        with contextlib.suppress(ConnectionResetError):  # after the answer: the part of the body it did not read
            while chunk := sock.recv(65536):
                answer += chunk
        return time.perf_counter() - sent, answer


def chunked(data: bytes, size: int = 65536) -> list[bytes]:
    return [b"%x\r\n%s\r\n" % (len(data[i : i + size]), data[i : i + size]) for i in range(0, len(data), size)]


# A Python engine that reads back the size of the image it got: a body must arrive whole.
SIZE_ENGINE = """
from pathlib import Path

def read(path):
    return f"{Path(path).stat().st_size} bytes"
"""


@pytest.fixture(scope="module")
def small_worker(tmp_path_factory):
    """A worker with a 1 MB body limit and a 1 s body timeout, and an engine that gives the image's size."""
    tmp_path = tmp_path_factory.mktemp("small")
    (tmp_path / "size_engine.py").write_text(SIZE_ENGINE)
    config = tmp_path / "ocr.yaml"
    config.write_text("engines:\n  size: {type: python, function: 'size_engine:read'}\n")
    with serving(
        tmp_path, "--engine", "size", "--config", str(config), "--max-body-mb", "1", "--body-timeout", "1"
    ) as worker:
        yield worker


def json_image(size: int) -> bytes:
    """A JSON /ocr body whose image is a PNG padded to SIZE bytes."""
    png = LINE.read_bytes()
    return json.dumps({"image": base64.b64encode(png + bytes(size - len(png))).decode()}).encode()


@requires_tesseract
def test_a_body_announced_too_large_is_refused_before_it_is_read(tesseract_worker):
    status, answer = raw_request(
        tesseract_worker.url, {"Content-Type": "application/json", "Content-Length": str(60 * 2**20)}, b"{"
    )
    assert status == 413
    assert answer["error"]["message"] == (
        f"the body is {60 * 2**20} bytes; at most {50 * 2**20} (50 MB, --max-body-mb) are accepted"
    )
    # The worker is still there for the next client.
    assert tesseract_worker.request("GET", "/health") == (200, {"status": "ok"})


def test_chunked_bodies_are_read_and_counted_as_they_stream(small_worker):
    body = json_image(600_000)  # ~800 KB of JSON: within the 1 MB limit
    seconds, answer = raw_exchange(
        small_worker.url,
        post_head("Transfer-Encoding: chunked\r\nConnection: close\r\n"),
        [*chunked(body), b"0\r\n\r\n"],
    )
    status, document = status_and_document(answer)
    assert (status, document["text"]) == (200, "600000 bytes")

    # Beyond the limit, the answer comes while the client is still sending: the server does not wait
    # for (nor keep) the rest. The client here never ends its body.
    over = chunked(json_image(900_000))  # ~1.2 MB
    seconds, answer = raw_exchange(small_worker.url, post_head("Transfer-Encoding: chunked\r\n"), over, wait=10)
    status, document = status_and_document(answer)
    assert status == 413
    assert document["error"]["message"] == (
        f"the body is more than {2**20} bytes; at most {2**20} (1 MB, --max-body-mb) are accepted"
    )
    assert seconds < 0.9  # not the 1 s body timeout: refused as soon as the limit was passed
    assert small_worker.request("GET", "/health") == (200, {"status": "ok"})


@pytest.mark.parametrize("length", ["-1", "abc", "1e3", "10, 20", "+5"])
def test_a_negative_or_malformed_content_length_is_a_400(small_worker, length):
    seconds, answer = raw_exchange(small_worker.url, post_head(f"Content-Length: {length}\r\n"), [b"{}"])
    head = answer.partition(b"\r\n")[0]
    assert head == b"HTTP/1.1 400 Bad Request"  # uvicorn's HTTP parser refuses it, before any body is read
    assert small_worker.request("GET", "/health") == (200, {"status": "ok"})


def test_a_body_without_framing_is_no_body(small_worker):
    """Without Content-Length or chunked Transfer-Encoding a request has no body (HTTP/1.1): what
    follows the headers is not read as one, however long."""
    seconds, answer = raw_exchange(small_worker.url, post_head(""), [json_image(600_000), b"\r\n\r\n"])
    status, document = status_and_document(answer)
    assert status == 400
    assert document["error"]["message"].startswith("the request has no body; expected multipart/form-data")


def test_a_body_that_does_not_arrive_in_time_is_a_408(small_worker):
    head = post_head("Content-Length: 1000\r\n")
    start = time.perf_counter()
    seconds, answer = raw_exchange(small_worker.url, head, [b'{"image": "'], wait=10)  # and then nothing
    status, document = status_and_document(answer)
    assert status == 408
    assert document["error"]["message"] == "the body did not arrive within 1 s (--body-timeout); 11 bytes came"
    assert 1.0 <= time.perf_counter() - start < 2


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


# A Python engine that takes its time: SECONDS per image.
SLOW_ENGINE = """
import time

def read(path, seconds):
    time.sleep(seconds)
    return "read slowly"
"""


def test_a_full_queue_gets_503_with_retry_after(tmp_path):
    config = engine_config(tmp_path, "counter", "counting_engine", COUNTING_ENGINE, "read")
    with serving(tmp_path, "--engine", "counter", "--config", str(config), "--workers", "1", "--queue", "1") as worker:
        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(lambda _: post_image(worker.url), range(4)))
        statuses = sorted(status for status, _, _ in answers)
        assert statuses == [200, 200, 503, 503]  # one recognizing, one waiting; the others refused at once
        for status, headers, document in answers:
            if status == 200:
                assert document["text"].startswith("1 ")  # one recognition at a time
            else:
                assert headers["Retry-After"] == "1"  # no recognition had ended yet: 1 s
                assert document["error"]["type"] == "server_busy_error"
                assert document["error"]["message"] == (
                    "the worker is full: 2 requests are being recognized or waiting, the most it takes "
                    "(--workers 1 + --queue 1); retry after 1 s"
                )
        # The places are given back: the next requests are served.
        assert post_image(worker.url)[0] == 200
        assert worker.stop() == 0


def test_a_burst_of_50_clients_all_get_an_answer(tmp_path):
    """50 clients connect and post at once, on real TCP connections: each gets a 200 or a 503 with
    Retry-After, none a reset or a refused connection (the backlog holds them until accepted)."""
    config = engine_config(tmp_path, "slow", "slow_engine", SLOW_ENGINE, "read", seconds=0.05)
    clients = 50
    with serving(tmp_path, "--engine", "slow", "--config", str(config), "--workers", "2") as worker:
        start = threading.Barrier(clients)

        def client(_):
            start.wait()
            try:
                return post_image(worker.url)
            except OSError as exc:  # a reset, a refused connection, a timeout: what must not happen
                return exc

        with ThreadPoolExecutor(clients) as pool:
            answers = list(pool.map(client, range(clients)))
        failures = [answer for answer in answers if isinstance(answer, Exception)]
        assert failures == []
        statuses = [status for status, _, _ in answers]
        assert set(statuses) <= {200, 503}
        assert statuses.count(200) >= 2 + 32  # the workers and the default queue of 32 were all used
        for status, headers, document in answers:
            if status == 200:
                assert document["text"] == "read slowly"
            else:
                assert int(headers["Retry-After"]) >= 1 and document["error"]["type"] == "server_busy_error"
        assert worker.stop() == 0
    assert "Traceback" not in worker.stderr.read_text()


def test_the_http_engine_waits_for_a_full_worker_within_its_deadline(tmp_path):
    config = engine_config(tmp_path, "slow", "slow_engine", SLOW_ENGINE, "read", seconds=1.0)
    with serving(tmp_path, "--engine", "slow", "--config", str(config), "--workers", "1", "--queue", "0") as worker:

        def engine(timeout: float):
            options = {"url": f"{worker.url}/ocr", "timeout": timeout, "retries": 3, "backoff": 0.1}
            return EngineRegistry().create(EngineSpec(f"remote-{timeout:g}", "http", options))

        with ThreadPoolExecutor(1) as pool:
            first = pool.submit(engine(10).recognize, LINE)  # holds the one place for 1 s
            time.sleep(0.3)
            # A budget shorter than the Retry-After: it fails at once, saying why.
            begun = time.perf_counter()
            with pytest.raises(EngineError) as info:
                engine(0.6).recognize(LINE)
            # It did not wait the 1 s Retry-After: what it measures is that decision, not how fast a busy
            # machine makes one request (0.71 s once under a full -n auto run on two cores).
            assert time.perf_counter() - begun < 1.0
            message = str(info.value)
            assert "failed after 1 attempt: HTTP 503 Service Unavailable; " in message
            assert "the worker is full" in message
            assert re.search(
                r"the server asks to wait 1 s \(Retry-After\), more than the 0\.\d s left of the 0\.6 s", message
            )
            # A budget with room for it: it waits the Retry-After, retries, and is served.
            begun = time.perf_counter()
            assert engine(10).recognize(LINE).text == "read slowly"
            assert time.perf_counter() - begun >= 1.0 + 1.0  # Retry-After 1 s, then its own recognition of 1 s
            assert first.result().text == "read slowly"
        assert worker.stop() == 0


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_on_a_signal_requests_under_way_finish_and_new_ones_are_refused(tmp_path, signum):
    config = engine_config(tmp_path, "slow", "slow_engine", SLOW_ENGINE, "read", seconds=2.0)
    with serving(tmp_path, "--engine", "slow", "--config", str(config), "--workers", "2") as worker:
        host, port = worker.url.removeprefix("http://").split(":")
        with ThreadPoolExecutor(2) as pool:
            under_way = [pool.submit(post_image, worker.url) for _ in range(2)]
            time.sleep(0.5)  # both are in the engine now
            worker.proc.send_signal(signum)
            refused_at = None
            for _ in range(100):
                try:
                    socket.create_connection((host, int(port)), timeout=1).close()
                except ConnectionRefusedError:
                    refused_at = time.perf_counter()
                    break
                time.sleep(0.02)
            assert refused_at is not None, "the worker still accepted connections after the signal"
            assert not any(future.done() for future in under_way)  # refused while the others were still running
            for future in under_way:
                status, _, document = future.result()
                assert (status, document["text"]) == (200, "read slowly")
        assert worker.proc.wait(timeout=20) == 0
    stderr = worker.stderr.read_text()
    assert "pytest-ocr serve: stopped" in stderr and "Traceback" not in stderr


def test_without_the_serve_extra_one_line_says_what_to_install(tmp_path):
    """The serve extra's modules made unimportable in a real `pytest-ocr serve` process."""
    code = (
        "import sys; sys.modules['starlette'] = None\n"
        "from pytest_ocr.cli import main\n"
        "sys.exit(main(['serve', '--engine', 'tesseract', '--port', '0']))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "pytest-ocr serve: the serve extra is not installed (no module 'starlette'); "
        'install it with: pip install "pytest-ocr[serve]"\n'
    )


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
    for option, value, message in [
        ("--workers", "0", "--workers must be 1 or more, got 0"),
        ("--queue", "-1", "--queue must be 0 or more, got -1"),
        ("--max-body-mb", "0", "--max-body-mb must be more than 0, got 0"),
        ("--body-timeout", "-2", "--body-timeout must be more than 0 seconds, got -2"),
        ("--backlog", "0", "--backlog must be from 1 to 65,535, got 0"),
    ]:
        result = start_failing(tmp_path, "--engine", "tesseract", option, value)
        assert (result.returncode, result.stderr) == (2, f"pytest-ocr serve: {message}\n")


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
