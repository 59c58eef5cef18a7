"""How a run ends when something outside the items goes wrong (issue 27): an output that
cannot be written (the disk is full, a file-size limit), a baseline locked by a stuck
process, a python engine ending pytest's process. Each is a clear line and a run that
fails, every other output written, in a real session under ``run_bounded``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_bounded
from PIL import Image

from pytest_ocr.engines.base import EngineError, EngineSpec
from pytest_ocr.engines.python import PythonEngine

pytestmark = pytest.mark.slow

MEMORY_MB = 800
TIMEOUT = 90
TESTS_FAILED = int(pytest.ExitCode.TESTS_FAILED)
FILE_LIMIT = 32 * 1024  # bytes: the JSON report of two items fits (5 KB), their HTML page does not (47 KB)

ENGINE = """
import os
from pathlib import Path

def read(image_path):
    stem = Path(image_path).stem
    if stem == "exits":
        os._exit(3)
    return stem
"""

# Every file the session writes is held to FILE_LIMIT, as a full disk would stop it (Python
# ignores SIGXFSZ, so a write beyond the limit fails with EFBIG instead of ending the process).
FILE_LIMIT_CONFTEST = f"""
import resource

resource.setrlimit(resource.RLIMIT_FSIZE, ({FILE_LIMIT}, {FILE_LIMIT}))
"""


def project(root: Path, names: tuple[str, ...] = ("a", "b")) -> Path:
    """An engine reading an image's stem, and a case per name that passes when it does."""
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n", encoding="utf-8")
    (root / "engine.py").write_text(ENGINE, encoding="utf-8")
    cases = []
    for name in names:
        Image.new("L", (40, 20), 255).save(root / f"{name}.png")
        cases.append(f"  - {{id: {name}, image: {name}.png, expected: {{text: {name}}}}}\n")
    (root / "s.ocr.yaml").write_text(
        "engines: {stem: {type: python, function: 'engine:read'}}\ndefaults: {engine: stem}\ncases:\n" + "".join(cases),
        encoding="utf-8",
    )
    return root


def test_an_output_that_cannot_be_written_fails_the_run_and_costs_nothing_else(tmp_path: Path) -> None:
    """The HTML page beyond the file-size limit used to be one line and exit status 0."""
    root = project(tmp_path)
    (root / "conftest.py").write_text(FILE_LIMIT_CONFTEST, encoding="utf-8")
    result = run_bounded(
        root, "--ocr-report=r.json", "--ocr-html=r.html", "--ocr-results-dir=out", memory_mb=MEMORY_MB, timeout=TIMEOUT
    )
    assert result.returncode == TESTS_FAILED, result.output[-3000:]
    assert "2 passed" in result.output
    lost = [line for line in result.output.splitlines() if line.startswith("ERROR: ")]
    assert lost == [
        f"ERROR: OCR HTML report could not be written to {root / 'r.html'}: OSError: [Errno 27] File too large"
    ]
    assert [r["outcome"] for r in result.report(root, "r.json")["results"]] == ["passed", "passed"]
    assert len(list((root / "out").iterdir())) == 1
    assert sorted(p.name for p in root.iterdir() if "r.html" in p.name) == []  # no half page, no temporary file


def test_a_merge_output_that_cannot_be_written_fails_the_merge(tmp_path: Path) -> None:
    root = project(tmp_path)
    shard = run_bounded(root, "--ocr-shard=1/1", "--ocr-report=shard.json", memory_mb=MEMORY_MB, timeout=TIMEOUT)
    assert shard.returncode == 0, shard.output[-3000:]
    limited = (
        f"import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, ({FILE_LIMIT}, {FILE_LIMIT})); "
        "from pytest_ocr.cli import main; sys.exit(main())"
    )
    done = subprocess.run(
        [sys.executable, "-c", limited, "merge", "shard.json", "-o", "m.json", "--html", "m.html"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "ERROR: OCR HTML report could not be written to m.html: OSError: [Errno 27] File too large" in done.stdout
    assert [r["outcome"] for r in json.loads((root / "m.json").read_text(encoding="utf-8"))["results"]] == [
        "passed",
        "passed",
    ]


def test_a_baseline_locked_by_a_stuck_process_is_waited_for_within_the_limit_and_named(tmp_path: Path) -> None:
    """A run whose baseline another process kept locked waited for ever, saying nothing."""
    root = project(tmp_path)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            "fd = os.open('.b.json.lock', os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('locked', flush=True)\n"
            "time.sleep(600)\n",
        ],
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        result = run_bounded(
            root,
            "--ocr-baseline=b.json",
            "--ocr-baseline-write=create",
            "--ocr-report=r.json",
            "--ocr-max-lock-wait-s=2",
            memory_mb=MEMORY_MB,
            timeout=TIMEOUT,
        )
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert result.returncode == TESTS_FAILED, result.output[-3000:]
    assert result.seconds < 30, f"took {result.seconds:.1f} s"
    lock = root / ".b.json.lock"
    assert (
        f"ERROR: OCR baseline create could not be written to {root / 'b.json'}: LockTimeout: waited 2 s "
        f"(--ocr-max-lock-wait-s) for the lock {lock}, held by process {holder.pid} ({sys.executable} -c import fcntl"
    ) in result.output, result.output[-3000:]
    assert "if that process is stuck, end it" in result.output
    assert len(result.report(root, "r.json")["results"]) == 2  # the other outputs are written
    assert not (root / "b.json").exists()


def test_a_python_engine_calling_os_exit_costs_its_item_and_names_isolate(tmp_path: Path) -> None:
    """os._exit in a function run in pytest's process ended the run: no summary, no report
    (it skips atexit handlers, so nothing could write them at exit). Refused while the
    function runs, it is that item's error, and the run goes on."""
    root = project(tmp_path, ("a", "exits", "c"))
    result = run_bounded(root, "--ocr-report=r.json", "--ocr-html=r.html", memory_mb=MEMORY_MB, timeout=TIMEOUT)
    assert result.returncode == TESTS_FAILED, result.output[-3000:]
    found = {r["case"]: r for r in result.report(root, "r.json")["results"]}
    assert (found["a"]["outcome"], found["c"]["outcome"]) == ("passed", "passed")
    assert found["exits"]["outcome"] == "error"
    message = (
        "engine:read called os._exit(3) while reading exits.png, which would have ended pytest's "
        "process and the run with it, its outputs unwritten; an engine function that may end its process takes "
        "`isolate: true` (it then runs in a process of its own)"
    )
    assert found["exits"]["error"] == message
    assert message in " ".join(result.output.split())
    assert (root / "r.html").exists() and "OCR summary" in result.output


FORKING_ENGINE = """
import multiprocessing, os
from pathlib import Path

def child(queue, stem):
    queue.put(stem)

def read(image_path):
    with open("calls.log", "a", encoding="utf-8") as log:
        log.write(f"{os.getpid()} {Path(image_path).stem}\\n")
    fork = multiprocessing.get_context("fork")  # Linux's default before Python 3.14
    queue = fork.Queue()
    process = fork.Process(target=child, args=(queue, Path(image_path).stem))
    process.start()
    stem = queue.get(timeout=30)
    process.join(30)
    return f"{stem} {process.exitcode}"
"""


def test_a_child_the_engine_forks_ends_with_its_own_os_exit(tmp_path: Path) -> None:
    """A forked child inherits the engine's thread, and multiprocessing ends it with os._exit:
    refused there too, the child ran on into pytest's session, reading the next items again
    (seven calls for three items) and exiting with status 1."""
    root = project(tmp_path, ("a", "b", "c"))
    (root / "engine.py").write_text(FORKING_ENGINE, encoding="utf-8")
    for case in ("a", "b", "c"):
        (root / "s.ocr.yaml").write_text(
            (root / "s.ocr.yaml").read_text(encoding="utf-8").replace(f"text: {case}}}", f"text: {case} 0}}"),
            encoding="utf-8",
        )
    result = run_bounded(root, "--ocr-report=r.json", memory_mb=MEMORY_MB, timeout=TIMEOUT)
    assert result.returncode == 0, result.output[-3000:]
    assert [r["prediction"] for r in result.report(root, "r.json")["results"]] == ["a 0", "b 0", "c 0"]
    calls = (root / "calls.log").read_text(encoding="utf-8").split()
    assert calls[1::2] == ["a", "b", "c"] and len(set(calls[::2])) == 1  # once each, by pytest's process


def test_os_exit_is_refused_only_on_the_engines_thread_and_only_while_it_runs(tmp_path: Path) -> None:
    """Another thread's os._exit (pytest-timeout's, say) still ends the process; after the
    call, os._exit is os's own again."""
    original = os._exit
    (tmp_path / "threads.py").write_text(
        "import os, threading\n"
        "seen = {}\n"
        "def read(image_path):\n"
        "    seen['during'] = os._exit\n"
        "    thread = threading.Thread(target=lambda: seen.update(other=os._exit is seen['during']))\n"
        "    thread.start()\n"
        "    thread.join()\n"
        "    os._exit(5)\n",
        encoding="utf-8",
    )
    engine = PythonEngine(EngineSpec("threads", "python", {"function": "threads:read"}, base_dir=tmp_path))
    with pytest.raises(EngineError, match=r"threads:read called os._exit\(5\) while reading x.png, .*isolate: true"):
        engine.recognize(Path("x.png"))
    seen = sys.modules["threads"].seen
    assert seen["during"] is not original and seen["other"]  # replaced for the call, on every thread
    assert os._exit is original
    outside = "import os; from pytest_ocr.engines import python; os._exit = python._exit; os._exit(7)"
    assert subprocess.run([sys.executable, "-c", outside]).returncode == 7  # off the function's thread: os's own
