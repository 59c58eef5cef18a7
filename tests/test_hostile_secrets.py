"""Secrets echoed back, in a real session with every output asked for: a server that quotes the
header it got in a 403 and in the recognised text, and the API key and a URL's query value in
the text; a command engine printing its `env` secret on stderr and in its output. No output
file and no line of the terminal holds any of them (nor a part of one cut where a message is
shortened), while the metrics are those of the text as the engines returned it."""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import DATA, run_bounded

from pytest_ocr import metrics, redaction
from pytest_ocr.engines import EngineError, EngineRegistry, EngineSpec

HEADER = "hdr-Secret-4b1e9a7c"
KEY = "sk-hostile-KEY-8d2f6c3a"
QUERY = "sig-Query-5e7a1b9d"
ENV = "env-Secret-2c8e4f6a"
VAULT = "vault-Secret-7e3d9b1f"
SECRETS = (HEADER, KEY, QUERY, ENV, VAULT)
EXPECTED = "hello world"
# A 403 body is shown up to its 300th character: this puts the first 10 of the header's value there.
PAD = 300 - len("forbidden: token ") - 10


class Echo(BaseHTTPRequestHandler):
    """POST /forbid: a 403 quoting the X-Api-Token header, after PAD characters. Any other POST:
    a 200 whose text quotes that header, the Authorization header and the request's query."""

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        token = self.headers.get("X-Api-Token", "")
        if self.path.startswith("/forbid"):
            status, body = 403, "x" * PAD + f"forbidden: token {token} is not valid here"
        else:
            query = self.path.partition("?")[2]
            text = f"{EXPECTED} {token} {self.headers.get('Authorization', '')} {query}"
            status, body = 200, json.dumps({"text": text, "fields": {"token": token}, "warnings": [f"saw {token}"]})
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


TOOL = """
import os, sys
secret = os.environ["TOOL_TOKEN"]
if sys.argv[1] == "fails":
    # the last 2,000 characters of stderr are shown: they start 7 characters into the secret
    after = " rejected\\n" + "y" * (2000 - 12 - 11) + "\\n"
    sys.stderr.write("x" * 100 + "token " + secret + after)
    sys.exit(3)
print("hello world", secret)
"""


# An engine type of the user's, which registers its secret as the README says, prints it and
# raises it: what pytest shows of its item (the error, the captured output) loses it.
VAULT_ENGINE = """
import sys
from pytest_ocr import redaction
from pytest_ocr.engines import EngineError

class Vault:
    def __init__(self, spec):
        self.token = spec.options["token"]
        redaction.register(self.token)

    def recognize(self, image):
        print("vault token", self.token)
        print("vault token", self.token, file=sys.stderr)
        raise EngineError(f"the vault refused token {self.token}")

    def fingerprint(self):
        return {"type": "vault", "version": None, "config": {}}

def pytest_ocr_register_engines(registry):
    registry.register("vault", Vault)
"""


def hostile_suite(root: Path, url: str) -> None:
    (root / "tool.py").write_text(TOOL, encoding="utf-8")
    (root / "conftest.py").write_text(VAULT_ENGINE, encoding="utf-8")
    (root / "scan.jpg").write_bytes((DATA / "lines" / "rapidocr_en_rec.jpg").read_bytes())
    token, tool_env = {"X-Api-Token": HEADER}, {"TOOL_TOKEN": ENV}
    fast = {"timeout": 10, "retries": 0}
    engines = {
        "forbidden": {"type": "http", "url": f"{url}/forbid", "headers": token, **fast},
        "echo": {
            "type": "http",
            "url": f"{url}/ocr?sig={QUERY}",
            "headers": token,
            "api_key_env": "HOSTILE_KEY",
            "fields_path": "fields",
            **fast,
        },
        **{
            f"tool-{mode}": {"type": "command", "argv": [sys.executable, "tool.py", mode, "{image}"], "env": tool_env}
            for mode in ("fails", "prints")
        },
        "vault": {"type": "vault", "token": VAULT},
    }
    suite = {
        "engines": engines,
        "defaults": {"engine": list(engines)},
        # a threshold the echoed texts miss: their failures show a diff of the text
        "cases": [{"id": "scan", "image": "scan.jpg", "expected": {"text": EXPECTED}, "thresholds": {"cer": "< 0.1"}}],
    }
    (root / "s.ocr.json").write_text(json.dumps(suite), encoding="utf-8")


def leaks(text: str) -> list[str]:
    """Each secret, or a half of one, found in ``text``."""
    return [part for s in SECRETS for part in (s, s[: len(s) // 2], s[len(s) // 2 :]) if part in text]


@pytest.mark.slow
@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_secrets_echoed_back_are_in_no_output_and_the_metrics_are_those_of_the_text_returned(tmp_path, workers):
    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        hostile_suite(tmp_path, f"http://127.0.0.1:{server.server_address[1]}")
        summary = tmp_path / "step-summary.md"
        result = run_bounded(
            tmp_path,
            *workers,
            "-rA",
            "--ocr-report=report.json",
            "--ocr-html=report.html",
            "--ocr-results-dir=results",
            "--junitxml=junit.xml",
            memory_mb=1000,
            timeout=120,
            env={
                "HOSTILE_KEY": KEY,
                "GITHUB_ACTIONS": "true",
                "GITHUB_STEP_SUMMARY": str(summary),
                "GITHUB_WORKSPACE": str(tmp_path),
            },
        )
    finally:
        server.shutdown()
        server.server_close()
    assert result.returncode == 1, result.output[-3000:]
    assert result.seconds < 60 and result.max_rss_mb < 400, (result.seconds, result.max_rss_mb)  # 3-8 s, 100 MB
    report = result.report(tmp_path)
    records = {r["engine"]: r for r in report["results"]}
    assert {e: r["outcome"] for e, r in records.items()} == {
        "echo": "failed",
        "forbidden": "error",
        "tool-fails": "error",
        "tool-prints": "failed",
        "vault": "error",
    }

    # What each engine said reached every output, with its secrets replaced.
    assert "HTTP 403 Forbidden" in records["forbidden"]["error"]
    assert f"{'x' * PAD}forbidden: token ***" in records["forbidden"]["error"]  # redacted, then cut
    assert "exited with code 3; stderr:\n...(stderr shortened)\n" in records["tool-fails"]["error"]
    assert records["echo"]["prediction"] == f"{EXPECTED} *** Bearer *** ***"  # the whole query is a secret too
    assert records["echo"]["fields"] == {"token": "***"} and "saw ***" in records["echo"]["warnings"]
    assert records["tool-prints"]["prediction"] == f"{EXPECTED} ***\n"
    outputs = [tmp_path / name for name in ("report.json", "report.html", "junit.xml", "step-summary.md")]
    outputs += [path for path in (tmp_path / "results").rglob("*") if path.is_file()]
    assert len(outputs) > 4 and all(path.stat().st_size > 0 for path in outputs)
    assert "HTTP 403 Forbidden" in result.output and "Bearer ***" in result.output  # the terminal shows them
    assert "the vault refused token ***" in result.output and "Captured stdout setup" in result.output
    assert "::error " in result.output  # GitHub's annotations, on the terminal
    found = {str(path.relative_to(tmp_path)): leaks(path.read_text(encoding="utf-8")) for path in outputs}
    found["the terminal"] = leaks(result.output)
    assert {where: parts for where, parts in found.items() if parts} == {}

    # Scored on the text as returned: each metric as computed here on it.
    returned = {
        "echo": f"{EXPECTED} {HEADER} Bearer {KEY} sig={QUERY}",
        "tool-prints": f"{EXPECTED} {ENV}\n",
    }
    for engine, text in returned.items():
        expected = {name: m.value for name, m in metrics.score(EXPECTED, text, records[engine]["metrics"]).items()}
        assert records[engine]["metrics"] == expected, engine
    assert records["echo"]["metrics"]["cer"] > 5  # not the redacted text's (about 2)


def test_each_engine_registers_what_it_keeps_secret(monkeypatch):
    """What the engines register, checked through what is then redacted: header values and
    their words, the key, a URL's user, password and query values (as written and decoded),
    `env` values; values shorter than 8 characters are left alone."""
    monkeypatch.setenv("HOSTILE_KEY", KEY)
    registry = EngineRegistry()
    registry.create(
        EngineSpec(
            "h",
            "http",
            {
                "url": "http://bob-the-user:pa%24%24word-1234@127.0.0.1:9/ocr?token=tok%2Fen-5678&lang=eng",
                "headers": {"Authorization": "Basic dXNlcjpzZWNyZXQx", "X-Tenant": "qa"},
                "api_key_env": "HOSTILE_KEY",
                "api_key_header": "X-Key",
            },
        )
    )
    openai = {"base_url": "http://127.0.0.1:9/v1", "model": "m", "headers": {"X-Api-Token": HEADER}}
    registry.create(EngineSpec("o", "openai", openai))
    registry.create(EngineSpec("c", "command", {"argv": [sys.executable, "{image}"], "env": {"A": ENV, "B": 1}}))
    text = (
        f"{KEY} dXNlcjpzZWNyZXQx bob-the-user pa$$word-1234 pa%24%24word-1234 tok/en-5678 tok%2Fen-5678 "
        f"{HEADER} {ENV} qa eng 1"
    )
    assert redaction.redact(text) == "*** *** *** *** *** *** *** *** *** qa eng 1"
    registry.close()
    # in what results hold: keys too, nested; what holds none is the same object
    document = {"fields": {f"k {KEY}": [ENV, ("qa", HEADER)]}, "cer": 0.5, "text": "clean"}
    assert redaction.redact(document) == {"fields": {"k ***": ["***", ("qa", "***")]}, "cer": 0.5, "text": "clean"}
    clean = {"fields": {"k": ["qa", ("qa", 1)]}, "text": "clean"}
    assert redaction.redact(clean) is clean


def test_an_engine_option_holding_a_secret_is_not_echoed_when_it_is_invalid():
    registry = EngineRegistry()
    for spec in (
        EngineSpec("h", "http", {"url": "http://127.0.0.1:9/ocr", "headers": {"X-Key": 12345678901234}}),
        EngineSpec("c", "command", {"argv": ["x", "{image}"], "env": {"TOKEN": [ENV]}}),
    ):
        with pytest.raises(EngineError) as info:
            registry.create(spec)
        assert "values not shown: they may be secrets" in str(info.value)
        assert "12345678901234" not in str(info.value) and ENV not in str(info.value)
