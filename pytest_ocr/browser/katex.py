"""LaTeX equations rendered with KaTeX in a headless Chromium, as olmOCR-Bench renders them.

olmOCR-Bench's ``math`` facts compare equations by how they look, not by their source:
each is typeset by KaTeX in a browser page and the page's innermost spans (their text and
where they are) and KaTeX's MathML are compared (``math_check.same_rendering``). This
module produces those renderings the way ``olmocr/bench/katex/render.py`` (olmocr 0.4.27)
does, without Playwright: the system's Chromium is driven over the DevTools protocol on a
pipe (``--remote-debugging-pipe``: JSON messages ending in NUL, commands on fd 3, answers
on fd 4), as the HTML report's browser tests drive it.

What makes a rendering agree with olmOCR's, box for box:

- the same KaTeX build (0.16.21, ``katex_assets/``, byte for byte the one olmocr ships,
  which is npm's ``katex@0.16.21`` ``dist/``), the same page HTML (white page, black
  text, 24 px, the equation centred by a flexbox in a 800 x 400 viewport at device scale
  1), the same ``katex.render`` call (display mode, throwOnError) and the same
  extraction script (spans with no child element and some non-space text, their trimmed
  text and ``getBoundingClientRect``; the ``.katex-mathml math`` element's outerHTML);
- the page is written into ``about:blank`` with ``document.write`` and the stylesheet
  and script are inlined, as Playwright's ``set_content``/``add_style_tag(path=)``/
  ``add_script_tag(path=)`` do. KaTeX's CSS asks for its fonts at relative URLs
  (``fonts/KaTeX_Main-Regular.woff2``...), which do not resolve against about:blank, and
  olmocr ships no fonts anyway: every KaTeX font fails to load and the text is set in
  the fallback of the CSS font lists (``KaTeX_Main, Times New Roman, serif``: on Debian,
  fontconfig gives Liberation Serif). We ship no fonts either, and use the same base
  URL, so the same fallback fonts make the same boxes;
- Playwright's per-page settings that can move text: its font family defaults
  (``Page.setFontFamilies``: serif and standard = Times New Roman, sans = Arial, ...),
  its viewport emulation, and its Chromium switches (``--hide-scrollbars``: a scroll bar
  would narrow the page a wide equation is centred in; ``--disable-field-trial-config``:
  no field trial switches a layout feature on).

Renderings depend on the Chromium build and the system's fonts as well as on KaTeX, so a
disk cache (keyed by the equation and the KaTeX version) belongs to one machine's setup.

No shell (argument lists), no network (about:blank, inline assets, Chromium's background
networking off) and every wait bounded: a browser that does not answer within the
timeout is killed, and the error says so.
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import shutil
import signal
import tempfile
import threading
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import limits
from ..errors import OcrError
from ..files import write_atomic

KATEX_VERSION = "0.16.21"
ASSETS = Path(__file__).with_name("katex_assets")
BROWSER_ENVIRONMENT_VARIABLE = "PYTEST_OCR_CHROMIUM"
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome")
# Bumped when what a cached rendering holds, or how it is made, changes.
_CACHE_FORMAT = 1
_MEMORY_ENTRIES = 4096

# olmOCR's render_equation defaults (render.py): the page and the viewport of its browser context.
_BACKGROUND = "white"
_COLOUR = "black"
_FONT_SIZE = 24
_VIEWPORT = (800, 400)

# The page olmOCR's _do_render writes (whitespace and all).
_PAGE_HTML = f"""
    <!DOCTYPE html>
    <html>
    <head>
        <style>
            body {{
                display: flex;
                justify-content: center;
                align-items: center;
                height: 100vh;
                margin: 0;
                background-color: {_BACKGROUND};
                color: {_COLOUR};
            }}
            #equation-container {{
                padding: 0;
                font-size: {_FONT_SIZE}px;
            }}
        </style>
    </head>
    <body>
        <div id="equation-container"></div>
    </body>
    </html>
    """

# Playwright's set_content, then add_style_tag and add_script_tag with file contents.
_SET_UP_PAGE = """(() => {
    document.open();
    document.write(%s);
    document.close();
    const style = document.createElement("style");
    style.type = "text/css";
    style.appendChild(document.createTextNode(%s));
    document.head.appendChild(style);
    const script = document.createElement("script");
    script.type = "text/javascript";
    script.text = %s;
    document.head.appendChild(script);
    return typeof katex !== "undefined";
})()"""

# _do_render's katex.render call: null, or KaTeX's message when it refuses the equation.
_RENDER = """(() => {
    try {
        katex.render(%s, document.getElementById("equation-container"), {
            displayMode: true,
            throwOnError: true
        });
        return null;
    } catch (error) {
        return error.message;
    }
})()"""

# _do_render's extraction: innermost spans with non-whitespace text, then the MathML.
_EXTRACT = """(() => {
    if (document.querySelector(".katex") === null) {
        return null;
    }
    const spans = [];
    for (const span of document.querySelectorAll("span")) {
        if (span.children.length === 0 && /\\S/.test(span.textContent)) {
            const rect = span.getBoundingClientRect();
            spans.push([span.textContent.trim(), rect.x, rect.y, rect.width, rect.height]);
        }
    }
    const math = document.querySelector(".katex-mathml math");
    return {spans: spans, mathml: math ? math.outerHTML : ""};
})()"""

# Playwright's Chromium switches (playwright 1.5x, chromiumSwitches plus its headless ones),
# without the ones only for Edge, Windows or macOS.
_SWITCHES = (
    "--disable-field-trial-config",
    "--disable-background-networking",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-back-forward-cache",
    "--disable-breakpad",
    "--disable-component-extensions-with-background-pages",
    "--disable-component-update",
    "--no-default-browser-check",
    "--disable-default-apps",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    "--disable-features=AvoidUnnecessaryBeforeUnloadCheckSync,DestroyProfileOnBrowserClose,HttpsUpgrades,"
    "HttpsFirstBalancedModeAutoEnable,LensOverlay,MediaRouter,PaintHolding,ThirdPartyStoragePartitioning,"
    "OptimizationHints,NetworkTimeServiceQuerying,AimEnabled,PreconnectToSearch",
    "--allow-pre-commit-input",
    "--disable-hang-monitor",
    "--disable-ipc-flooding-protection",
    "--disable-popup-blocking",
    "--disable-prompt-on-repost",
    "--disable-renderer-backgrounding",
    "--force-color-profile=srgb",
    "--metrics-recording-only",
    "--no-first-run",
    "--password-store=basic",
    "--use-mock-keychain",
    "--no-service-autorun",
    "--disable-search-engine-choice-screen",
    "--disable-sync",
    "--headless",
    "--hide-scrollbars",
    "--mute-audio",
    "--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4",
    "--no-sandbox",
    "--remote-debugging-pipe",
    "--no-startup-window",
)

# Playwright's defaults for a new page (crPage.ts): fonts, viewport, media features.
_PAGE_SETTINGS: tuple[tuple[str, dict[str, Any]], ...] = (
    (
        "Emulation.setDeviceMetricsOverride",
        {
            "mobile": False,
            "width": _VIEWPORT[0],
            "height": _VIEWPORT[1],
            "screenWidth": _VIEWPORT[0],
            "screenHeight": _VIEWPORT[1],
            "deviceScaleFactor": 1,
            "screenOrientation": {"angle": 0, "type": "landscapePrimary"},
        },
    ),
    (
        "Page.setFontFamilies",
        {
            "fontFamilies": {
                "standard": "Times New Roman",
                "fixed": "Monospace",
                "serif": "Times New Roman",
                "sansSerif": "Arial",
                "cursive": "Comic Sans MS",
                "fantasy": "Impact",
            }
        },
    ),
    (
        "Emulation.setEmulatedMedia",
        {
            "media": "",
            "features": [
                {"name": "prefers-color-scheme", "value": "light"},
                {"name": "prefers-reduced-motion", "value": "no-preference"},
                {"name": "forced-colors", "value": "none"},
                {"name": "prefers-contrast", "value": "no-preference"},
            ],
        },
    ),
)


class RendererError(OcrError, RuntimeError):
    """The browser could not render: it failed to start, crashed, or did not answer in time."""


class RendererUnavailable(RendererError):
    """No Chromium to render with."""


class RendererTimeout(RendererError):
    """The browser did not answer within the timeout (and was killed)."""


@dataclass(frozen=True)
class Box:
    """A span's ``getBoundingClientRect()`` in CSS pixels of the 800 x 400 page."""

    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class Span:
    """An innermost ``<span>`` of KaTeX's HTML with some non-whitespace text (trimmed)."""

    text: str
    box: Box


@dataclass(frozen=True)
class Rendering:
    """What KaTeX made of one equation.

    When KaTeX refused the equation (``throwOnError``), ``error`` holds its message, there
    are no spans, and ``mathml`` holds the message too: olmOCR's RenderedEquation is made
    so, and its comparison reads an error's "MathML" like any other (see
    ``math_check.same_rendering``)."""

    equation: str
    mathml: str  # the outerHTML of KaTeX's <math> element ("" if it made none)
    spans: tuple[Span, ...]
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_json(self) -> dict[str, Any]:
        return {
            "equation": self.equation,
            "mathml": self.mathml,
            "spans": [[s.text, s.box.x, s.box.y, s.box.width, s.box.height] for s in self.spans],
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rendering:
        return cls(
            equation=str(data["equation"]),
            mathml=str(data["mathml"]),
            spans=tuple(
                Span(str(text), Box(float(x), float(y), float(width), float(height)))
                for text, x, y, width, height in data["spans"]
            ),
            error=None if data["error"] is None else str(data["error"]),
        )


def find_browser(browser: str | None = None) -> str:
    """The Chromium to run: ``browser`` (a path, or a name looked up on PATH), else the
    environment variable PYTEST_OCR_CHROMIUM, else the first of chromium, chromium-browser,
    google-chrome on PATH. Raises RendererUnavailable naming how to get one."""
    if browser is None:
        browser = os.environ.get(BROWSER_ENVIRONMENT_VARIABLE) or None
        given = f"${BROWSER_ENVIRONMENT_VARIABLE} ({browser!r})"
    else:
        given = f"the browser {browser!r}"
    if browser is not None:
        if os.sep in browser or (os.altsep and os.altsep in browser):
            if os.path.isfile(browser) and os.access(browser, os.X_OK):
                return os.path.abspath(browser)
            problem = "does not exist" if not os.path.exists(browser) else "is not an executable file"
            raise RendererUnavailable(
                f"{given} {problem}; rendering equations with KaTeX needs Chromium: "
                f"install it (Debian/Ubuntu: apt-get install chromium) or point {BROWSER_ENVIRONMENT_VARIABLE} at one"
            )
        found = shutil.which(browser)
        if found is None:
            raise RendererUnavailable(
                f"{given} is not on PATH; rendering equations with KaTeX needs Chromium: "
                f"install it (Debian/Ubuntu: apt-get install chromium) or point {BROWSER_ENVIRONMENT_VARIABLE} at one"
            )
        return found
    for name in BROWSER_NAMES:
        found = shutil.which(name)
        if found is not None:
            return found
    raise RendererUnavailable(
        "rendering equations with KaTeX needs Chromium, and none of "
        f"{', '.join(BROWSER_NAMES)} is on PATH: install it (Debian/Ubuntu: apt-get install chromium) "
        f"or set {BROWSER_ENVIRONMENT_VARIABLE} to a Chromium or Chrome executable"
    )


def memory_limit() -> str | None:
    """This process's limit on its memory, which the browser inherits, as a message says
    it; None when there is none. Chromium reserves tens of GB of address space at its start
    (under an RLIMIT_AS of 64 GB its page crashes): under such a limit it dies by a signal."""
    try:
        import resource  # POSIX only
    except ImportError:
        return None
    for name, what, flag in (("RLIMIT_AS", "address-space", "-v"), ("RLIMIT_DATA", "data", "-d")):
        soft = resource.getrlimit(getattr(resource, name))[0]
        if soft != resource.RLIM_INFINITY:
            return f"this process's {what} limit of {soft / (1024 * 1024):,.0f} MB ({name}, ulimit {flag})"
    return None


class _DevTools:
    """One headless Chromium and its DevTools pipe. Every call is bounded by a deadline;
    past it the browser is killed (its whole process group: a launcher script and the
    browser it started) and RendererTimeout raised."""

    def __init__(self, executable: str, timeout: float) -> None:
        if not hasattr(os, "posix_spawn") or not hasattr(select, "poll"):
            raise RendererUnavailable("rendering equations with Chromium's DevTools pipe needs a POSIX system")
        import fcntl  # POSIX only: imported here so that the module imports anywhere

        self.executable = executable
        self._owner = os.getpid()  # a forked child inherits this object, not the browser
        self.directory = tempfile.mkdtemp(prefix="pytest-ocr-katex-")
        self._stderr = os.path.join(self.directory, "stderr.txt")
        commands_read, commands_write = os.pipe()
        answers_read, answers_write = os.pipe()
        # Above 10 (and closed on exec), so that putting them on 3 and 4 in the child cannot overwrite one
        # with the other; the dup2 onto 3 and 4 clears close-on-exec there.
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (commands_read, answers_write)]
        for fd in (commands_read, answers_write):
            os.close(fd)
        self._commands: int | None = commands_write
        self._answers: int | None = answers_read
        for fd in (commands_write, answers_read):
            os.set_blocking(fd, False)
        arguments = [executable, *_SWITCHES, f"--user-data-dir={os.path.join(self.directory, 'profile')}"]
        try:
            self.pid: int | None = os.posix_spawn(
                executable,
                arguments,
                dict(os.environ),
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, high[0], 3),
                    (os.POSIX_SPAWN_DUP2, high[1], 4),
                    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                    (os.POSIX_SPAWN_OPEN, 2, self._stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
                ],
                setsid=True,
            )
        except OSError as error:
            self.pid = None
            self._close_files()
            raise RendererUnavailable(
                f"could not start the browser {executable!r}: {error.strerror or error}; install Chromium "
                f"(Debian/Ubuntu: apt-get install chromium) or point {BROWSER_ENVIRONMENT_VARIABLE} at one"
            ) from None
        finally:
            for fd in high:
                os.close(fd)
        self._buffer = b""
        self.signalled = False  # whether the browser, once ended, was killed by a signal
        self._next = 0
        self.timeout = timeout

    # -- the pipe ------------------------------------------------------------------------------

    def _timed_out(self, what: str) -> RendererTimeout:
        self.kill()
        return RendererTimeout(
            f"the browser {self.executable!r} did not {what} within {self.timeout:g} s and was killed "
            f"(a hung or overloaded Chromium, or an equation too large to render in that time; the limit is "
            f"{limits.OPTIONS['max_render_s']})"
        )

    def _gone(self) -> RendererError:
        tail = self._stderr_tail()  # before kill() removes the file
        status = self.kill()
        said = f"; it said: {tail}" if tail else ""
        limit = memory_limit()
        if limit is not None and self.signalled:
            return RendererError(
                f"the browser {self.executable!r} was killed by a signal ({status}): it ran out of memory under "
                f"{limit}, too little for Chromium, which reserves tens of GB of address space; lift the limit to "
                f"render math facts{said}"
            )
        return RendererError(
            f"the browser {self.executable!r} closed its DevTools pipe ({status}){said}; "
            "is it a Chromium with --remote-debugging-pipe?"
        )

    def _stderr_tail(self) -> str:
        try:
            with open(self._stderr, "rb") as file:
                file.seek(0, os.SEEK_END)
                file.seek(max(0, file.tell() - 600))
                return " ".join(file.read().decode("utf-8", "replace").split())[-400:]
        except OSError:
            return ""

    @staticmethod
    def _ready(fd: int, event: int, seconds: float) -> bool:
        """Whether ``fd`` is ready (or closed at the other end) within ``seconds``; poll, not
        select, takes descriptors above FD_SETSIZE."""
        poller = select.poll()
        poller.register(fd, event)
        return bool(poller.poll(max(1, int(seconds * 1000) + 1)))

    def _pipe(self, fd: int | None) -> int:
        if fd is None:
            raise RendererError(f"the browser {self.executable!r} was closed")
        return fd

    def _send(self, data: bytes, deadline: float, method: str) -> None:
        commands = self._pipe(self._commands)
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._timed_out(f"take the command {method}")
            if not self._ready(commands, select.POLLOUT, remaining):
                continue
            try:
                written = os.write(commands, view)
            except BlockingIOError:
                continue
            except BrokenPipeError:
                raise self._gone() from None
            view = view[written:]

    def _message(self, deadline: float, method: str) -> dict[str, Any]:
        answers = self._pipe(self._answers)
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._timed_out(f"answer {method}")
            if not self._ready(answers, select.POLLIN, remaining):
                continue
            try:
                chunk = os.read(answers, 1 << 20)
            except BlockingIOError:
                continue
            if not chunk:
                raise self._gone()
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        try:
            message = json.loads(raw)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            self.kill()
            raise RendererError(f"the browser {self.executable!r} answered {method} with something not DevTools JSON")
        return message

    def call(
        self, method: str, params: dict[str, Any] | None, deadline: float, session: str | None = None
    ) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        self._send(json.dumps(message).encode("utf-8") + b"\0", deadline, method)
        while True:
            answer = self._message(deadline, method)
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RendererError(f"the browser refused {method}: {answer['error'].get('message', answer)}")
                result: dict[str, Any] = answer.get("result", {})
                return result
            if answer.get("method") in ("Target.targetCrashed", "Inspector.targetCrashed"):
                limit = memory_limit()
                raise RendererError(
                    f"the browser's page crashed during {method}"
                    + ("" if limit is None else f"; it ran out of memory under {limit}, too little for Chromium")
                )

    def evaluate(self, expression: str, deadline: float, session: str) -> Any:
        result = self.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, deadline, session=session
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text", "")
            raise RendererError(f"the page's script failed: {text}")
        return result["result"].get("value")

    # -- ending ------------------------------------------------------------------------------

    def kill(self) -> str:
        """Kill the browser's process group, reap it; says how it ended."""
        status = "it had exited"
        self.signalled = False
        if os.getpid() != self._owner:  # in a forked child: the parent's browser, files and directory
            self.pid = None
            for fd in (self._commands, self._answers):
                if fd is not None:
                    os.close(fd)
            self._commands = self._answers = None
            return status
        if self.pid is not None:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                _, code = os.waitpid(self.pid, 0)
                status = f"exit status {os.waitstatus_to_exitcode(code)}"
                self.signalled = os.WIFSIGNALED(code)
            except ChildProcessError:
                pass
            self.pid = None
        self._close_files()
        return status

    def close(self) -> None:
        """Ask the browser to close (a few seconds at most), then make sure of it."""
        if self.pid is not None and os.getpid() == self._owner:
            try:
                self.call("Browser.close", None, time.monotonic() + 5)
            except RendererError:
                pass
            deadline = time.monotonic() + 5
            while not self._exited() and time.monotonic() < deadline:
                time.sleep(0.02)
        # The rest of its group (a launcher script's children), then the files and the directory.
        # The group is killed before the browser is reaped: its id cannot be anyone else's meanwhile.
        self.kill()

    def _exited(self) -> bool:
        """Whether the browser has exited (not reaped yet, so its process group id stays ours)."""
        if self.pid is None:
            return True
        if not hasattr(os, "waitid"):
            return False
        try:
            return os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True

    def _close_files(self) -> None:
        for fd in (self._commands, self._answers):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._commands = self._answers = None
        shutil.rmtree(self.directory, ignore_errors=True)


class _Browser:
    """The browser slot a renderer owns; closed with the renderer, or at exit."""

    def __init__(self) -> None:
        self.devtools: _DevTools | None = None

    def close(self) -> None:
        devtools, self.devtools = self.devtools, None
        if devtools is not None:
            devtools.close()


class KatexRenderer:
    """Renders equations with KaTeX in one headless Chromium, started at the first
    rendering and reused for every equation after it; closed by ``close()``, a ``with``
    block, or at exit.

    ``cache_dir``: a directory for renderings on disk (one JSON file per equation, named by
    the sha256 of the KaTeX version and the equation, written atomically), read before
    anything is rendered. Renderings are cached in memory too.
    ``browser``: a Chromium executable (a path or a name on PATH); default: find_browser().
    ``timeout``: seconds for the browser to start, and for each equation (None: this
    process's ``--ocr-max-render-s``, see ``limits``); past it the browser is killed and
    RendererTimeout raised (the next rendering starts a new one).

    Safe to share between threads (one rendering at a time)."""

    def __init__(
        self,
        cache_dir: str | os.PathLike[str] | None = None,
        *,
        browser: str | None = None,
        timeout: float | None = None,
    ) -> None:
        if timeout is None:
            timeout = limits.active().max_render_s
        if not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        self.cache_dir = None if cache_dir is None else Path(cache_dir)
        self.browser = browser
        self.timeout = float(timeout)
        self.launches = 0  # how many browsers this renderer started
        self.rendered = 0  # how many equations it rendered in a browser (not from a cache)
        self._memory: OrderedDict[str, Rendering] = OrderedDict()
        self._lock = threading.Lock()
        self._browser = _Browser()
        self._session: str | None = None
        self._assets: tuple[str, str] | None = None
        self._finalizer = weakref.finalize(self, self._browser.close)

    # -- public --------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether this renderer's browser is running now."""
        return self._browser.devtools is not None

    @property
    def browser_pid(self) -> int | None:
        """The process id of this renderer's browser while it runs."""
        devtools = self._browser.devtools
        return None if devtools is None else devtools.pid

    def render(self, equation: str) -> Rendering:
        """KaTeX's rendering of ``equation``; a Rendering with ``error`` set when KaTeX
        refuses it. Raises RendererError when the browser cannot render at all."""
        with self._lock:
            cached = self._memory.get(equation)
            if cached is not None:
                self._memory.move_to_end(equation)
                return cached
            rendering = self._load(equation)
            if rendering is None:
                rendering = self._render(equation)
                self._store(rendering)
            self._memory[equation] = rendering
            if len(self._memory) > _MEMORY_ENTRIES:
                self._memory.popitem(last=False)
            return rendering

    def close(self) -> None:
        """Close the browser (a later rendering starts a new one)."""
        with self._lock:
            self._session = None
            self._browser.close()

    def __enter__(self) -> KatexRenderer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- the disk cache --------------------------------------------------------------------------

    @staticmethod
    def cache_key(equation: str) -> str:
        text = f"katex {KATEX_VERSION}\nformat {_CACHE_FORMAT}\n{equation}"
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def _cache_path(self, equation: str) -> Path | None:
        return None if self.cache_dir is None else self.cache_dir / f"{self.cache_key(equation)}.json"

    def _load(self, equation: str) -> Rendering | None:
        path = self._cache_path(equation)
        if path is None:
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            rendering = Rendering.from_json(data["rendering"])
        except (OSError, ValueError, KeyError, TypeError):
            return None  # absent, or unreadable: rendered again, and the file replaced
        # The key is a hash: the file must be this equation's, rendered by this KaTeX.
        if data.get("katex") != KATEX_VERSION or rendering.equation != equation:
            return None
        return rendering

    def _store(self, rendering: Rendering) -> None:
        path = self._cache_path(rendering.equation)
        if path is not None:
            text = json.dumps({"katex": KATEX_VERSION, "rendering": rendering.to_json()}, ensure_ascii=True)
            write_atomic(path, text)

    # -- the browser -----------------------------------------------------------------------------

    def _assets_text(self) -> tuple[str, str]:
        if self._assets is None:
            self._assets = (
                (ASSETS / "katex.min.css").read_text(encoding="utf-8"),
                (ASSETS / "katex.min.js").read_text(encoding="utf-8"),
            )
        return self._assets

    def _page(self, deadline: float) -> tuple[_DevTools, str]:
        """The browser and the session of its page, started if need be."""
        devtools = self._browser.devtools
        if devtools is not None and self._session is not None:
            return devtools, self._session
        executable = find_browser(self.browser)
        devtools = _DevTools(executable, self.timeout)
        self._browser.devtools = devtools
        self.launches += 1
        try:
            target = devtools.call("Target.createTarget", {"url": "about:blank"}, deadline)["targetId"]
            session = devtools.call("Target.attachToTarget", {"targetId": target, "flatten": True}, deadline)[
                "sessionId"
            ]
            for method, params in _PAGE_SETTINGS:
                devtools.call(method, params, deadline, session=session)
        except BaseException:
            self._browser.devtools = None
            devtools.kill()
            raise
        self._session = session
        return devtools, session

    def _render(self, equation: str) -> Rendering:
        deadline = time.monotonic() + self.timeout
        devtools, session = self._page(deadline)
        try:
            rendering = self._render_in(devtools, session, equation, time.monotonic() + self.timeout)
        except BaseException:
            # A browser that failed once (timed out, crashed, refused a command) is not trusted again.
            self._session = None
            self._browser.close()
            raise
        self.rendered += 1
        return rendering

    def _render_in(self, devtools: _DevTools, session: str, equation: str, deadline: float) -> Rendering:
        css, js = self._assets_text()
        set_up = _SET_UP_PAGE % (json.dumps(_PAGE_HTML), json.dumps(css), json.dumps(js))
        if devtools.evaluate(set_up, deadline, session) is not True:
            raise RendererError("KaTeX did not load in the browser's page")
        # olmOCR puts the equation into the script as json.dumps makes it (ASCII, \\u escapes).
        message = devtools.evaluate(_RENDER % json.dumps(equation), deadline, session)
        if message:
            return Rendering(equation=equation, mathml=str(message), spans=(), error=str(message))
        extracted = devtools.evaluate(_EXTRACT, deadline, session)
        if extracted is None:
            raise RendererError(f"KaTeX rendered {equation!r} without an error but made no .katex element")
        spans = tuple(
            Span(str(text), Box(float(x), float(y), float(width), float(height)))
            for text, x, y, width, height in extracted["spans"]
        )
        return Rendering(equation=equation, mathml=str(extracted["mathml"]), spans=spans)
