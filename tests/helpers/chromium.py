"""Headless Chromium for the HTML report's tests: run once on a page (``rendered``: the DOM after its
script ran) or driven over the DevTools protocol (``Browser``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from helpers.dom import Node, Tree
from pytest_ocr.browser.chromium import DevTools, find_browser, one_shot_argv

CHROMIUM = find_browser()

BROWSER_TIMEOUT = 90  # seconds for one headless Chromium run, start to exit


def chromium(tmp_path: Path, url: str, *options: str) -> subprocess.CompletedProcess:
    """Run headless Chromium once, in a fresh profile, killed with its children when it overruns."""
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    argv = one_shot_argv(CHROMIUM, profile, url, "--enable-logging=stderr", "--v=0", *options)
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
    """Headless Chromium driven over the DevTools protocol (``pytest_ocr.browser.chromium``), so
    the page is clicked and read as a reader's browser runs it, with no driver library. Collects
    what the page logs and the exceptions it throws."""

    def __init__(self) -> None:
        self.events: list[dict] = []
        self.deadline = time.monotonic() + BROWSER_TIMEOUT
        self.devtools = DevTools(CHROMIUM, BROWSER_TIMEOUT, on_event=self._event)
        self.session = self.devtools.new_page(self.deadline)
        # A window of 1280 x 1600, as a reader's (not an emulated viewport, which scrolls otherwise).
        window = self.devtools.call("Browser.getWindowForTarget", None, self.deadline, session=self.session)
        bounds = {"width": 1280, "height": 1600}
        self.devtools.call("Browser.setWindowBounds", {"windowId": window["windowId"], "bounds": bounds}, self.deadline)
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable")

    def _event(self, message: dict) -> None:
        if message["method"] in ("Runtime.exceptionThrown", "Runtime.consoleAPICalled", "Log.entryAdded"):
            self.events.append(message)

    def call(self, method: str, params: dict | None = None) -> dict:
        return self.devtools.call(method, params, self.deadline, session=self.session)

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
        self.devtools.close()
