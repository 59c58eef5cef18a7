"""Running a program with bounds: in its own process group (a timeout or Ctrl-C kills what it
started too), its stdout read up to a limit and only the tail of its stderr kept, so a program
that prints without end or hangs costs its caller, not the run's memory or time. Used by the
command engine and by the tools OmniDocBench's CDM calls.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import IO

STDERR_KEPT = 64 * 1024  # bytes of stderr kept while reading (its tail is shown)
CHUNK = 1 << 16


class OutputTooLarge(Exception):
    """The process printed more than it may; it has been killed."""


class _Reader(threading.Thread):
    """Reads one pipe to its end: all of it up to ``limit`` bytes (then it stops and sets
    ``over``), or only its last ``keep`` bytes."""

    def __init__(self, stream: IO[bytes], limit: int | None = None, keep: int | None = None) -> None:
        super().__init__(daemon=True, name="pytest-ocr-subprocess-reader")
        self.stream, self.limit, self.keep = stream, limit, keep
        self.data = bytearray()
        self.over = False

    def run(self) -> None:
        with contextlib.suppress(OSError, ValueError):  # the pipe closed under it: the process is gone
            while chunk := self.stream.read1(CHUNK):  # type: ignore[attr-defined]
                self.data += chunk
                if self.limit is not None and len(self.data) > self.limit:
                    self.over = True
                    return
                if self.keep is not None and len(self.data) > 2 * self.keep:
                    del self.data[: -self.keep]


def _kill(proc: subprocess.Popen) -> None:
    if hasattr(os, "killpg"):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    else:
        proc.kill()


def run(
    argv: list[str],
    *,
    timeout: float,
    cwd: Path,
    env: dict[str, str],
    max_stdout: int | None = None,
    stdin: Path | None = None,
) -> subprocess.CompletedProcess:
    """Run argv in its own process group, so a timeout also kills what it started.
    stdout is read up to ``max_stdout`` bytes, of stderr only the last STDERR_KEPT; stdin is the file
    ``stdin`` or nothing.

    Raises OSError when it cannot be started, subprocess.TimeoutExpired, and
    OutputTooLarge when it printed more than ``max_stdout`` bytes (it is killed).
    """
    pipe = subprocess.PIPE
    deadline = time.monotonic() + timeout
    with (
        open(stdin, "rb") if stdin is not None else contextlib.nullcontext(subprocess.DEVNULL) as source,
        subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=source, stdout=pipe, stderr=pipe, start_new_session=True
        ) as proc,
    ):
        assert proc.stdout is not None and proc.stderr is not None
        out, err = _Reader(proc.stdout, limit=max_stdout), _Reader(proc.stderr, keep=STDERR_KEPT)
        try:
            out.start()
            err.start()
            for reader in (out, err):  # both pipes to their end (as communicate does), then the exit
                reader.join(max(deadline - time.monotonic(), 0))
                if out.over:
                    raise OutputTooLarge(len(out.data))
                if reader.is_alive():
                    raise subprocess.TimeoutExpired(argv, timeout)
            proc.wait(max(deadline - time.monotonic(), 0))
        except BaseException:
            # Also on Ctrl-C: the child is in its own session and would not get the SIGINT.
            _kill(proc)
            for reader in (out, err):  # the pipes end with the process group; let go of them first
                if reader.ident is not None:
                    reader.join(5)
            raise
    return subprocess.CompletedProcess(argv, proc.returncode, bytes(out.data), bytes(err.data))
