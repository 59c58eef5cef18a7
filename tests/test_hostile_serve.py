"""`pytest-ocr serve` against hostile clients, as a real subprocess under lowered limits: slow
clients trickling their headers by the hundred (more than its open-files limit allows), clients
that hold connections, concurrent large bodies under a memory limit, and an engine that prints its
secret. A normal client is answered within seconds throughout, and nothing costs the worker its
memory or its ability to accept connections."""

from __future__ import annotations

import base64
import contextlib
import json
import resource
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers.serve import CLI, LINE, engine_config, post_head, post_image, serving, status_and_document

from pytest_ocr.engines import EngineRegistry, EngineSpec

pytestmark = pytest.mark.slow

# Reads back the size of the image it got, after taking SECONDS: a body must arrive whole.
SIZED_ENGINE = """
import time
from pathlib import Path

def read(path, seconds=0.0):
    time.sleep(seconds)
    return f"{Path(path).stat().st_size} bytes"
"""


def open_files(limit: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))  # soft and hard: it cannot raise it

    return apply


def address(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").split(":")
    return host, int(port)


class Trickle:
    """``n`` connections each sending a request line, then a header line every ``every`` seconds,
    never ending its head; a connection the server closes is opened again: a slow-client attack."""

    def __init__(self, url: str, n: int, every: float) -> None:
        self.url, self.every = url, every
        self.stop = threading.Event()
        self.opened = self.closed = self.refused = 0
        self.answers: list[bytes] = []  # what the server wrote before closing one
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.attack, daemon=True) for _ in range(n)]

    def __enter__(self) -> Trickle:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(10)

    def attack(self) -> None:
        while not self.stop.is_set():
            try:
                sock = socket.create_connection(address(self.url), timeout=5)
            except OSError:
                with self.lock:
                    self.refused += 1
                self.stop.wait(0.2)
                continue
            with self.lock:
                self.opened += 1
            with sock:
                self.trickle(sock)

    def trickle(self, sock: socket.socket) -> None:
        try:
            sock.sendall(b"POST /ocr HTTP/1.1\r\nHost: worker\r\n")
            while not self.stop.wait(self.every):
                sock.sendall(b"X-Slow: 1\r\n")
                sock.settimeout(0.01)
                with contextlib.suppress(TimeoutError):
                    answer = sock.recv(4096)
                    with self.lock:
                        self.closed += 1
                        if answer:
                            self.answers.append(answer)
                    return
                sock.settimeout(5)
        except OSError:
            with self.lock:
                self.closed += 1


def normal_requests(url: str, times: int) -> list[tuple[int, float]]:
    """``times`` POST /ocr of a normal client, each on a new connection: status and seconds."""
    answers = []
    for _ in range(times):
        start = time.perf_counter()
        status, _, document = post_image(url, timeout=20)
        answers.append((status, time.perf_counter() - start))
        assert status != 200 or document["text"] == f"{LINE.stat().st_size} bytes"
        time.sleep(0.3)
    return answers


def test_slow_clients_beyond_the_open_files_limit_leave_a_normal_client_answered(tmp_path):
    """300 connections trickle their headers at a worker whose open-files limit is 256 (it used to
    stop accepting, log "Too many open files" thousands of times a second, and leave every other
    client waiting until it timed out). Now it keeps as many connections as the limit allows, a new
    one closes the oldest that never sent a request, and a normal client is answered at once."""
    config = engine_config(tmp_path, "sized", "sized_engine", SIZED_ENGINE, "read")
    with serving(tmp_path, "--engine", "sized", "--config", str(config), limits=open_files(256)) as worker:
        kept = 256 - (64 + 2 * (1 + 32) + 4 * 1 + 4 * 16)  # the limit less the files kept for the rest
        assert f"and at most {kept} connections (the open-files limit allows no more);" in worker.ready
        with Trickle(worker.url, 300, every=0.5) as attack:
            time.sleep(2)
            answers = normal_requests(worker.url, 5)
            assert attack.opened > 300 and attack.closed > 0  # it held them off, and they came back
        assert [status for status, _ in answers] == [200] * 5
        assert max(seconds for _, seconds in answers) < 2, answers
        assert worker.stop() == 0
    stderr = worker.stderr.read_text()
    assert "Too many open files" not in stderr and "Traceback" not in stderr, stderr[-2000:]


def test_a_request_head_that_trickles_gets_408_within_the_header_timeout(tmp_path):
    config = engine_config(tmp_path, "sized", "sized_engine", SIZED_ENGINE, "read")
    with serving(tmp_path, "--engine", "sized", "--config", str(config), "--header-timeout", "1") as worker:
        with Trickle(worker.url, 3, every=0.2) as attack:
            time.sleep(2.5)
        assert attack.opened >= 6 and len(attack.answers) >= 3  # each closed after 1 s, and again
        for answer in attack.answers:
            status, document = status_and_document(answer)
            assert status == 408
            assert document["error"]["message"] == (
                "the request line and headers did not arrive within 1 s (--header-timeout)"
            )
        # A connection that says nothing is closed too; one kept alive after an answer is timed
        # from the first byte of its next request.
        # Timed from before the connection: the server's clock starts when it accepts it, which
        # can be before this thread runs again after connecting.
        start = time.perf_counter()
        with socket.create_connection(address(worker.url), timeout=5) as silent:
            assert status_and_document(silent.recv(4096))[0] == 408
            assert 1 <= time.perf_counter() - start < 1.8
        with socket.create_connection(address(worker.url), timeout=5) as kept:
            kept.sendall(b"GET /health HTTP/1.1\r\nHost: worker\r\n\r\n")
            first = b""
            while not first.endswith(b'{"status": "ok"}'):
                first += kept.recv(4096)
            assert first.startswith(b"HTTP/1.1 200 OK")
            kept.sendall(b"GET /health HTTP/1.1\r\n")  # and the rest of it never comes
            assert status_and_document(kept.recv(4096))[0] == 408
        assert post_image(worker.url)[0] == 200
        assert worker.stop() == 0


def test_beyond_the_connection_cap_an_idle_connection_makes_room_and_a_busy_worker_says_503(tmp_path):
    config = engine_config(tmp_path, "sized", "sized_engine", SIZED_ENGINE, "read", seconds=1.5)
    with serving(tmp_path, "--engine", "sized", "--config", str(config), "--max-connections", "2") as worker:
        with socket.create_connection(address(worker.url)) as idle:
            with ThreadPoolExecutor(2) as pool:
                posts = [pool.submit(post_image, worker.url) for _ in range(2)]  # 2 requests under way
                assert idle.recv(4096) == b""  # the one without a request was closed for them
                time.sleep(0.3)
                with socket.create_connection(address(worker.url), timeout=5) as third:
                    answer = third.recv(4096)
                assert [post.result()[0] for post in posts] == [200, 200]
        status, document = status_and_document(answer)
        assert (status, document["error"]["type"]) == (503, "server_busy_error")
        assert b"\r\nRetry-After: 1\r\n" in answer
        assert document["error"]["message"] == (
            "the worker keeps 2 connections open at most (--max-connections, or what the open-files limit "
            "allows), and each has a request under way; retry after 1 s"
        )
        assert worker.stop() == 0


def test_clients_holding_refused_requests_open_make_room_too(tmp_path):
    """Requests refused at a full worker have their bodies read and dropped (so that their clients
    read the 503, not a reset), for up to --body-timeout: clients that never send that body hold
    nothing under way, and a new client beyond the cap closes one of them."""
    config = engine_config(tmp_path, "sized", "sized_engine", SIZED_ENGINE, "read", seconds=3)
    args = ("--engine", "sized", "--config", str(config), "--queue", "0", "--max-connections", "4")
    with serving(tmp_path, *args, "--body-timeout", "30") as worker, ThreadPoolExecutor(1) as pool:
        busy = pool.submit(post_image, worker.url)  # the one place, for 3 s
        time.sleep(0.5)
        holders = [socket.create_connection(address(worker.url), timeout=1) for _ in range(3)]
        for holder in holders:
            holder.sendall(post_head("Content-Length: 100000\r\n") + b"{")  # refused; the rest never comes
        time.sleep(0.3)
        start = time.perf_counter()
        assert worker.request("GET", "/health") == (200, {"status": "ok"})  # the fifth connection
        assert time.perf_counter() - start < 1
        closed = []
        for holder in holders:
            with holder, contextlib.suppress(TimeoutError):
                closed.append(holder.recv(4096))
        assert closed == [b""]  # the oldest, closed without an answer
        assert busy.result()[0] == 200
        assert worker.stop() == 0


def peak_memory_mb(pid: int) -> float:
    """The process's peak resident memory so far (Linux: VmHWM)."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmHWM:")).split()[1]) / 1024


def test_concurrent_large_bodies_are_bounded_in_flight_under_a_memory_limit(tmp_path):
    """20 clients post 9 MB JSON bodies at once to a worker with a 600 MB address space, --max-body-mb
    10 and --max-inflight-mb 20 (the defaults scaled down: 20 bodies of 45 MB used to take 2.2 GB,
    and under a limit 9 of them got a 500 MemoryError). Two are taken at a time; the others get
    503 with Retry-After, and the http engine, which waits it out, gets every one recognised."""
    config = engine_config(tmp_path, "sized", "sized_engine", SIZED_ENGINE, "read", seconds=0.3)
    png = LINE.read_bytes()
    image = tmp_path / "big.png"
    image.write_bytes(png + bytes(6_900_000 - len(png)))  # 9.2 MB as base64 in JSON
    body = json.dumps({"image": base64.b64encode(image.read_bytes()).decode()}).encode()
    args = ("--engine", "sized", "--config", str(config), "--max-body-mb", "10", "--max-inflight-mb", "20")

    def memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (600 * 2**20, 600 * 2**20))

    with serving(tmp_path, *args, limits=memory) as worker:
        start = threading.Barrier(20)

        def post(_):
            start.wait()
            response = worker.http.request(
                "POST", f"{worker.url}/ocr", body=body, headers={"Content-Type": "application/json"}
            )
            return response.status, response.headers.get("Retry-After"), json.loads(response.data)

        with ThreadPoolExecutor(20) as pool:
            answers = list(pool.map(post, range(20)))
        statuses = [status for status, _, _ in answers]
        assert set(statuses) == {200, 503} and statuses.count(200) >= 2, statuses
        for status, retry_after, document in answers:
            if status == 200:
                assert document["text"] == "6900000 bytes"
            else:
                assert retry_after == "1" and document["error"]["type"] == "server_busy_error"
                assert document["error"]["message"].startswith(
                    "the worker is full: the bodies of the requests it has taken count "
                )
                assert document["error"]["message"].endswith(" MB would pass --max-inflight-mb 20; retry after 1 s")

        options = {"url": f"{worker.url}/ocr", "mode": "base64", "timeout": 90, "retries": 40, "backoff": 0.1}
        engine = EngineRegistry().create(EngineSpec("remote", "http", options))
        with ThreadPoolExecutor(6) as pool:
            texts = list(pool.map(lambda _: engine.recognize(image).text, range(6)))
        assert texts == ["6900000 bytes"] * 6
        peak = peak_memory_mb(worker.proc.pid)
        assert worker.stop() == 0
    assert peak < 300, f"peak memory {peak:.0f} MB"
    stderr = worker.stderr.read_text()
    assert "MemoryError" not in stderr and "Traceback" not in stderr, stderr[-2000:]


TOOL = """
import os, sys
if sys.argv[1] == "fail":
    sys.stderr.write("token " + os.environ["TOOL_TOKEN"] + " rejected\\n")
    sys.exit(3)
print("hello", os.environ["TOOL_TOKEN"])
"""


def test_an_engines_secret_is_in_no_answer(tmp_path):
    secret = "env-Secret-9d3b7e1a"
    (tmp_path / "tool.py").write_text(TOOL)
    config = tmp_path / "ocr.yaml"
    engines = {
        f"tool-{mode}": {"type": "command", "argv": [sys.executable, str(tmp_path / "tool.py"), mode, "{image}"]}
        for mode in ("fail", "print")
    }
    for engine in engines.values():
        engine["env"] = {"TOOL_TOKEN": secret}
    config.write_text(json.dumps({"engines": engines}))
    with serving(tmp_path, "--engine", "tool-fail", "--config", str(config)) as worker:
        status, _, document = post_image(worker.url)
        assert status == 500 and "exited with code 3; stderr:\ntoken *** rejected" in document["error"]["message"]
        assert secret not in json.dumps(document)
    with serving(tmp_path, "--engine", "tool-print", "--config", str(config)) as worker:
        assert post_image(worker.url)[2]["text"] == "hello ***\n"


@pytest.mark.parametrize(
    ("args", "limit", "message"),
    [
        (["--header-timeout", "0"], None, "--header-timeout must be more than 0 seconds, got 0"),
        (["--max-connections", "0"], None, "--max-connections must be 1 or more, got 0"),
        # the socket took a port modulo 65,536 (99999999 listened on 57599); 400 digits of backlog
        # overflowed listen() with a traceback; an infinite body timeout bounded no slow body
        (["--port", "99999999"], None, "--port must be from 0 to 65,535, got 99999999"),
        (["--backlog", "9" * 400], None, "--backlog must be from 1 to 65,535, got 999999999999999999999999999999..."),
        (["--body-timeout", "inf"], None, "--body-timeout must be more than 0 seconds, got inf"),
        (
            ["--max-body-mb", "10", "--max-inflight-mb", "5"],
            None,
            "--max-inflight-mb must be at least --max-body-mb (10), got 5",
        ),
        (
            [],
            150,
            "the open-files limit (ulimit -n) is 150, and 198 open files are kept for requests under way and the "
            "engine: raise the limit, or lower --queue and --workers",
        ),
    ],
)
def test_bounds_that_cannot_hold_are_refused_at_start(tmp_path, args, limit, message):
    result = subprocess.run(
        [CLI, "serve", "--engine", "tesseract", "--port", "0", *args],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=open_files(limit) if limit else None,
    )
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"pytest-ocr serve: {message}\n")
