"""Outputs survive the run going wrong, in real pytest sessions: an engine answering a lone
surrogate, an output path that cannot be written, a run interrupted by Ctrl-C or an
internal error, two runs updating one baseline at once, files created with the umask's
mode, an error a user causes shown without a traceback."""

from __future__ import annotations

import functools
import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest
from conftest import DATA
from engine_helpers.servers import FakeServer

from pytest_ocr.files import locked, write_atomic
from pytest_ocr.run.stored import load_report, report_schema

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

# An engine that reads the side-car text; waits for a file named in it ("wait:NAME")
# after writing "started-NAME", so a test can act while the run is in the middle.
WAITING_ENGINE = """
import time
from pathlib import Path

def read(image_path):
    text = Path(image_path).with_suffix(".ocr.txt").read_text(encoding="utf-8")
    if text.startswith("wait:"):
        name = text[len("wait:"):]
        Path(image_path).parent.joinpath("started-" + name).touch()
        while not Path(image_path).parent.joinpath(name).exists():
            time.sleep(0.02)
        return Path(image_path).stem  # what the case expects
    return text
"""
INI = "[pytest]\npythonpath = .\n"
# Every output a run can write.
OUTPUTS = (
    "--ocr-report",
    "r.json",
    "--ocr-html",
    "r.html",
    "--ocr-results-dir",
    "out",
    "--ocr-baseline",
    "b.json",
    "--ocr-baseline-write",
    "create",
    "--junitxml",
    "j.xml",
)


def subprocess_pytest(root: Path, *args: str, umask: int | None = None, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:hypothesispytest",
            "--ocr-no-cache",
            *args,
        ],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=functools.partial(_as_from_a_terminal, umask),
        **kwargs,
    )


def _as_from_a_terminal(umask: int | None) -> None:
    """The child's Ctrl-C as a terminal gives it: this test process may run where SIGINT is
    ignored or blocked (a pytest-xdist worker after other tests), which a child inherits, and a
    child ignoring SIGINT never sees the test's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    if umask is not None:
        os.umask(umask)


def finish(proc: subprocess.Popen, timeout: float = 120) -> tuple[int, str]:
    out, _ = proc.communicate(timeout=timeout)
    return proc.returncode, out


def waiting_suite(root: Path, outputs: dict[str, str]) -> None:
    """One case per output, all on the waiting engine."""
    (root / "pytest.ini").write_text(INI, encoding="utf-8")
    (root / "waiting.py").write_text(WAITING_ENGINE, encoding="utf-8")
    image = (DATA / "pages" / "tess_phototest.tif").read_bytes()
    cases = []
    for name, text in outputs.items():
        (root / f"{name}.tif").write_bytes(image)
        (root / f"{name}.ocr.txt").write_text(text, encoding="utf-8")
        cases.append(f"  - {{id: {name}, image: {name}.tif, expected: {{text: {name}}}, thresholds: {{cer: '< 0.5'}}}}")
    (root / "s.ocr.yaml").write_text(
        "engines: {wait: {type: python, function: 'waiting:read'}}\n"
        "defaults: {engine: wait}\ncases:\n" + "\n".join(cases) + "\n",
        encoding="utf-8",
    )


def wait_for(path: Path, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, proc.communicate()[0]
        assert time.monotonic() < deadline, f"{path} did not appear"
        time.sleep(0.02)


def valid(path: Path) -> dict:
    document = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(document, report_schema())
    return document


# -- engine output that is not Unicode text ------------------------------------------------


def test_a_lone_surrogate_from_an_http_engine_reaches_every_output_as_u_fffd(pytester):
    with FakeServer(text="ab\ud800c") as server:  # valid JSON: {"text": "ab\ud800c"}
        pytester.makefile(
            ".ocr.yaml",
            s=f"""
engines: {{svc: {{type: http, url: "{server.ocr_url}"}}}}
defaults: {{engine: svc}}
cases:
  - {{id: odd, image: page.tif, expected: {{text: abxc}}, thresholds: {{cer: "<= 0.25"}}}}
""",
        )
        (pytester.path / "page.tif").write_bytes((DATA / "pages" / "tess_phototest.tif").read_bytes())
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *OUTPUTS)
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    [record] = valid(pytester.path / "r.json")["results"]
    assert record["prediction"] == "ab\ufffdc" and record["metrics"]["cer"] == 0.25  # one code point for one
    assert "1 lone surrogate code point(s) (not Unicode text); stored and scored as U+FFFD" in record["warnings"][0]
    assert valid(pytester.path / "b.json")["results"][0]["prediction"] == "ab\ufffdc"
    assert "ab\ufffdc" in (pytester.path / "r.html").read_text(encoding="utf-8")
    [run_dir] = (pytester.path / "out").iterdir()
    assert json.loads((run_dir / "results.json").read_text(encoding="utf-8"))["results"][0]["prediction"] == "ab\ufffdc"
    result.stdout.fnmatch_lines(["*OCR summary*", "*lone surrogate*"])


# -- output paths checked before any OCR runs ------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value", "reason"),
    [
        ("--ocr-report", "a-file/report.json", "cannot create directory"),
        ("--ocr-report", "a-directory", "is a directory; give a file name"),
        ("--ocr-html", "a-file/page.html", "cannot create directory"),
        ("--ocr-results-dir", "a-file", "exists and is not a directory"),
        ("--ocr-baseline", "a-file/base.json", "cannot create directory"),
    ],
)
def test_an_unusable_output_path_is_a_usage_error_before_any_ocr(pytester, option, value, reason):
    waiting_suite(pytester.path, {"one": "one"})
    (pytester.path / "a-file").write_text("a file, not a directory", encoding="utf-8")
    (pytester.path / "a-directory").mkdir()
    extra = ["--ocr-baseline-write", "create"] if option == "--ocr-baseline" else []
    code, out = finish(subprocess_pytest(pytester.path, option, value, *extra))
    assert code == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in out.splitlines() if line.startswith("ERROR: ")]
    assert len(errors) == 1 and errors[0].startswith(f"ERROR: {option}: ") and reason in errors[0], out
    assert "Traceback" not in out and "collected" not in out  # stopped before collecting, let alone running


# -- an interrupted run still writes every output ------------------------------------------


def check_interrupted(root: Path, ran: list[str], not_run: int, reason: str) -> None:
    report = valid(root / "r.json")
    assert report["run"]["status"] == "interrupted" and report["run"]["not_run"] == not_run
    assert reason in report["run"]["interruption"]
    assert sorted(r["case"] for r in report["results"]) == ran
    assert sorted(r["case"] for r in load_report(root / "b.json")["results"]) == ran
    assert "run interrupted" in (root / "r.html").read_text(encoding="utf-8")
    [run_dir] = (root / "out").iterdir()
    assert json.loads((run_dir / "config.json").read_text())["run"]["status"] == "interrupted"


def test_ctrl_c_writes_every_output_marked_interrupted(pytester):
    waiting_suite(pytester.path, {"a1": "a1", "a2": "a2", "b": "wait:go", "c1": "c1", "c2": "c2"})
    proc = subprocess_pytest(pytester.path, *OUTPUTS)
    wait_for(pytester.path / "started-go", proc)
    proc.send_signal(signal.SIGINT)
    code, out = finish(proc)
    assert code == pytest.ExitCode.INTERRUPTED, out
    check_interrupted(pytester.path, ["a1", "a2"], 3, "KeyboardInterrupt")
    assert "run interrupted: 3 OCR item(s) did not run" in out


def test_an_internal_error_writes_every_output_marked_interrupted(pytester):
    waiting_suite(pytester.path, {"a1": "a1", "a2": "a2", "b": "b", "c1": "c1"})
    (pytester.path / "conftest.py").write_text(
        "def pytest_runtest_logfinish(nodeid, location):\n"
        "    if 'a2' in nodeid:\n"
        "        raise RuntimeError('a plugin broke')\n",
        encoding="utf-8",
    )
    code, out = finish(subprocess_pytest(pytester.path, *OUTPUTS))
    assert code == pytest.ExitCode.INTERNAL_ERROR, out
    check_interrupted(pytester.path, ["a1", "a2"], 2, "internal error: RuntimeError: a plugin broke")


def test_stopping_at_the_first_failure_is_an_interrupted_run(pytester):
    waiting_suite(pytester.path, {"a": "a", "b": "wrong answer", "c": "c"})
    code, out = finish(subprocess_pytest(pytester.path, "-x", "--ocr-report", "r.json"))
    assert code == pytest.ExitCode.TESTS_FAILED
    run = valid(pytester.path / "r.json")["run"]
    assert (run["status"], run["not_run"]) == ("interrupted", 1) and "stopping after 1 failures" in run["interruption"]


# -- two runs updating one baseline --------------------------------------------------------


def test_a_run_keeps_the_records_another_run_wrote_meanwhile(pytester):
    """Run A starts (and reads the baseline), run B writes its records to the same file,
    then A writes: B's records are still there, since A re-reads the file under the lock."""
    waiting_suite(pytester.path, {"a1": "wait:go", "a2": "a2", "b1": "b1", "b2": "b2"})
    args = ("--ocr-baseline", "b.json", "--ocr-baseline-write", "update")
    first = subprocess_pytest(pytester.path, "-k", "a1 or a2", *args)
    wait_for(pytester.path / "started-go", first)
    code, out = finish(subprocess_pytest(pytester.path, "-k", "b1 or b2", *args))
    assert code == 0, out
    assert sorted(r["case"] for r in load_report(pytester.path / "b.json")["results"]) == ["b1", "b2"]
    (pytester.path / "go").touch()
    code, out = finish(first)
    assert code == 0, out
    assert sorted(r["case"] for r in load_report(pytester.path / "b.json")["results"]) == ["a1", "a2", "b1", "b2"]


def test_runs_writing_one_baseline_at_the_same_moment_all_keep_their_records(pytester):
    names = [f"r{i}" for i in range(4)]
    waiting_suite(pytester.path, {name: "wait:go" for name in names})
    runs = [
        subprocess_pytest(pytester.path, "-k", name, "--ocr-baseline", "b.json", "--ocr-baseline-write", "update")
        for name in names
    ]
    for _name, proc in zip(names, runs, strict=True):
        wait_for(pytester.path / "started-go", proc)
    time.sleep(0.5)  # every run waits in its engine: release them at once
    (pytester.path / "go").touch()
    for proc in runs:
        code, out = finish(proc)
        assert code == 0, out
    assert sorted(r["case"] for r in load_report(pytester.path / "b.json")["results"]) == names
    assert [p.name for p in pytester.path.iterdir() if p.name.endswith(".tmp")] == []


def test_the_lock_serialises_writers(tmp_path):
    target = tmp_path / "b.json"
    order = tmp_path / "order.txt"
    script = (
        f"import sys, time; sys.path.insert(0, {str(Path(__file__).parent.parent)!r})\n"
        "from pytest_ocr.files import locked\n"
        f"with locked(__import__('pathlib').Path({str(target)!r})):\n"
        f"    open({str(order)!r}, 'a').write('in ')\n"
        "    time.sleep(0.3)\n"
        f"    open({str(order)!r}, 'a').write('out ')\n"
    )
    with locked(target):
        procs = [subprocess.Popen([sys.executable, "-c", script]) for _ in range(3)]
        time.sleep(0.5)
        assert not order.exists()  # all three wait for this holder
    for proc in procs:
        assert proc.wait(timeout=30) == 0
    assert order.read_text().split() == ["in", "out"] * 3  # never two inside at once


# -- files as the umask says ---------------------------------------------------------------


@pytest.mark.parametrize(("umask", "file_mode", "dir_mode"), [(0o022, 0o644, 0o755), (0o027, 0o640, 0o750)])
def test_outputs_are_created_with_the_umasks_mode(pytester, umask, file_mode, dir_mode):
    waiting_suite(pytester.path, {"a": "a"})
    code, out = finish(
        subprocess_pytest(
            pytester.path,
            "--ocr-report",
            "r.json",
            "--ocr-html",
            "r.html",
            "--ocr-results-dir",
            "out",
            "--ocr-baseline",
            "b.json",
            "--ocr-baseline-write",
            "create",
            umask=umask,
        )
    )
    assert code == 0, out
    [run_dir] = (pytester.path / "out").iterdir()
    for path in (pytester.path / "r.json", pytester.path / "r.html", pytester.path / "b.json", *run_dir.iterdir()):
        assert stat.S_IMODE(path.stat().st_mode) == file_mode, path
    assert stat.S_IMODE(run_dir.stat().st_mode) == dir_mode


def test_write_atomic_keeps_the_old_file_when_writing_fails(tmp_path):
    target = tmp_path / "r.json"
    write_atomic(target, "old")
    with pytest.raises(TypeError):
        write_atomic(target, 12345)  # fails after the temporary file was made
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["r.json"]
    write_atomic(target, "new ✓")
    assert target.read_text(encoding="utf-8") == "new ✓"


# -- an error a user causes is one message, never a traceback ------------------------------


def test_a_tokenizer_that_is_not_available_offline_is_an_item_error_without_traceback(pytester, tmp_path):
    waiting_suite(pytester.path, {"a": "a"})
    (pytester.path / "s.ocr.yaml").write_text(
        "engines: {wait: {type: python, function: 'waiting:read'}}\n"
        "cases:\n  - {id: a, image: a.tif, engine: wait, expected: {text: a}, metrics: [total_tokens],\n"
        "     tokens: {encoding: o200k_base}}\n",
        encoding="utf-8",
    )
    empty_cache = tmp_path / "tiktoken-cache"
    empty_cache.mkdir()
    code, out = finish(
        subprocess_pytest(
            pytester.path, "--ocr-report", "r.json", env={**os.environ, "TIKTOKEN_CACHE_DIR": str(empty_cache)}
        )
    )
    assert code == pytest.ExitCode.TESTS_FAILED
    assert "tokenizer encoding 'o200k_base' is not available offline" in out
    assert "Traceback" not in out and "tokens.py" not in out and "raise " not in out
    [record] = valid(pytester.path / "r.json")["results"]
    assert record["outcome"] == "error" and record["error"].startswith("tokenizer encoding 'o200k_base'")


def test_storable_replaces_what_no_writer_could_hold():
    from pytest_ocr.engines import EngineError, Recognition
    from pytest_ocr.engines.recognize import storable

    odd = Recognition(
        "a\ud800b\udfff",
        lines=["a\ud800b"],
        confidence=float("nan"),
        raw={"set": {1, 2}},
        fields={"total\udc80": ["1\ud800"]},
        warnings=["w\ud800"],
    )
    stored = storable(odd, "svc")
    assert (stored.text, stored.lines, stored.fields) == ("a\ufffdb\ufffd", ["a\ufffdb"], {"total\ufffd": ["1\ufffd"]})
    assert stored.confidence is None and stored.raw is None
    assert stored.warnings == [
        "w\ufffd",
        "the output held 6 lone surrogate code point(s) (not Unicode text); stored and scored as U+FFFD",
        "the engine reported a confidence of nan; recorded as none",
        "the engine's raw output is not JSON data; left out",
    ]
    plain = Recognition("plain text", confidence=0.5)
    assert storable(plain, "svc") == plain
    with pytest.raises(EngineError, match=r"engine 'svc' returned output of the wrong type: text is bytes, not str"):
        storable(Recognition(b"bytes"), "svc")  # type: ignore[arg-type]
    with pytest.raises(EngineError, match=r"engine 'svc' returned str, not a Recognition"):
        storable("text", "svc")


def test_storable_bounds_raw_output_and_fields():
    from pytest_ocr.engines import EngineError, Recognition
    from pytest_ocr.engines.recognize import storable

    deep: list = []
    for _ in range(10_000):  # deeper than any recursion (and than --ocr-max-nesting's 100)
        deep = [deep]
    big = {"pages": ["x" * (6 * 1024 * 1024), "y" * (5 * 1024 * 1024)]}
    for raw, problem in (
        (deep, "is nested more than 100 levels deep (--ocr-max-nesting)"),
        (big, "holds 11.0 MB of text; the limit is 10 MB (--ocr-max-output-mb)"),
    ):
        stored = storable(Recognition("text", raw=raw), "svc")
        assert (stored.text, stored.raw) == ("text", None)
        assert stored.warnings == [f"the engine's raw output {problem}; left out"]
    kept = {"tokens": [[["a", 1]]], "model": "m"}
    assert storable(Recognition("text", raw=kept), "svc").raw == kept
    with pytest.raises(EngineError, match=r"engine 'svc' returned fields nested more than 100 levels deep"):
        storable(Recognition("text", fields={"a": deep}), "svc")
