"""What a reviewer reads in a CI log: failures in pytest's --tb styles, the OCR summary
fitted to the terminal width, numbers rounded for people and every "worst" list sorted
by how much worse, with a count of the rest. Real pytest sessions (pytester)."""

from __future__ import annotations

import itertools
import re

import pytest
from conftest import load_report, run
from helpers.terminal import display_width

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

GOOD = "The quick brown fox jumps over the lazy dog near the river bank today"
LONG_ID = "sroie-2019-scanned-receipts-X51005268275-receipt-with-a-long-name"


SPREAD = (0, 4, 8, 12, 2, 6, 10, 1, 3, 5, 7, 9, 11)  # the first misread words far apart


def _bad(n: int) -> str:
    """GOOD with n of its words misread: the more n, the worse."""
    misread = set(SPREAD[:n])
    return " ".join(w.upper()[::-1] if i in misread else w for i, w in enumerate(GOOD.split()))


def _suite(suite, engines: tuple[str, ...] = ("fake",), cases: int = 8) -> None:
    """``cases`` cases, case i with i words misread; every case fails cer < 0.01 but the first."""
    config = "engines:\n" + "".join(f"  {e}: {{type: python, function: sidecar_engine:read}}\n" for e in engines)
    suite.write("ocr-config.yaml", config + f"defaults:\n  engine: [{', '.join(engines)}]\n")
    lines = ["cases:"]
    for i in range(cases):
        suite.image(f"img/c{i}.tif", _bad(i))
        case = (
            f'{{id: {LONG_ID}-{i}, image: img/c{i}.tif, expected: {{text: "{GOOD}"}}, thresholds: {{cer: "< 0.01"}}}}'
        )
        lines.append(f"  - {case}")
    suite.write("s.ocr.yaml", "\n".join(lines) + "\n")


def _section(out: str, title: str) -> list[str]:
    """The lines of one of pytest's ``=== title ===`` sections."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(rf"=+ {title} =+$", line))
    end = next(i for i in range(start + 1, len(lines)) if re.match(r"=+ .* =+$", lines[i]))
    return lines[start + 1 : end]


def test_tb_line_gives_one_line_per_failure_with_its_checks_rounded(suite):
    _suite(suite)
    for extra in ((), ("-n", "2")):  # the same line from pytest-xdist workers
        result = run(suite, "--tb=line", "--ocr-report", "report.json", *extra)
        result.assert_outcomes(passed=1, failed=7)
        # pytest-xdist heads each report with the worker's line, for plain tests too
        failures = [line for line in _section(result.stdout.str(), "FAILURES") if not line.startswith("[gw")]
        assert len(failures) == 7
        report = {r["case"]: r for r in load_report(suite)["results"]}
        for line in failures:
            match = re.fullmatch(rf"s\.ocr\.yaml:(\d+): ({LONG_ID}-\d) on fake: cer = (\S+) \(expected < 0\.01\)", line)
            assert match, line
            record = report[match[2]]
            assert int(match[1]) == record["line"]  # the case's own line
            assert match[3] == f"{record['metrics']['cer']:.4f}"  # rounded; the JSON keeps it exact
            assert len(str(record["metrics"]["cer"])) > 8


def test_tb_short_is_a_few_lines_with_one_window_of_the_diff_and_long_the_whole_text(suite):
    _suite(suite, cases=4)  # case 3: three words misread far apart, three windows of the diff
    short = _section(run(suite, "--tb=short", "--ocr-report", "report.json").stdout.str(), "FAILURES")
    cer = next(r for r in load_report(suite)["results"] if r["case"].endswith("-3"))["metrics"]["cer"]
    long = _section(run(suite, "--tb=long").stdout.str(), "FAILURES")
    assert _section(run(suite).stdout.str(), "FAILURES") == long  # pytest's default is the long text

    def items(lines: list[str]) -> list[list[str]]:
        found: list[list[str]] = []
        for line in lines:
            if re.fullmatch(r"_+ .* _+", line):
                found.append([])
            else:
                found[-1].append(line)
        return found

    short_item, long_item = items(short)[-1], items(long)[-1]
    assert sum(line.startswith("  @ column") for line in short_item) == 1
    assert short_item[-1] == "  … and 2 more differing segments (--tb=long)"
    assert sum(line.startswith("  @ column") for line in long_item) == 3
    for item in (short_item, long_item):
        assert f"  cer = {cer:.4f}, expected < 0.01: FAILED" in item
    assert all(len(item) <= 8 for item in items(short)) and len(long) > len(short)


def test_the_summary_fits_columns_engines_in_blocks_and_long_ids_kept_whole(suite, monkeypatch):
    engines = ("tesseract-5-fraktur-best", "rapidocr-ppocrv5-mobile", "paddleocr-vl-0.9b-server")
    _suite(suite, engines=engines)
    wide = run(suite).stdout.str()
    assert max(display_width(line) for line in _section(wide, "OCR summary")) > 100  # no width given: no limit

    for columns in (80, 60):
        monkeypatch.setenv("COLUMNS", str(columns))
        out = run(suite, "--tb=short").stdout.str()
        summary = _section(out, "OCR summary")
        assert max(display_width(line) for line in summary) <= columns
        # pytest's own item titles (``___ id ___``) are as long as the id
        ours = [line for line in _section(out, "FAILURES") if not re.fullmatch(r"_+ .* _+", line)]
        assert max(display_width(line) for line in ours) <= columns
        # every engine's column is there, in blocks each under its own header
        headers = [line for line in summary if line.startswith("engine ")]
        assert len(headers) >= 2 and {e for line in headers for e in line.split()[1:]} == set(engines)
        assert sum(bool(re.match(r"cer macro +0\.", line)) for line in summary) == len(headers)
        # an id too long for the line loses its file path first, never its case id or engine:
        # an entry wider than the line wraps, so nothing of it is cut
        starts = [i for i, line in enumerate(summary) if re.match(r"  0\.\d{4}(\s|$)", line)]
        assert len(starts) == 15
        for i in starts:
            entry = [summary[i]] + list(itertools.takewhile(lambda line: line.startswith("    "), summary[i + 1 :]))
            joined = re.sub(r"\s+", "", "".join(entry))
            assert re.search(
                r"^0\.\d{4}…[^:]*::sroie-2019-scanned-receipts-X51005268275-receipt-with-a-long-name-"
                r"\d\[(tesseract-5-fraktur-best|rapidocr-ppocrv5-mobile|paddleocr-vl-0\.9b-server)\]"
                r"\[failed\]$",
                joined,
            ), entry


def test_worst_lists_put_the_worst_first_and_count_the_rest(suite):
    _suite(suite, cases=9)
    run(suite, "--ocr-baseline", "base.json", "--ocr-baseline-write", "create")
    for i in range(9):  # every case but the first gets worse by a different amount
        suite.image(f"img/c{i}.tif", _bad(min(12, i + (i * 7) % 5)))
    out = run(suite, "--ocr-baseline", "base.json", "--ocr-report", "report.json").stdout.str()
    summary = _section(out, "OCR summary")
    report = load_report(suite)
    regressed = [r for r in report["results"] if r["baseline"]["regressed"]]
    assert len(regressed) > 5

    start = summary.index("    regressed, worst first (by how much worse than its tolerance allows):")
    shown = summary[start + 1 : start + 6]
    changes = [float(re.match(r"      (?:cer|wer) worse by (\d\.\d{4}) beyond 0  ", line)[1]) for line in shown]
    assert changes == sorted(changes, reverse=True)
    assert summary[start + 6] == f"      … and {len(regressed) - 5} more regressed items"

    worst = [line for line in summary if re.match(r"  0\.\d{4}  ", line)]
    values = [float(line.split()[0]) for line in worst]
    assert values == sorted(values, reverse=True) and len(values) == 5
    assert "  … and 3 more with cer above 0" in summary


def test_no_value_is_printed_with_more_than_four_decimals(suite):
    _suite(suite)
    out = run(suite, "--tb=long").stdout.str()
    assert not re.search(r"\d\.\d{5,}", out)
