"""Worker processes: Python processes running a loop of pytest-ocr's (a module's
``worker()``), given pickled requests on their stdin and answering pickled on a copy of
their stdout, so that what they run (an engine function, pdfium drawing a page) can crash,
hang or take all the memory it may without ending pytest's process. An isolated ``python``
engine (engines/python.py) and the PDF page rasteriser (media/rasteriser.py) start them.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO

_PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent)


def command(module: str, *args: str) -> list[str]:
    """The command running ``module``'s ``worker()`` with ``args`` (sys.argv[1:]), from
    the pytest_ocr this process runs."""
    code = f"import sys; sys.path.insert(0, {_PACKAGE_PARENT!r}); from {module} import worker; worker()"
    return [sys.executable, "-c", code, *args]


def streams() -> tuple[IO[bytes], IO[bytes]]:
    """In a worker: its requests and its answers. Its stdin then reads nothing and its
    stdout goes to stderr, so what the code it runs reads or prints cannot eat the
    requests or corrupt the answers."""
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(2, 1)
    return requests, answers


def send(stream: IO[bytes], message: object) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)  # whole, before any of it is written
    stream.write(data)
    stream.flush()


def ended(code: int | None) -> str:
    """How a worker ended, from its exit status: ``killed by SIGSEGV``, ``exit code 3``."""
    if code is None:
        return "it stopped answering"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
        return f"killed by signal {-code}"
    return f"exit code {code}"


def kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the worker and what it started (it was started in a session of its own)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """End the worker: at the end of its input it ends, else within 5 s it is killed."""
    for stream in (proc.stdin, proc.stdout):
        with contextlib.suppress(OSError):
            if stream is not None:
                stream.close()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        kill(proc)
        proc.wait()
