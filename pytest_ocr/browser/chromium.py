"""Headless Chromium driven over the DevTools protocol on a pipe, with no driver library.

The browser is started with ``--remote-debugging-pipe`` (JSON messages ending in NUL,
commands on fd 3, answers on fd 4) and Playwright's switches, in a profile of its own that
is removed when it closes. It renders the equations of math facts (``katex.py``); the
HTML report's browser tests drive their pages with it too.

No shell (argument lists), no network (Chromium's background networking off) and every
wait bounded: a browser that does not answer within the timeout is killed, and the error
says so.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import tempfile
import time
from collections.abc import Callable
from typing import Any

from .. import limits
from ..errors import OcrError

BROWSER_ENVIRONMENT_VARIABLE = "PYTEST_OCR_CHROMIUM"
BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome")

# Playwright's Chromium switches (playwright 1.5x, chromiumSwitches plus its headless ones),
# without the ones only for Edge, Windows or macOS.
SWITCHES = (
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
)
# Driven over the DevTools pipe rather than given a page on the command line.
DEVTOOLS_SWITCHES = ("--remote-debugging-pipe", "--no-startup-window")


def one_shot_argv(executable: str, profile: str | os.PathLike[str], url: str, *options: str) -> list[str]:
    """The command line of one headless Chromium run on ``url`` in the fresh profile ``profile``, with
    ``options`` such as ``--dump-dom`` or ``--screenshot=PATH`` (the HTML report's tests and benchmark)."""
    return [executable, *SWITCHES, f"--user-data-dir={profile}", *options, url]


class RendererError(OcrError, RuntimeError):
    """The browser could not render: it failed to start, crashed, or did not answer in time."""


class RendererUnavailable(RendererError):
    """No Chromium to render with."""


class RendererTimeout(RendererError):
    """The browser did not answer within the timeout (and was killed)."""


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


class DevTools:
    """One headless Chromium and its DevTools pipe. Every call is bounded by a deadline;
    past it the browser is killed (its whole process group: a launcher script and the
    browser it started) and RendererTimeout raised.

    ``on_event``: called with each message the browser sends that answers no command
    (the events of the domains a caller enabled), in the order they come."""

    def __init__(
        self, executable: str, timeout: float, on_event: Callable[[dict[str, Any]], None] | None = None
    ) -> None:
        if not hasattr(os, "posix_spawn") or not hasattr(select, "poll"):
            raise RendererUnavailable("rendering equations with Chromium's DevTools pipe needs a POSIX system")
        import fcntl  # POSIX only: imported here so that the module imports anywhere

        self.executable = executable
        self._owner = os.getpid()  # a forked child inherits this object, not the browser
        self.directory = tempfile.mkdtemp(prefix="pytest-ocr-chromium-")
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
        arguments = [
            executable,
            *SWITCHES,
            *DEVTOOLS_SWITCHES,
            f"--user-data-dir={os.path.join(self.directory, 'profile')}",
        ]
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
        self._on_event = on_event

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
            if self._on_event is not None and "method" in answer:
                self._on_event(answer)

    def new_page(self, deadline: float) -> str:
        """Opens a blank page and returns the session that drives it."""
        target = self.call("Target.createTarget", {"url": "about:blank"}, deadline)["targetId"]
        session: str = self.call("Target.attachToTarget", {"targetId": target, "flatten": True}, deadline)["sessionId"]
        return session

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
