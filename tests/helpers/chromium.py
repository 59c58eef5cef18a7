"""Headless Chromium for the HTML report's tests: run once on a page (``rendered``: the DOM after its
script ran) or driven over the DevTools protocol (``Browser``)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from helpers.dom import Node, Tree

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

BROWSER_TIMEOUT = 90  # seconds for one headless Chromium run, start to exit


def chromium(tmp_path: Path, url: str, *options: str) -> subprocess.CompletedProcess:
    """Run headless Chromium once, in a fresh profile, killed with its children when it overruns."""
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    argv = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
        *options,
        url,
    ]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=BROWSER_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError(f"chromium did not finish within {BROWSER_TIMEOUT} s: {url}") from None
    assert proc.returncode == 0, err[-3000:]
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def console(proc: subprocess.CompletedProcess) -> list[str]:
    """What the page logged to its console (uncaught errors, policy violations)."""
    return [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]


def rendered(tmp_path: Path, page: Path, fragment: str = "") -> Node:
    """The DOM after the page's script ran; fails on any console message or script error."""
    proc = chromium(tmp_path, page.as_uri() + fragment, "--dump-dom")
    assert console(proc) == []
    body = Tree(proc.stdout).root.find("body")
    assert "data-ocr-error" not in body.attrs, body.attrs["data-ocr-error"]
    return body


class Browser:
    """Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
    JSON messages ending in NUL, commands on fd 3, answers on fd 4), so the page is clicked
    and read as a reader's browser runs it, with no driver library. Collects what the page
    logs and the exceptions it throws."""

    def __init__(self, tmp_path: Path):
        profile = tmp_path / f"cdp-profile-{time.monotonic_ns()}"
        commands_read, self._commands = os.pipe()
        self._answers, answers_write = os.pipe()
        # Above 10, so that putting them on 3 and 4 in the child cannot overwrite one with the other.
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (commands_read, answers_write)]

        def on_3_and_4() -> None:
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.proc = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--remote-debugging-pipe",
                f"--user-data-dir={profile}",
                "--window-size=1280,1600",
                "about:blank",
            ],
            pass_fds=(3, 4),
            preexec_fn=on_3_and_4,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        for fd in (commands_read, answers_write, *high):
            os.close(fd)
        self._buffer = b""
        self._next = 0
        self.events: list[dict] = []
        self.deadline = time.monotonic() + BROWSER_TIMEOUT
        targets = self.call("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True}, False)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable")

    def _message(self) -> dict:
        while b"\0" not in self._buffer:
            if time.monotonic() > self.deadline:
                raise AssertionError(f"chromium did not answer within {BROWSER_TIMEOUT} s")
            chunk = os.read(self._answers, 1 << 16)
            if not chunk:
                raise AssertionError("chromium closed the DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, params: dict | None = None, session: bool = True) -> dict:
        self._next += 1
        message = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._message()
            if answer.get("id") == self._next:
                assert "error" not in answer, (method, answer["error"])
                return answer["result"]
            if answer.get("method") in ("Runtime.exceptionThrown", "Runtime.consoleAPICalled", "Log.entryAdded"):
                self.events.append(answer)

    def js(self, expression: str):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def open(self, url: str) -> None:
        self.call("Page.navigate", {"url": url})
        self.wait("document.readyState === 'complete' && document.body.hasAttribute('data-ocr-rendered')")

    def click(self, selector: str) -> None:
        """A real mouse click (pressed and released) at the middle of the element."""
        box = self.js(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1], "button": "left", "clickCount": 1}
            )

    def choose(self, selector: str, value: str) -> None:
        """Choose an option of a select as its popup would: the value set, a change event."""
        self.js(
            f"(() => {{ const s = document.querySelector({json.dumps(selector)}); s.value = {json.dumps(value)};"
            " s.dispatchEvent(new Event('change', {bubbles: true})); })()"
        )

    def wait(self, expression: str) -> None:
        while self.js(expression) is not True:
            assert time.monotonic() < self.deadline, f"never true: {expression}"
            time.sleep(0.05)

    def rows(self) -> list[str]:
        return self.js("Array.from(document.querySelectorAll('tr.case-row'), r => r.dataset.id)")

    def close(self) -> None:
        try:
            self.call("Browser.close", session=False)
            self.proc.wait(timeout=10)
        except Exception:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        finally:
            os.close(self._commands)
            os.close(self._answers)
