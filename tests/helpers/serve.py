"""``pytest-ocr serve`` workers started for a test, and raw HTTP requests to them."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import urllib3
from conftest import DATA

CLI = str(Path(sys.executable).parent / "pytest-ocr")

LINE = DATA / "lines" / "archiscribe_bub_gb_CWT4uVeV8dAC_2a7a729e.png"

URL_LINE = re.compile(r"on (http://\S+) with")


class Worker:
    def __init__(self, proc: subprocess.Popen, url: str, stderr: Path, ready: str = "") -> None:
        self.proc, self.url, self.stderr = proc, url, stderr
        self.ready = ready  # the line it printed when ready
        self.http = urllib3.PoolManager(maxsize=8, retries=False, timeout=60)

    def request(self, method: str, path: str, **kwargs) -> tuple[int, dict]:
        response = self.http.request(method, f"{self.url}{path}", **kwargs)
        return response.status, json.loads(response.data)

    def stop(self, signum: int = signal.SIGTERM) -> int:
        self.proc.send_signal(signum)
        return self.proc.wait(timeout=20)


@contextlib.contextmanager
def serving(tmp_path: Path, *args: str, env: dict | None = None, limits: Callable[[], None] | None = None):
    """`pytest-ocr serve ARGS --port 0` as a subprocess; the URL from the line it prints.
    ``limits`` runs in the child before it starts (resource limits)."""
    stderr = tmp_path / "serve.stderr"
    with stderr.open("w") as err:
        proc = subprocess.Popen(
            [CLI, "serve", *args, "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env={**os.environ, **(env or {})},
            preexec_fn=limits,
        )
    try:
        line = proc.stdout.readline()
        found = URL_LINE.search(line)
        assert found, f"no URL in {line!r}; stderr: {stderr.read_text()}"
        yield Worker(proc, found[1], stderr, line)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def status_and_document(answer: bytes) -> tuple[int, dict]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def post_head(framing: str, content_type: str = "application/json") -> bytes:
    return f"POST /ocr HTTP/1.1\r\nHost: worker\r\nContent-Type: {content_type}\r\n{framing}\r\n".encode()


def engine_config(tmp_path: Path, name: str, module: str, source: str, function: str, **kwargs) -> Path:
    (tmp_path / f"{module}.py").write_text(source)
    config = tmp_path / "ocr.yaml"
    engine = {"type": "python", "function": f"{module}:{function}", **({"kwargs": kwargs} if kwargs else {})}
    config.write_text(json.dumps({"engines": {name: engine}}))
    return config


def post_image(url: str, timeout: float = 30) -> tuple[int, http.client.HTTPMessage, dict]:
    """One POST /ocr on its own new connection (http.client): status, headers, JSON answer."""
    host, port = url.removeprefix("http://").split(":")
    body, content_type = urllib3.encode_multipart_formdata({"image": ("line.png", LINE.read_bytes(), "image/png")})
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        connection.request("POST", "/ocr", body=body, headers={"Content-Type": content_type})
        response = connection.getresponse()
        return response.status, response.msg, json.loads(response.read())  # msg: headers, any case
    finally:
        connection.close()
