"""Text from engines and datasets in every terminal and CI output (issue 12): real pytest
sessions whose engine returns or raises text with ANSI escapes, bidi overrides, carriage
returns, NUL, C1 controls and GitHub workflow commands, run as GitHub Actions runs them
(GITHUB_ACTIONS=true, GITHUB_STEP_SUMMARY), in a subprocess so the assertions see the
bytes a CI log gets. Nothing hidden reaches stdout or the step summary; the escapes show
where the text is shown; no line of it is a workflow command but our own annotations."""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import unicodedata

import pytest
from helpers.markdown import assert_inert, render

from pytest_ocr.visible import visible

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

MEMORY = 1024 * 1024 * 1024  # bytes of address space for each pytest process
TIMEOUT = 120  # seconds

# An engine that returns the side-car text as written (CR kept), or raises with it after "raise:".
EVIL_ENGINE = """
from pathlib import Path

def read(image_path, **options):
    text = Path(image_path).with_suffix(".ocr.txt").read_bytes().decode("utf-8")
    if text.startswith("raise:"):
        raise RuntimeError(text[len("raise:"):])
    return text
"""
EVIL_CONFIG = "engines:\n  evil: {type: python, function: evil:read}\ndefaults:\n  engine: evil\n"

# OCR output: colour, a right-to-left override, isolates, marks, NUL, DEL, an 8-bit CSI,
# a carriage return, the old command syntax, and lines that are workflow commands.
OCR = (
    "Total 12.00 \x1b[31mRED\x1b[0m \u202eevil\u202c \u2066iso\u2069 \u200f\u061c nul\x00 del\x7f csi\x9b1m "
    "cr\rhidden ##[error]old\n::error::pwned\n  ::stop-commands::x\n::add-mask::secret"
)
# An engine error: screen clear, a window-title OSC, an override, and commands after CR,
# LF, TAB, U+2028 and NEL.
CRASH = (
    "boom \x1b[2J\x1b]0;owned\x07 \u202edesrever\u202c\r::set-output name=x::y\n::error::pwned\n"
    "::stop-commands::x\n\t::add-mask::secret\n##[error]old\u2028::warning::sep\x85::notice::nel"
)
# A JSON answer whose value and extra key are hostile (json.dumps writes them as \u escapes).
FIELDS = json.dumps({"total": "\x1b[31m99.00\u202e", "\u202e\n::add-mask::k": "v"})

CASES = """cases:
  - id: text
    image: text.tif
    expected: {text: "Total 12.00"}
    normalize: {collapse_whitespace: false}
    thresholds: {cer: "< 0.1"}
  - {id: crash, image: crash.tif, expected: {text: hello}}
  - {id: fields, image: fields.tif, expected: {fields: {total: "12.00"}}, thresholds: {field_f1: "== 1"}}
"""
LINES = {"text": 2, "crash": 7, "fields": 8}  # each case's line in CASES

HIDDEN = {"Cc", "Cf", "Cs", "Zl", "Zp"}  # control, format, surrogate, line/paragraph separator


def hidden(text: str, allowed: str = "\n") -> list[str]:
    """The hidden characters in ``text`` (independently of pytest_ocr's own rule)."""
    return sorted({f"U+{ord(c):04X}" for c in text if c not in allowed and unicodedata.category(c) in HIDDEN})


def runner_lines(out: str) -> list[str]:
    """The lines as the GitHub runner reads a step's output (.NET ReadLine: LF, CR, CRLF)."""
    return re.split(r"\r\n|\r|\n", out)


def command_lines(out: str) -> list[str]:
    """Lines the runner would take as workflow commands: ``::`` after leading whitespace,
    or the old ``##[`` syntax anywhere in the line."""
    return [line for line in runner_lines(out) if line.lstrip().startswith("::") or "##[" in line]


def session(root, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """``python -m pytest ARGS`` in ``root`` as a CI step runs it: its stdout as bytes,
    decoded strictly (what a log gets), and its exit status; each process under a memory
    limit, the session under a timeout, as in every hostile-input test."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "--color=no", *args],
        cwd=root,
        capture_output=True,
        timeout=TIMEOUT,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY)),
        env={**os.environ, "COLUMNS": "400", **(env or {})},
    )
    return proc.returncode, proc.stdout.decode("utf-8")


@pytest.fixture
def evil(suite):
    suite.pytester.makepyfile(evil=EVIL_ENGINE)
    suite.write("ocr-config.yaml", EVIL_CONFIG)
    suite.image("text.tif", OCR)
    suite.image("crash.tif", "raise:" + CRASH)
    suite.image("fields.tif", FIELDS)
    suite.write("s.ocr.yaml", CASES)
    return suite


def test_visible_by_hand():
    assert visible("plain text, 請求書 ☃ ok") == "plain text, 請求書 ☃ ok"
    assert visible("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m"
    assert visible("a\u202eb\u2066c\u2069\u200e\u200f\u061c\ufeff\u200b") == (
        "a\\u202eb\\u2066c\\u2069\\u200e\\u200f\\u061c\\ufeff\\u200b"
    )
    assert visible("\x00\x07\x7f\x85\x9b\u2028\u2029\U000e0001") == (
        "\\x00\\x07\\x7f\\x85\\x9b\\u2028\\u2029\\U000e0001"
    )
    assert visible("one\ntwo\r\tthree") == "one\\ntwo\\r\\tthree"
    assert visible("one\ntwo\r\tthree", multiline=True) == "one\ntwo\\r\tthree"
    # workflow commands: "::" starting a line (after whitespace), "##[" anywhere
    assert visible("::error::x") == "\\x3a:error::x"
    assert visible("a::b ##[error]c") == "a::b ##\\x5berror]c"
    assert visible("x\n  ::add-mask::s\n\t::stop-commands::t", multiline=True) == (
        "x\n  \\x3a:add-mask::s\n\t\\x3a:stop-commands::t"
    )
    assert visible("x\n::error::y") == "x\\n::error::y"  # one line: the LF is shown, no line starts
    # idempotent: what it gives back it leaves as it is, in either mode
    for text in (OCR, CRASH, FIELDS, "###[", "::::", " :: ", "\\x3a:"):
        for multiline in (False, True):
            once = visible(text, multiline=multiline)
            assert visible(once, multiline=multiline) == once
            assert not hidden(once, allowed="\n\t" if multiline else "")
            assert not command_lines(once)


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_hostile_engine_text_in_every_output(evil, workers):
    summary_file = evil.path / "summary.md"
    code, out = session(
        evil.path,
        "-rA",
        "-v",
        "--ocr-no-cache",
        "--ocr-report",
        "r.json",
        *workers,
        env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary_file)},
    )
    assert code == 1, out
    lines = out.split("\n")

    # Nothing hidden anywhere in stdout: no ESC, CR, NUL, C1, bidi or other format character
    # (TAB is kept inside an engine's multi-line error message).
    assert hidden(out, allowed="\n\t") == [], out

    # The only workflow commands are our three annotations, one per failed or errored item.
    commands = command_lines(out)
    assert len(commands) == 3, commands
    for case, outcome in (("text", "failed"), ("crash", "error"), ("fields", "failed")):
        prefix = f"::error file=s.ocr.yaml,line={LINES[case]},title=OCR {outcome}%3A {case} on evil::"
        assert sum(line.startswith(prefix) for line in commands) == 1, (prefix, commands)
    crash_annotation = next(line for line in commands if "crash on evil" in line)
    assert crash_annotation.endswith(
        "::evil:read raised RuntimeError: boom \\x1b[2J\\x1b]0;owned\\x07 \\u202edesrever\\u202c"
    )

    # The engine's error as pytest prints it, line by line: escapes shown, every command inert.
    start = lines.index(
        "evil:read raised RuntimeError: boom \\x1b[2J\\x1b]0;owned\\x07 \\u202edesrever\\u202c\\r::set-output name=x::y"
    )
    assert lines[start + 1 : start + 5] == [
        "\\x3a:error::pwned",
        "\\x3a:stop-commands::x",
        "\t\\x3a:add-mask::secret",
        "##\\x5berror]old\\u2028::warning::sep\\x85::notice::nel",
    ]
    assert lines[start + 5].startswith("while reading ")  # then the engine's traceback
    # pytest's short summary shows the first line of it
    assert (
        "ERROR s.ocr.yaml::crash[evil] - evil:read raised RuntimeError: boom \\x1b[2J\\x1b]0;owned\\x07 "
        "\\u202edesrever\\u202c\\r::set-output name=x::y"
    ) in lines

    # The aligned diff: every hidden character as its escape, in rows that stay aligned.
    expected_rows = [line.removeprefix("  expected:   ") for line in lines if line.startswith("  expected:   ")]
    recognized_rows = [line.removeprefix("  recognized: ") for line in lines if line.startswith("  recognized: ")]
    shown = "".join(recognized_rows)  # the windows are contiguous
    for escaped in (
        "Total 12.00 \\x1b[31mRED\\x1b[0m ",
        "\\u202eevil\\u202c",
        "\\u2066iso\\u2069",
        "\\u200f\\u061c",
        "nul\\x00",
        "del\\x7f",
        "csi\\x9b1m",
        "cr\\rhidden",
        "##\\x5berror]old⏎::error::pwned⏎  ::stop-commands::x⏎::add-mask::secret",
    ):
        assert escaped in shown, escaped
    # one column per character of these rows (ASCII, ·, ⏎): both rows of a window equally wide
    assert [len(r) for r in expected_rows] == [len(r) for r in recognized_rows]

    # The fields section: the hostile value and extra key, each on its line, escaped.
    assert "  total: expected '12.00', got '\\x1b[31m99.00\\u202e' (casefold)" in lines
    assert "  extra: \\u202e\\n::add-mask::k" in lines

    # The OCR summary's first errors.
    assert (
        "  s.ocr.yaml::crash[evil]: evil:read raised RuntimeError: "
        "boom \\x1b[2J\\x1b]0;owned\\x07 \\u202edesrever\\u202c"
    ) in lines

    # The step summary: nothing hidden, inert Markdown, the escapes readable in the cell.
    text = summary_file.read_text(encoding="utf-8")
    assert hidden(text) == [] and not command_lines(text)
    rendered = render(text)
    assert_inert(rendered)
    errors = next(t for t in rendered.tables if t[0] == ["item", "where", "error"])
    assert errors[1:] == [
        [
            "s.ocr.yaml::crash[evil]",
            "s.ocr.yaml:7",
            "evil:read raised RuntimeError: boom \\x1b[2J\\x1b]0;owned\\x07 \\u202edesrever\\u202c",
        ]
    ]
    failed = next(t for t in rendered.tables if t[0] == ["item", "where", "why"])
    assert [row[0] for row in failed[1:]] == ["s.ocr.yaml::fields[evil]", "s.ocr.yaml::text[evil]"]

    # The JSON report keeps what the engine sent, exactly.
    records = {r["case"]: r for r in json.loads((evil.path / "r.json").read_text(encoding="utf-8"))["results"]}
    assert records["text"]["prediction"] == OCR
    assert records["crash"]["error"].startswith("evil:read raised RuntimeError: " + CRASH + "\n")
    assert records["fields"]["fields"]["total"] == "\x1b[31m99.00\u202e"


def test_the_json_summary_stays_json_with_hidden_characters_escaped(evil):
    # The most frequent confusions are hidden characters: the summary's top_confusions hold them.
    evil.image("text.tif", "Total 12.00" + "\u202e" * 30 + "\x85" * 20 + "\u2028" * 10 + "\x1b" * 5)
    code, out = session(evil.path, "--ocr-no-cache", "--ocr-summary", "json", "-k", "text")
    assert code == 1, out
    assert hidden(out) == [] and not command_lines(out)
    document = json.loads(out[out.index("{", out.index("OCR summary")) : out.rindex("}") + 1])
    inserted = {hyp for ref, hyp, _ in document["summary"]["evil"]["top_confusions"] if ref == "<INSERT>"}
    assert {"\u202e", "\x85", "\u2028", "\x1b"} <= inserted  # the same characters, as JSON escapes


def test_dataset_skipped_reasons_name_files_as_reports_do(suite):
    suite.image("img/a.tif", "hello")
    suite.write("labels.txt", "img/a.tif\thello\nimg/\x1b[31mmissing\u202e.tif\tgone\n")
    suite.write("rec.ocr.yaml", "dataset: {type: paddle, label_file: labels.txt}\n")
    code, out = session(suite.path, "--ocr-no-cache", "--ocr-report", "r.json")
    assert code == 0, out
    assert hidden(out) == [] and not command_lines(out)
    # relative to the project directory, as results name files, and visible
    assert "  skipped: labels.txt:2: image not found: img/\\x1b[31mmissing\\u202e.tif" in out.split("\n")
    (dataset,) = json.loads((suite.path / "r.json").read_text(encoding="utf-8"))["datasets"]
    assert [e["reason"] for e in dataset["skipped_entries"]] == ["image not found: img/\x1b[31mmissing\u202e.tif"]
    assert str(suite.path) not in json.dumps(dataset)
