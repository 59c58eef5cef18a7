"""A Python function as an engine: ``function: "module:attr"`` is called as
``fn(image_path: str, **kwargs)`` for each image (found as ``pytest_ocr.imports``
describes). The function may return a ``str``, a ``Recognition`` or a dict with ``text``
and optionally ``lines``, ``confidence``, ``raw`` and ``fields``.

With ``isolate: true`` the function runs in a worker process of its own, one per engine
(started at the first image, so a model is loaded once, not per image): a function that
calls ``os._exit()`` or crashes the interpreter (a segfault in a native extension) costs
that image's item, and the next image gets a new worker; so does a call that takes longer
than ``timeout`` seconds (the worker is killed: a thread in pytest's process could not be
stopped, which is why only an isolated function has a timeout). Without it, a call of
``os._exit()`` by the function is that image's error naming ``isolate: true``, not the end of
the run (it is refused while the function runs). Requests and answers are pickled
over the worker's stdin and a copy of its stdout; what the function prints goes to the
worker's stderr, which is passed on to the item's captured stderr (its tail is in the
error when the worker dies).
"""

from __future__ import annotations

import contextlib
import inspect
import os
import pickle
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

from .. import workers
from ..imports import FunctionNotFound, load_function
from . import _options
from .base import EngineBase, EngineError, EngineSpec, Recognition
from .cache import file_sha256

SCHEMA = {
    "function": (str, _options.REQUIRED),
    "kwargs": (dict[str, Any], {}),
    "isolate": (bool, False),
    "timeout": (float, None),  # seconds per image, isolated only (ISOLATED_TIMEOUT when not given)
}
ISOLATED_TIMEOUT = 300.0

RESULT_TYPES = {"text": str, "lines": list[str] | None, "confidence": float | None, "raw": Any, "fields": dict | None}
EXPECTED = "a str, a Recognition or a dict with key 'text' (and optionally 'lines', 'confidence', 'raw', 'fields')"
TRACEBACK_FRAMES = 5
STDERR_TAIL = 2000  # characters of a dead worker's stderr shown in the error
STDERR_PASSED_ON = 64 * 1024  # bytes of a call's stderr passed on to the item (its tail)


def source_digest(function: Any, module: Any) -> str | None:
    """A short hash of the file that defines ``function``, or None when there is none.

    Editing the function changes its output but not its module's ``__version__``, so
    without this a cache keyed on the fingerprint would keep serving the old output. It
    covers that one file, not what the function imports or loads.
    """
    try:
        path = inspect.getsourcefile(inspect.unwrap(function))
    except TypeError:  # a partial, an instance, a built-in: the module it was found in
        path = None
    path = path or getattr(module, "__file__", None)
    try:
        return file_sha256(path)[:16] if path else None
    except OSError:
        return None


def _frames(exc: BaseException) -> list[str]:
    """The last frames of the traceback, without the call from this module."""
    return traceback.format_tb(exc.__traceback__)[1:][-TRACEBACK_FRAMES:]


def worker() -> None:
    """The isolated worker's loop (a worker process: pytest_ocr/workers.py): a setup message (sys.path, the
    function, its kwargs, the declaring directory), then one image path per request,
    answered ``("ok", result)``, ``("raised", type, message, frames)`` or
    ``("unpicklable", type, error)``. Ends at the end of its input."""
    requests, answers = workers.streams()
    setup = pickle.load(requests)
    sys.path[:] = setup["path"]
    try:
        function, _ = load_function(setup["function"], Path(setup["base_dir"]))
    except FunctionNotFound as exc:
        workers.send(answers, ("failed", str(exc)))
        return
    workers.send(answers, ("ready",))
    kwargs = setup["kwargs"]
    while True:
        try:
            image = pickle.load(requests)
        except EOFError:
            return
        try:
            answer: tuple = ("ok", function(image, **kwargs))
        except Exception as exc:
            answer = ("raised", type(exc).__name__, str(exc), _frames(exc))
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        try:
            workers.send(answers, answer)
        except Exception as exc:  # the result cannot be pickled
            workers.send(answers, ("unpicklable", type(answer[1]).__name__, f"{type(exc).__name__}: {exc}"))


class _Worker:
    """One isolated worker process; ``call`` raises EngineError when it died (and it is
    then stopped: start a new one)."""

    def __init__(self, target: str, kwargs: dict[str, Any], base_dir: Path, timeout: float) -> None:
        self.target = target
        self.timeout = timeout
        self.expired = False  # the timer killed it
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            workers.command("pytest_ocr.engines.python"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            start_new_session=True,  # Ctrl-C reaches pytest, which closes the engine
        )
        setup = {"path": list(sys.path), "function": target, "kwargs": kwargs, "base_dir": str(base_dir)}
        answer = self._exchange(setup, "starting")
        if answer[0] != "ready":
            self.close()
            raise EngineError(f"{target} could not be loaded in its isolated process: {answer[1]}")

    def _exchange(self, message: object, what: str) -> tuple:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        timer = threading.Timer(self.timeout, self._expire)
        timer.start()
        try:
            workers.send(self.proc.stdin, message)
            answer = pickle.load(self.proc.stdout)
        except Exception:  # EOF, a broken pipe, half an answer: the process is gone
            timer.cancel()
            workers.stop(self.proc)
            self.stderr.seek(0)
            stderr = self.stderr.read().decode(errors="replace").strip()
            self.stderr.close()
            tail = f"; its stderr:\n{stderr[-STDERR_TAIL:]}" if stderr else ""
            ended = (
                f"took more than {self.timeout:g} s (option 'timeout') and was killed"
                if self.expired
                else f"ended ({workers.ended(self.proc.returncode)})"
            )
            raise EngineError(
                f"{self.target}'s isolated process {ended} while {what}; the next image gets a new process{tail}"
            ) from None
        finally:
            timer.cancel()
        return answer

    def _expire(self) -> None:
        self.expired = True
        workers.kill(self.proc)

    def call(self, image: Path) -> tuple:
        self.stderr.seek(0)
        self.stderr.truncate()
        answer = self._exchange(str(image), f"reading {image}")
        end = self.stderr.seek(0, os.SEEK_END)
        self.stderr.seek(max(end - STDERR_PASSED_ON, 0))
        printed = self.stderr.read()
        if printed:  # to the item's captured stderr, as an in-process function's prints would
            sys.stderr.write(printed.decode(errors="replace"))
        return answer

    def close(self) -> None:
        workers.stop(self.proc)
        self.stderr.close()


class _Exited(BaseException):
    """os._exit called by a function in pytest's process (a BaseException: not caught as an error would be)."""

    def __init__(self, code: object) -> None:
        super().__init__(code)
        self.code = code


_EXIT = os._exit
_REFUSING = threading.local()  # pid: the process whose thread calls a function, while it does
_EXIT_LOCK = threading.Lock()
_refusals = 0


def _exit(status: int) -> NoReturn:
    # A child the function forked (multiprocessing's fork start method) inherits the thread and
    # its flag, and ends with os._exit: refused there, it ran on into pytest's session.
    if getattr(_REFUSING, "pid", None) == os.getpid():
        raise _Exited(status)
    _EXIT(status)  # another thread's exit (pytest-timeout's, a pytest-xdist worker's) is its own


@contextlib.contextmanager
def _exit_refused() -> Iterator[None]:
    """While a function runs in pytest's process, os._exit on its thread raises _Exited:
    it would end the run without a summary or any output (it skips even atexit handlers)."""
    global _refusals
    with _EXIT_LOCK:
        _refusals += 1
        os._exit = _exit
    _REFUSING.pid = os.getpid()
    try:
        yield
    finally:
        _REFUSING.pid = None
        with _EXIT_LOCK:
            _refusals -= 1
            if not _refusals:
                os._exit = _EXIT


class PythonEngine(EngineBase):
    def __init__(self, spec: EngineSpec) -> None:
        options = _options.check_options(spec, SCHEMA)
        self.target = options["function"]
        self.kwargs = options["kwargs"]
        self.isolate = options["isolate"]
        if options["timeout"] is not None and not self.isolate:
            raise _options.error(
                spec, "option 'timeout' needs 'isolate: true' (a call in pytest's process cannot be stopped)"
            )
        self.timeout = _options.check_timeout(
            spec, ISOLATED_TIMEOUT if options["timeout"] is None else options["timeout"]
        )
        self.base_dir = spec.base_dir
        try:
            self.function, module = load_function(self.target, spec.base_dir)
        except FunctionNotFound as exc:
            raise _options.error(spec, f"option 'function': {exc}") from exc
        top_level = sys.modules.get(module.__name__.partition(".")[0])
        self.version = getattr(module, "__version__", None) or getattr(top_level, "__version__", None)
        self.source = source_digest(self.function, module)
        self._worker: _Worker | None = None
        self._lock = threading.Lock()

    def _call_isolated(self, image: Path) -> Any:
        with self._lock:
            if self._worker is None:
                self._worker = _Worker(self.target, self.kwargs, self.base_dir, self.timeout)
            try:
                answer = self._worker.call(image)
            except EngineError:
                self._worker = None  # dead: the next image starts a new one
                raise
            if self._worker.expired:  # killed just after it answered
                self._worker.close()
                self._worker = None
        if answer[0] == "raised":
            _, name, message, frames = answer
            raise EngineError(
                f"{self.target} raised {name}: {message}\n"
                f"while reading {image}; traceback (most recent call last):\n{''.join(frames).rstrip()}"
            )
        if answer[0] == "unpicklable":
            raise EngineError(
                f"{self.target} returned a {answer[1]} that cannot be sent back from its isolated process "
                f"({answer[2]}) for {image}; expected {EXPECTED}"
            )
        return answer[1]

    def recognize(self, image: Path) -> Recognition:
        if self.isolate:
            result = self._call_isolated(image)
        else:
            try:
                with _exit_refused():
                    result = self.function(str(image), **self.kwargs)
            except _Exited as exited:
                raise EngineError(
                    f"{self.target} called os._exit({exited.code}) while reading {image}, which would have ended "
                    "pytest's process and the run with it, its outputs unwritten; an engine function that may end "
                    "its process takes `isolate: true` (it then runs in a process of its own)"
                ) from None
            except Exception as exc:
                raise EngineError(
                    f"{self.target} raised {type(exc).__name__}: {exc}\n"
                    f"while reading {image}; traceback (most recent call last):\n{''.join(_frames(exc)).rstrip()}"
                ) from exc
        if isinstance(result, Recognition):
            return result
        if isinstance(result, str):
            return Recognition(text=result)
        if (
            isinstance(result, dict)
            and result.keys() <= RESULT_TYPES.keys()
            and all(_options.matches(result.get(key), kind) for key, kind in RESULT_TYPES.items())
        ):
            confidence = result.get("confidence")
            confidence = None if confidence is None else float(confidence)
            return Recognition(result["text"], result.get("lines"), confidence, result.get("raw"), result.get("fields"))
        shown = repr(result)
        shown = shown if len(shown) <= 200 else shown[:200] + "..."
        raise EngineError(f"{self.target} returned {type(result).__name__} {shown} for {image}; expected {EXPECTED}")

    def fingerprint(self) -> dict:
        # Not `isolate`: where the function runs does not change what it returns, so
        # turning isolation on (after a crash) keeps the cached outputs and the baseline's
        # fingerprint. A function whose output depends on sharing pytest's process is
        # already beyond what the cache trusts (docs/how-to/large-suites.md, Cache).
        config = {"function": self.target, "kwargs": self.kwargs, "source": self.source}
        return {"type": "python", "version": self.version, "config": config}

    def close(self) -> None:
        with self._lock:
            if self._worker is not None:
                self._worker.close()
                self._worker = None
