"""olmOCR-Bench fact checks (pytest_ocr.metrics.facts) against olmOCR-Bench's own code.

The oracle is the olmocr package (olmocr/bench/tests.py): ``load_single_test(fact).run(output)``, an exception
counting as a failed check as olmOCR-Bench's runner counts it. Math facts need a browser in olmOCR (its
constructor renders the formula) and are delegated here, so they are not compared.
"""

from __future__ import annotations

import json
import random
import re
import textwrap
from pathlib import Path

import pytest
from conftest import run_bounded
from fuzzysearch import find_near_matches
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from olmocr.bench.tests import ValidationError, load_single_test, parse_html_tables, parse_markdown_tables
from olmocr.bench.tests import normalize_text as olmocr_normalize_text
from olmocr.repeatdetect import RepeatDetector

from pytest_ocr.metrics.facts import (
    FACT_TYPES,
    Fact,
    FactError,
    FactVerdict,
    check_fact,
    check_facts,
    ngram_repeats,
    normalize_text,
    parse_fact,
)
from pytest_ocr.metrics.facts import baseline as baseline_facts
from pytest_ocr.metrics.facts import page as fact_page
from pytest_ocr.metrics.facts import presence as presence_facts

SAMPLE = Path(__file__).parent / "data" / "olmocr-bench-sample"
PROPERTY = settings(
    max_examples=200,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def olmocr_test(data: dict):
    """olmOCR-Bench's test object for a fact (it requires the bookkeeping keys pdf and page)."""
    return load_single_test({"pdf": "page.pdf", "page": 1, **data})


def oracle(data: dict, text: str) -> bool:
    """olmOCR-Bench's verdict (its runner counts a check that raises as failed)."""
    try:
        passed, _ = olmocr_test(data).run(text)
    except Exception:
        return False
    return bool(passed)


def ours(data: dict, text: str) -> bool:
    return check_fact(parse_fact(data), text).passed


def output_of(pdf: str, page: int) -> str:
    """The stored olmOCR output of a page: olmocr_pipeline/<pdf's folder>/<pdf stem>_pg<page>_repeat1.md."""
    path = Path(pdf)
    return (SAMPLE / "olmocr_pipeline" / path.parent / f"{path.stem}_pg{page}_repeat1.md").read_text(encoding="utf-8")


def _load(name: str) -> list[dict]:
    lines = (SAMPLE / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


DATASET = _load("dataset.jsonl")
BLANKS = _load("blanks.jsonl")
PAGES = sorted({(d["pdf"], d["page"]) for d in DATASET + BLANKS})
OUTPUTS = {page: output_of(*page) for page in PAGES}
# Every non-math fact, the blank page's, and a default baseline fact on every page.
CHECKS = [d for d in DATASET + BLANKS if d["type"] != "math"] + [
    {"pdf": pdf, "page": page, "id": f"{Path(pdf).stem}_pg{page}_baseline", "type": "baseline"} for pdf, page in PAGES
]


def test_the_sample_is_what_its_sources_say():
    counts: dict[str, int] = {}
    for d in DATASET:
        counts[d["type"]] = counts.get(d["type"], 0) + 1
    assert counts == {"present": 30, "absent": 24, "table": 20, "order": 13, "math": 12}
    assert len(BLANKS) == 1 and BLANKS[0]["type"] == "baseline"
    assert len(PAGES) == 23 and len(CHECKS) == 87 + 1 + 23


# --- 1. The sample: every fact on the stored olmOCR output


@pytest.mark.parametrize("data", CHECKS, ids=[d["id"] for d in CHECKS])
def test_each_sample_fact_agrees_with_olmocr_bench(data):
    text = OUTPUTS[(data["pdf"], data["page"])]
    verdict = check_fact(parse_fact(data), text)
    assert verdict.passed == oracle(data, text), verdict
    assert (verdict.id, verdict.type) == (data["id"], data["type"])
    assert (verdict.reason == "") == verdict.passed
    assert "\n" not in verdict.reason


# Passes of each type on the stored outputs (olmOCR-Bench 0.4.27's): a change in either implementation shows.
SAMPLE_PASSES = {
    "present": (24, 30),
    "absent": (23, 24),
    "order": (12, 13),
    "table": (17, 20),
    "baseline": (22, 24),  # the blank page and one empty output fail the default baseline
}


def test_the_sample_totals_per_type():
    ours_by_type: dict[str, list[int]] = {}
    oracle_by_type: dict[str, list[int]] = {}
    for (pdf, page), text in OUTPUTS.items():
        on_page = [d for d in CHECKS if (d["pdf"], d["page"]) == (pdf, page)]
        for data, verdict in zip(on_page, check_facts([parse_fact(d) for d in on_page], text), strict=True):
            ours_by_type.setdefault(data["type"], [0, 0])[0] += verdict.passed
            ours_by_type[data["type"]][1] += 1
            oracle_by_type.setdefault(data["type"], [0, 0])[0] += oracle(data, text)
            oracle_by_type[data["type"]][1] += 1
    assert {k: tuple(v) for k, v in ours_by_type.items()} == SAMPLE_PASSES
    assert {k: tuple(v) for k, v in oracle_by_type.items()} == SAMPLE_PASSES


def test_the_reasons_say_what_failed_and_what_was_found_instead():
    by_id = {d["id"]: d for d in CHECKS}

    def failed(fact_id: str) -> tuple[FactVerdict, list[str]]:
        data = by_id[fact_id]
        text = OUTPUTS[(data["pdf"], data["page"])]
        verdict = check_fact(parse_fact(data), text)
        assert not verdict.passed
        return verdict, [text[start:end] for start, end in verdict.spans]

    # table: the matching cell, where it is written (the earnings table's "1,136" is on line 30 of the output)
    verdict, spans = failed("earnings_table00")
    assert verdict.reason == (
        "cell '1,136' found on line 30, row 5, column 2 of its table, but the top heading is 'Jan 29, 2023', "
        "not 'Year Ended' (similarity 0.18 < 1.00)"
    )
    assert spans == ["1,136"]
    assert OUTPUTS[("earnings.pdf", 1)].splitlines()[29].startswith("| Sales, general and administrative | 1,136 |")
    # present: the nearest text (olmOCR read "4O" as "40") and where it starts
    verdict, spans = failed("discoverworld_crazy_table4_02")
    assert verdict.reason == (
        "'We use the GPT-4O model for all our agen…' not found: best match 0.993 < threshold 1.000; "
        "the nearest is 'We use the GPT-40 model for all our agen…' at line 51, column 150"
    )
    assert spans[0].startswith("We use the GPT-40 model for all our agents")
    # present, case-sensitive: the nearest is in upper case on the page; the span is the output's own text
    verdict, spans = failed("building_notes_02")
    assert verdict.reason.endswith("the nearest is 'west bath ' at line 11, column 3")
    assert spans == ["WEST BATH "]
    # absent: where it was found, and as what (a Persian text with other letters and a line break between)
    verdict, spans = failed("ff3d6e051903fe5ca9bc172ece14964c5632_01a")
    assert verdict.reason.startswith(
        "'farbod4ever@gmail.com :نويسنده رابط' found at line 7, column 1 as 'farbod4ever@gmail.com نویسنده رابطه'"
    )
    assert spans == ["farbod4ever@gmail.com\n\nنویسنده رابطه"]
    # order: where the first 'before' and the last 'after' are
    verdict, spans = failed("mathfuncscol_01")
    assert verdict.reason == (
        "'Pythagorean Theorem' does not come before 'The Fundamental Theorem of Calculus' (the first 'before' "
        "match is at line 10, column 6, the last 'after' match at line 5, column 28)"
    )
    assert spans == ["Pythagorean Theorem", "The Fundamental Theorem of Calculus"]


def test_math_facts_are_delegated_to_the_callers_checker():
    maths = [d for d in DATASET if d["type"] == "math"]
    assert len(maths) == 12
    fact = parse_fact(maths[0])
    text = OUTPUTS[(maths[0]["pdf"], maths[0]["page"])]
    verdict = check_fact(fact, text)
    assert not verdict.passed and "KaTeX renderer" in verdict.reason
    seen = []

    def checker(checked: Fact, output: str) -> tuple[bool, str]:
        seen.append((checked, output))
        return len(seen) == 1, "no formula renders like it"

    assert check_facts([fact, fact], text, math=checker) == [
        FactVerdict(fact.id, "math", True, ""),
        FactVerdict(fact.id, "math", False, "no formula renders like it"),
    ]
    assert seen == [(fact, text), (fact, text)]


def test_facts_round_trip_through_their_dicts():
    for data in DATASET + BLANKS:
        fact = parse_fact(data)
        assert parse_fact(fact.to_dict()) == fact
        assert set(fact.to_dict()) <= set(data) | {"category"}
    fact = parse_fact({**DATASET[0], "category": "multi_column"})
    assert fact.category == "multi_column" and fact.to_dict()["category"] == "multi_column"


# --- 2. Adversarial outputs: every stored output mutated, every fact on every mutation


def _table_lines(text: str) -> list[int]:
    return [i for i, line in enumerate(text.split("\n")) if "|" in line]


def swap_digits(text: str, rng: random.Random) -> str:
    """In table rows, swap two digits of a cell or change one."""
    lines = text.split("\n")
    for i in _table_lines(text):
        chars = list(lines[i])
        digits = [k for k, c in enumerate(chars) if c.isdigit()]
        if len(digits) >= 2 and rng.random() < 0.7:
            a, b = rng.sample(digits, 2)
            chars[a], chars[b] = chars[b], chars[a]
        elif digits:
            chars[rng.choice(digits)] = str(rng.randrange(10))
        lines[i] = "".join(chars)
    return "\n".join(lines)


def swap_rows(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    rows = _table_lines(text)
    for _ in range(max(1, len(rows) // 3)):
        if len(rows) >= 2:
            a, b = rng.sample(rows, 2)
            lines[a], lines[b] = lines[b], lines[a]
    return "\n".join(lines)


def delete_sentences(text: str, rng: random.Random) -> str:
    sentences = re.split(r"(?<=[.!?])\s+", text)
    return " ".join(s for s in sentences if rng.random() < 0.7)


def change_case(text: str, rng: random.Random) -> str:
    return re.sub(r"\w+", lambda m: rng.choice([m[0].upper(), m[0].lower(), m[0].title(), m[0]]), text)


def irregular_pipes(text: str, rng: random.Random) -> str:
    """Drop leading or trailing pipes, double some, pad cells, add separator-like and blank-cell lines."""
    lines = text.split("\n")
    for i in _table_lines(text):
        line = lines[i]
        roll = rng.random()
        if roll < 0.2:
            line = line.strip().strip("|")
        elif roll < 0.35:
            line = line.replace("|", "||", 1)
        elif roll < 0.5:
            line = line.replace(" | ", "|")
        elif roll < 0.6:
            line = line + "\n|---|:--:|"
        elif roll < 0.7:
            line = line + " |  |"
        lines[i] = line
    return "\n".join(lines)


def inline_markup(text: str, rng: random.Random) -> str:
    """<br> in cells and text, bold, italics, <b>/<i> tags."""

    def word(m: re.Match) -> str:
        roll = rng.random()
        if roll < 0.08:
            return f"**{m[0]}**"
        if roll < 0.12:
            return f"_{m[0]}_"
        if roll < 0.15:
            return f"<b>{m[0]}</b>"
        if roll < 0.17:
            return f"*{m[0]}*"
        if roll < 0.2:
            return f"{m[0]}<br>"
        if roll < 0.22:
            return f"{m[0]}<br/>"
        return m[0]

    return re.sub(r"[^\s|]+", word, text)


def typography(text: str, rng: random.Random) -> str:
    """Curly quotes, dashes, micro signs, non-breaking and doubled spaces, decomposed accents."""
    out = []
    for c in text:
        roll = rng.random()
        if c == "'" and roll < 0.8:
            out.append(rng.choice("\u2018\u2019\u201a"))
        elif c == '"' and roll < 0.8:
            out.append(rng.choice("\u201c\u201d\u201e"))
        elif c == "-" and roll < 0.8:
            out.append(rng.choice("\u2013\u2014\u2011\u2012\u2212"))
        elif c == "u" and roll < 0.05:
            out.append("\u00b5")
        elif c == " " and roll < 0.05:
            out.append(rng.choice(["  ", "\t", "\u00a0", "\n"]))
        elif c == "e" and roll < 0.05:
            out.append("e\u0301")
        else:
            out.append(c)
    return "".join(out)


def markdown_to_html(text: str, rng: random.Random) -> str:
    """Each Markdown table as an HTML table: <thead>/<th> rows, <th> first columns, equal neighbours merged with
    rowspan/colspan, <br/> and entities in cells, attributes with spaces."""
    blocks: list[list[str]] = []
    out: list[str | int] = []
    for line in text.split("\n"):
        if "|" in line:
            if not out or not isinstance(out[-1], int):
                blocks.append([])
                out.append(len(blocks) - 1)
            blocks[-1].append(line)
        else:
            out.append(line)
    html = []
    for piece in out:
        if isinstance(piece, str):
            html.append(piece)
            continue
        grid = [
            [c.strip() for c in line.strip().strip("|").split("|")]
            for line in blocks[piece]
            if not re.fullmatch(r"[\s|:-]*", line)
        ]
        html.append(_grid_to_html(grid, rng))
    return "\n".join(html)


def _grid_to_html(grid: list[list[str]], rng: random.Random) -> str:
    covered: set[tuple[int, int]] = set()
    thead = rng.random() < 0.6
    th_column = rng.random() < 0.4
    rows = []
    for i, row in enumerate(grid):
        cells = []
        for j, text in enumerate(row):
            if (i, j) in covered:
                continue
            rowspan = colspan = 1
            while i + rowspan < len(grid) and j < len(grid[i + rowspan]) and grid[i + rowspan][j] == text:
                if rng.random() < 0.3:
                    break
                covered.add((i + rowspan, j))
                rowspan += 1
            while rowspan == 1 and j + colspan < len(row) and row[j + colspan] == text and rng.random() < 0.8:
                covered.add((i, j + colspan))
                colspan += 1
            tag = "th" if (i == 0 and (thead or rng.random() < 0.5)) or (j == 0 and th_column) else "td"
            spans = (f' rowspan="{rowspan}"' if rowspan > 1 else "") + (f" colspan={colspan}" if colspan > 1 else "")
            shown = text.replace("&", "&amp;").replace(" ", rng.choice([" ", " ", "<br/>", "<br>"]), 1)
            cells.append(f"<{tag}{spans}>{shown}</{tag}>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    if thead and rows:
        return f"<table>\n<thead>{rows[0]}</thead>\n<tbody>\n" + "\n".join(rows[1:]) + "\n</tbody>\n</table>"
    return "<table>\n" + "\n".join(rows) + "\n</table>"


def flatten(text: str, rng: random.Random) -> str:
    """Newlines gone (no Markdown table survives), or the output cut in half."""
    return text.replace("\n", " ") if rng.random() < 0.5 else text[: len(text) // 2]


def degrade(text: str, rng: random.Random) -> str:
    """A repetition loop at the end, CJK or emoji characters, image tags (the baseline facts' concerns)."""
    roll = rng.random()
    if roll < 0.3:
        return text + "\n" + rng.choice(["Total: 0.00\n", "ab", "the the ", "| | |\n"]) * rng.randrange(10, 60)
    if roll < 0.6:
        return text + rng.choice(["\n中文字幕", " \U0001f600", "カタカナ", "\U0001f1fa\U0001f1f8"])
    return "![" + text[:5] + "](figure.png) " + text[5:] + " ![alt](x.png)"


MUTATIONS = [
    swap_digits,
    swap_rows,
    delete_sentences,
    change_case,
    irregular_pipes,
    inline_markup,
    typography,
    markdown_to_html,
    flatten,
    degrade,
]
MUTATED = {
    (page, mutation.__name__): mutation(text, random.Random(f"{page}{mutation.__name__}"))
    for page, text in OUTPUTS.items()
    for mutation in MUTATIONS
}
# Markdown tables turned HTML, then mutated again: HTML tables with swapped digits and inline markup.
for page in OUTPUTS:
    html = MUTATED[(page, "markdown_to_html")]
    MUTATED[(page, "html+swap_digits")] = swap_digits(html, random.Random(f"{page}html+digits"))
    MUTATED[(page, "html+inline_markup")] = inline_markup(html, random.Random(f"{page}html+markup"))


def generated_table_facts(text: str, rng: random.Random, count: int) -> list[dict]:
    """Table facts drawn from the tables olmOCR-Bench finds in ``text``: a cell and, at random, its true or a
    false neighbour, heading or a near miss, with or without max_diffs."""
    tables = [t.data for t in parse_markdown_tables(text) + parse_html_tables(text)]
    tables = [t for t in tables if t.size]
    found: list[dict] = []
    for n in range(count if tables else 0):
        table = rng.choice(tables)
        i, j = rng.randrange(table.shape[0]), rng.randrange(table.shape[1])
        anywhere = str(table[rng.randrange(table.shape[0]), rng.randrange(table.shape[1])])
        fact: dict = {"id": f"gen{n}", "type": "table", "cell": str(table[i, j])}
        for key, (di, dj) in {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}.items():
            if rng.random() < 0.3 and 0 <= i + di < table.shape[0] and 0 <= j + dj < table.shape[1]:
                fact[key] = str(table[i + di, j + dj]) if rng.random() < 0.7 else anywhere
        if rng.random() < 0.4:
            fact["top_heading"] = str(table[rng.choice([0, 0, max(0, i - 1)]), j]) or anywhere
        if rng.random() < 0.4:
            fact["left_heading"] = str(table[i, rng.choice([0, 0, max(0, j - 1)])]) or anywhere
        if rng.random() < 0.3:
            fact["max_diffs"] = rng.choice([1, 2, 5])
        if rng.random() < 0.15:
            fact["ignore_markdown_tables"] = True
        found.append(fact)
    return found


ADVERSARIAL_FACTS = CHECKS + [
    fact
    for page, text in OUTPUTS.items()
    for fact in generated_table_facts(text, random.Random(str(page)), 12)
    + generated_table_facts(MUTATED[(page, "markdown_to_html")], random.Random(f"html{page}"), 12)
]


@pytest.mark.slow
def test_every_fact_agrees_on_every_mutated_output():
    """Every fact (the sample's, default baselines, and table facts drawn from the pages' tables) on every
    mutated output of every page. The per-type agreement counts are asserted so that the test notices when a
    mutation stops exercising a type."""
    agree: dict[str, list[int]] = {}
    differ = []
    for (page, mutation), text in MUTATED.items():
        verdicts = check_facts([parse_fact(d) for d in ADVERSARIAL_FACTS], text)
        for data, verdict in zip(ADVERSARIAL_FACTS, verdicts, strict=True):
            expected = oracle(data, text)
            counts = agree.setdefault(data["type"], [0, 0, 0])
            counts[0] += 1
            counts[1] += expected
            counts[2] += expected != verdict.passed
            if expected != verdict.passed:
                differ.append((page, mutation, data, verdict))
    assert not differ, differ[:3]
    assert {k: tuple(v) for k, v in agree.items()} == ADVERSARIAL_COUNTS


# (fact × output pairs, of which olmOCR-Bench passes, disagreements) per type on the 23 × 12 mutated outputs.
ADVERSARIAL_COUNTS = {
    "present": (8280, 247, 0),
    "absent": (6624, 6555, 0),
    "order": (3588, 166, 0),
    "table": (45264, 1383, 0),
    "baseline": (6624, 5476, 0),
}


def test_a_cell_exactly_at_the_threshold_matches():
    """ratio 96.43 against a threshold of 1 - 1/28 = 0.9643 (rapidfuzz's batch cut-off drops such a score)."""
    table = "| Topic | Score |\n|---|---|\n| Interact with A moving agent | 0.53 |"
    fact = {"id": "t", "type": "table", "cell": "Interact with a moving agent", "max_diffs": 1, "right": "0.53"}
    assert ours(fact, table) is True
    assert oracle(fact, table) is True


# --- Synthetic HTML tables: spans, header cells, <thead>, odd attribute values, nested tables


@st.composite
def html_tables(draw: st.DrawFn) -> tuple[str, list[list[str]]]:
    """An HTML table (sometimes two, or one nested in a cell) and the texts of its cells by row."""
    words = st.sampled_from(["a", "b", "ab", "Total", "12", "1.5", "", " x ", "a\x00", "Q&amp;A", "é", "**b**"])
    n_rows = draw(st.integers(1, 5))
    grid: list[list[str]] = []
    rows_html = []
    span_values = st.sampled_from(["1", "2", "3", " 2 ", "0"])
    odd_values = st.sampled_from(["-1", "x", "", "1_0", "2.0"])
    for _ in range(n_rows):
        texts = []
        cells = []
        for _ in range(draw(st.integers(0, 4))):
            text = draw(words)
            tag = draw(st.sampled_from(["td", "td", "th"]))
            attributes = ""
            for name in ("rowspan", "colspan"):
                if draw(st.integers(0, 9)) < 3:
                    value = draw(odd_values) if draw(st.integers(0, 19)) == 0 else draw(span_values)
                    attributes += f' {name}="{value}"'
            inner = text if draw(st.integers(0, 9)) else f"{text}<br/>more"
            cells.append(f"<{tag}{attributes}>{inner}</{tag}>")
            texts.append(text)
        grid.append(texts)
        rows_html.append("<tr>" + "".join(cells) + "</tr>")
    if draw(st.booleans()) and len(rows_html) > 1:
        heads = draw(st.integers(1, len(rows_html) - 1))
        if draw(st.booleans()):  # identical header rows: olmOCR's rows.index finds the first
            rows_html[1] = rows_html[0]
            grid[1] = grid[0]
        table = "<table><thead>" + "".join(rows_html[:heads]) + "</thead><tbody>" + "".join(rows_html[heads:])
        table += "</tbody></table>"
    else:
        table = "<table>" + "".join(rows_html) + "</table>"
    if draw(st.integers(0, 5)) == 0:
        table = table.replace("</td>", "<table><tr><td>inner</td><td>b</td></tr></table></td>", 1)
    if draw(st.integers(0, 4)) == 0:
        table += "\n\n| a | b |\n|---|---|\n| 12 | Total |"
    return table, grid


@st.composite
def table_facts(draw: st.DrawFn, grid: list[list[str]]) -> dict:
    texts = [t for row in grid for t in row] + ["inner", "zzz", "Total", "a"]
    choice = st.sampled_from(texts)
    fact: dict = {"id": "f", "type": "table", "cell": draw(choice)}
    for key in ("up", "down", "left", "right", "top_heading", "left_heading"):
        if draw(st.integers(0, 3)) == 0:
            fact[key] = draw(choice)
    if draw(st.integers(0, 3)) == 0:
        fact["max_diffs"] = draw(st.integers(1, 3))
    if draw(st.integers(0, 5)) == 0:
        fact["ignore_markdown_tables"] = True
    return fact


@pytest.mark.slow
@PROPERTY
@given(st.data())
def test_table_facts_on_synthetic_html_tables_agree(data):
    table, grid = data.draw(html_tables())
    for _ in range(4):
        fact = data.draw(table_facts(grid))
        assert ours(fact, table) == oracle(fact, table), (fact, table)


@pytest.mark.slow
@pytest.mark.parametrize(
    "table",
    [
        # a colspan advances the grid column but adds one cell to its row; the spanning header heads the data
        '<table><tr><th colspan="2">Both</th><th>C</th></tr><tr><td>1</td><td>2</td><td>3</td></tr></table>',
        # rowspan copies the text into the rows below; a td under a header column with rowspan heads rows
        "<table><tr><th>Year</th><th>Q</th></tr><tr><th rowspan=3>2024</th><td>1</td></tr>"
        "<tr><td>2</td></tr><tr><td>3</td></tr></table>",
        '<table><tr><th>H</th><th>I</th></tr><tr><td rowspan="2">x</td><td>1</td></tr><tr><td>2</td></tr></table>',
        # negative colspans: olmOCR indexes its numpy row from the end (or raises)
        '<table><tr><td colspan="-2">a</td><th>b</th><th>c</th></tr><tr><td>1</td><td>2</td><td>3</td></tr></table>',
        '<table><tr><td colspan="-9">a</td><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>',
        # a non-numeric rowspan: olmOCR raises, even though the Markdown table would do
        '| a | b |\n|---|---|\n| 1 | 2 |\n\n<table><tr><td rowspan="two">1</td></tr></table>',
        # identical header rows, and a body row equal to a header row
        "<table><thead><tr><th>a</th></tr><tr><th>a</th></tr></thead><tr><th>a</th></tr><tr><td>1</td></tr></table>",
        # trailing NULs are dropped from the cells (numpy) but not from the headings
        "<table><tr><th>H\x00</th></tr><tr><td>1\x00</td></tr></table>",
    ],
)
def test_table_quirks_agree(table):
    texts = re.findall(r">([^<>]*)<", table) + ["1", "2", "3", "a", "H", "Both", "2024", "x", "zzz"]
    rng = random.Random(table)
    for n in range(150):
        fact: dict = {"id": f"q{n}", "type": "table", "cell": rng.choice(texts)}
        for key in ("up", "down", "left", "right", "top_heading", "left_heading"):
            if rng.random() < 0.3:
                fact[key] = rng.choice(texts)
        if rng.random() < 0.2:
            fact["max_diffs"] = 1
        assert ours(fact, table) == oracle(fact, table), fact


# --- Random texts: present, absent, order, baseline against olmOCR

WORDS = [
    "the",
    "The",
    "THE",
    "table",
    "Total",
    "12",
    "1,136",
    "a",
    "İstanbul",
    "straße",
    "µm",
    "don’t",
    "“quoted”",
    "—",
    "**bold**",
    "_it_",
    "<br>",
    "中文",
    "\U0001f600",
    "|",
    "![fig](a.png)",
    "e\u0301",
    "＿x＿",
]
SEPARATORS = [" ", " ", " ", "  ", "\n", "\n\n", "\t", "\u00a0"]


@st.composite
def outputs(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.sampled_from(WORDS), max_size=40))
    separators = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(words), max_size=len(words)))
    return "".join(w + s for w, s in zip(words, separators, strict=True))


@st.composite
def nearby(draw: st.DrawFn, text: str) -> str:
    """A piece of ``text`` with a few characters changed, or some words."""
    if text and draw(st.booleans()):
        start = draw(st.integers(0, len(text) - 1))
        piece = list(text[start : start + draw(st.integers(1, 30))])
        for _ in range(draw(st.integers(0, 3))):
            if piece:
                piece[draw(st.integers(0, len(piece) - 1))] = draw(st.sampled_from(["x", "", "T", " "]))
        return "".join(piece)
    return " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4)))


def agree_or_both_refuse(data: dict, text: str) -> None:
    try:
        olmocr_test(data)
    except (ValidationError, TypeError, AttributeError) as refused:
        with pytest.raises(FactError):
            parse_fact(data)
        return refused
    assert ours(data, text) == oracle(data, text), data


@pytest.mark.slow
@PROPERTY
@given(st.data())
def test_presence_facts_on_random_outputs_agree(data):
    text = data.draw(outputs())
    fact = {"id": "p", "type": data.draw(st.sampled_from(["present", "absent"])), "text": data.draw(nearby(text))}
    if data.draw(st.booleans()):
        fact["case_sensitive"] = False
    for key in ("first_n", "last_n"):
        if data.draw(st.integers(0, 3)) == 0:
            fact[key] = data.draw(st.integers(0, 80))
    if data.draw(st.booleans()):
        fact["max_diffs"] = data.draw(st.integers(0, 6))
    agree_or_both_refuse(fact, text)


@pytest.mark.slow
@PROPERTY
@given(st.data())
def test_order_facts_on_random_outputs_agree(data):
    text = data.draw(outputs())
    fact = {"id": "o", "type": "order", "before": data.draw(nearby(text)), "after": data.draw(nearby(text))}
    if data.draw(st.booleans()):
        fact["max_diffs"] = data.draw(st.integers(0, 8))
    agree_or_both_refuse(fact, text)


@pytest.mark.slow
@PROPERTY
@given(st.data())
def test_baseline_facts_on_random_outputs_agree(data):
    text = data.draw(outputs())
    if data.draw(st.booleans()):
        text += data.draw(st.sampled_from(["ab", "x ", "\n", "1.", "foo bar "])) * data.draw(st.integers(0, 40))
    fact: dict = {"id": "b", "type": "baseline", "max_repeats": data.draw(st.integers(0, 35))}
    if data.draw(st.booleans()):
        fact["max_length"] = data.draw(st.integers(0, 60))
        fact["max_length_skips_image_alt_tags"] = data.draw(st.booleans())
    fact["check_disallowed_characters"] = data.draw(st.booleans())
    agree_or_both_refuse(fact, text)


@PROPERTY
@given(st.lists(st.sampled_from(WORDS + SEPARATORS + ["*", "__", "<b>", "</i>", "<br/>", "\x1c"]), max_size=30))
def test_normalize_text_is_olmocrs(pieces):
    text = "".join(pieces)
    assert normalize_text(text) == olmocr_normalize_text(text)


@PROPERTY
@given(st.text(alphabet="ab \n\t", max_size=60), st.integers(1, 6))
def test_ngram_repeats_are_repeat_detectors(text, size):
    detector = RepeatDetector(max_ngram_size=size)
    detector.add_letters(text)
    assert ngram_repeats(text, size) == detector.ngram_repeats()


@PROPERTY
@given(st.text(alphabet="![]()\na", max_size=40))
def test_image_tags_are_removed_as_the_regular_expression_removes_them(text):
    assert baseline_facts._without_images(text) == re.sub(r"!\[.*?\]\(.*?\)", "", text)


@PROPERTY
@given(st.text(alphabet="abc", min_size=1, max_size=300), st.text(alphabet="abc", min_size=3, max_size=8))
def test_many_approximate_matches_are_grouped_as_fuzzysearch_groups_them(text, pattern):
    """The sweep that replaces fuzzysearch's consolidation for many matches finds the same first and last
    best matches (forced here for every search)."""
    distance = len(pattern) // 2
    expected = find_near_matches(pattern, text, max_l_dist=distance)
    original = presence_facts.ORDER_LIBRARY_CONSOLIDATION
    presence_facts.ORDER_LIBRARY_CONSOLIDATION = 0
    try:
        spans = presence_facts._approximate_spans(pattern, text, distance)
    finally:
        presence_facts.ORDER_LIBRARY_CONSOLIDATION = original
    if not expected:
        assert spans is None
    else:
        assert spans is not None
        assert (spans.first.best(), spans.last.best()) == (expected[0], expected[-1])


# --- 3. Malformed facts

MALFORMED = [
    # (fact, what the message says, olmOCR-Bench refuses it too)
    (["present", "a"], "a fact must be a mapping", True),
    ({"id": "x", "text": "a"}, "type: missing", True),
    ({"id": "x", "type": "presence", "text": "a"}, "type: unknown fact type 'presence'", True),
    ({"type": "present", "text": "a"}, "present: missing 'id'", True),
    ({"id": "", "type": "present", "text": "a"}, "present: 'id' must be a non-empty string", True),
    ({"id": "x", "type": "present", "text": "a", "txt": "b"}, "present: unknown key 'txt'", True),
    (
        {"id": "x", "type": "present", "text": "a", "cell": "b"},
        "present: 'cell' does not apply to a present fact",
        True,
    ),
    ({"id": "x", "type": "present"}, "present: missing 'text'", True),
    ({"id": "x", "type": "absent", "text": "  \n"}, "absent: 'text' is empty", True),
    ({"id": "x", "type": "present", "text": "<br>"}, "present: 'text' is empty", True),
    ({"id": "x", "type": "present", "text": 5}, "present: 'text' must be a string, not int", True),
    ({"id": "x", "type": "present", "text": "a", "max_diffs": -1}, "present: 'max_diffs' must be a whole number", True),
    (
        {"id": "x", "type": "present", "text": "a", "max_diffs": 1.5},
        "present: 'max_diffs' must be a whole number",
        True,
    ),
    (
        {"id": "x", "type": "present", "text": "a", "max_diffs": True},
        "present: 'max_diffs' must be a whole number",
        False,
    ),
    (
        {"id": "x", "type": "present", "text": "a", "case_sensitive": "no"},
        "'case_sensitive' must be true or false",
        False,
    ),
    ({"id": "x", "type": "present", "text": "a", "first_n": -5}, "present: 'first_n' must be a whole number", False),
    (
        {"id": "x", "type": "order", "before": "twelve chars", "after": "a longer text after it", "max_diffs": 7},
        "order: max_diffs 7 is more than half of 'before' (12 characters)",
        True,
    ),
    (
        {"id": "x", "type": "order", "before": "a longer text before", "after": "**short**", "max_diffs": 3},
        "order: max_diffs 3 is more than half of 'after' (5 characters)",
        True,
    ),
    ({"id": "x", "type": "order", "before": "a"}, "order: missing 'after'", True),
    ({"id": "x", "type": "order", "before": "a", "after": " "}, "order: 'after' is empty", True),
    ({"id": "x", "type": "table", "up": "a"}, "table: missing 'cell'", True),
    ({"id": "x", "type": "table", "cell": "a", "up": 3}, "table: 'up' must be a string, not int", True),
    ({"id": "x", "type": "table", "cell": "a", "text": "b"}, "table: 'text' does not apply to a table fact", True),
    ({"id": "x", "type": "baseline", "max_repeats": -1}, "baseline: 'max_repeats' must be a whole number", False),
    ({"id": "x", "type": "baseline", "max_repeats": None}, "baseline: 'max_repeats' must be a whole number", False),
    ({"id": "x", "type": "baseline", "max_length": "10"}, "baseline: 'max_length' must be a whole number", False),
    ({"id": "x", "type": "math", "math": "  "}, "math: 'math' is empty", True),
    ({"id": "x", "type": "math", "math": "x", "text": "y"}, "math: 'text' does not apply to a math fact", True),
    ({"id": "x", "type": "present", "text": "a", "category": 3}, "present: 'category' must be a string", True),
]


@pytest.mark.parametrize(("data", "message", "olmocr_refuses"), MALFORMED, ids=[m[1] for m in MALFORMED])
def test_a_malformed_fact_is_refused_naming_the_key(data, message, olmocr_refuses):
    with pytest.raises(FactError) as refused:
        parse_fact(data)
    assert message in str(refused.value)
    if isinstance(data, dict) and data.get("type") != "math":  # olmOCR's MathTest needs a browser to construct
        try:
            olmocr_test(data)
        except Exception:
            refused_too = True
        else:
            refused_too = False
        assert refused_too == olmocr_refuses


def test_well_formed_facts_from_case_files():
    assert parse_fact({"type": "present", "text": "a"}, default_id="check 3").id == "check 3"
    assert parse_fact({"id": "mine", "type": "present", "text": "a"}, default_id="check 3").id == "mine"
    # a null heading is no heading, as in olmOCR-Bench; bookkeeping keys are ignored
    fact = parse_fact({"id": "t", "type": "table", "cell": "1", "up": None, "pdf": "a.pdf", "page": 1, "url": None})
    assert fact == Fact(id="t", type="table", cell="1")
    assert Fact(id="b", type="baseline").max_repeats == 30
    with pytest.raises(FactError, match="'cell' does not apply to a present fact"):
        Fact(id="x", type="present", text="a", cell="b")
    assert set(FACT_TYPES) == {"present", "absent", "order", "table", "baseline", "math"}


# --- 4. A failed fact says what it found instead, and where: the verdicts stay olmOCR's (above), only the
# explanations and the spans of the output they point at are ours.


def failed_on(data: dict, text: str) -> tuple[str, list[str]]:
    verdict = check_fact(parse_fact({"id": "f", **data}), text)
    assert not verdict.passed and verdict.passed == oracle({"id": "f", **data}, text)
    return verdict.reason, [text[start:end] for start, end in verdict.spans]


MARKDOWN_TABLE = """Intro line

| Item | 2023 | 2024 |
|------|------|------|
| Cost of revenue | 1,120 | 990 |
|  Research  | 2,710 |  |
"""


def test_a_table_fact_names_the_nearest_cell_and_its_neighbours():
    reason, spans = failed_on({"type": "table", "cell": "2,700", "left": "Research"}, MARKDOWN_TABLE)
    assert reason == (
        "no cell matching '2,700' (threshold 1.00) in 1 table; the nearest is '2,710' (similarity 0.80) on line 6, "
        "row 3, column 2 of its table, with above '1,120', left 'Research', right ''"
    )
    assert spans == ["2,710"]
    # A blank cell is the space between its pipes; a match's failed relations say what is there.
    reason, spans = failed_on({"type": "table", "cell": "", "up": "x"}, MARKDOWN_TABLE)
    assert reason.startswith("cell '' found on line 6, row 3, column 3 of its table, but the cell above is '990'")
    assert spans == ["  "]
    html = (
        "<p>before</p>\n<table>\n  <tr><th>Name</th><th>Total</th></tr>\n"
        '  <tr><td rowspan="2">Ann</td><TD class="x">12.50</TD></tr>\n  <tr><td>13.75</td></tr>\n</table>\n'
    )
    reason, spans = failed_on({"type": "table", "cell": "13.57"}, html)
    assert reason == (
        "no cell matching '13.57' (threshold 1.00) in 1 table; the nearest is '13.75' (similarity 0.80) on line 5, "
        "row 3, column 2 of its table, with above '12.50', left 'Ann'"
    )
    assert spans == ["<td>13.75</td>"]
    reason, spans = failed_on({"type": "table", "cell": "12.50", "top_heading": "Amount"}, html)
    assert reason.startswith("cell '12.50' found on line 4, row 2, column 2 of its table, but the top heading is")
    assert spans == ['<TD class="x">12.50</TD>']
    # Two cells match (the rowspan repeats 'Ann' below it): the first one's place and failures are told.
    reason, spans = failed_on({"type": "table", "cell": "Ann", "right": "12.50"}, html.replace("12.50", "99"))
    assert reason == (
        "cell 'Ann' found on line 4, row 2, column 1 of its table, but the cell to the right is '99', not '12.50' "
        "(similarity 0.00 < 1.00) (and 1 other matching cell)"
    )
    assert spans == ['<td rowspan="2">Ann</td>']
    reason, spans = failed_on({"type": "table", "cell": "x"}, "no table here")
    assert (reason, spans) == ("no table found in the output", [])


def test_presence_facts_point_at_the_output_as_written():
    text = "Title\n\n**Total   due:**  \u00c9tienne  \u2014 42\n"
    # Markup, runs of whitespace, a dash and a decomposed letter: the span is the output's own characters.
    reason, spans = failed_on({"type": "present", "text": "Total due: Etienne - 42"}, text.replace("\u00c9", "E\u0301"))
    assert reason.endswith("the nearest is 'Total due: Étienne - 42' at line 3, column 3")
    assert spans == ["Total   due:**  E\u0301tienne  \u2014 42"]
    reason, spans = failed_on({"type": "absent", "text": "total due", "case_sensitive": False}, text)
    assert reason == "'total due' found at line 3, column 3: best match 1.000 >= threshold 1.000"
    assert spans == ["Total   due"]
    # first_n and last_n: the content checked is the text's ends, joined; the span is in the output
    reason, spans = failed_on({"type": "absent", "text": "42", "first_n": 3, "last_n": 4}, text)
    assert reason.startswith("'42' found in the first 3 and last 4 characters at line 3, column 30:")
    assert spans == ["42"]
    # A letter that lowers to two (İ): the positions after it still point at the right characters.
    reason, spans = failed_on({"type": "absent", "text": "zz", "case_sensitive": False}, "\u0130stanbul zz")
    assert spans == ["zz"] and "at line 1, column 10" in reason
    reason, spans = failed_on({"type": "present", "text": "qqq"}, "abc")
    assert reason == "'qqq' not found: best match 0.000 < threshold 1.000" and spans == []


def test_order_facts_name_the_nearest_text_when_one_is_missing():
    text = "Chapter one\nA long story.\nChapter two\n"
    reason, spans = failed_on({"type": "order", "before": "Chapter ane", "after": "Chapter two"}, text)
    assert reason == (
        "'before' text 'Chapter ane' not found exactly; the nearest is 'Chapter one' at line 1, column 1 "
        "(similarity 0.909)"
    )
    assert spans == ["Chapter one"]
    reason, spans = failed_on({"type": "order", "before": "Chapter two", "after": "Chapter one"}, text)
    assert reason.endswith(
        "(the first 'before' match is at line 3, column 1, the last 'after' match at line 1, column 1)"
    )
    assert spans == ["Chapter two", "Chapter one"]


def test_baseline_facts_point_at_the_repeats_and_the_first_disallowed_character():
    # The repeats are counted on the output with its runs of whitespace made one space: the span covers them.
    text = "A real line.\nab ab  ab\n ab" + " ab" * 40
    reason, spans = failed_on({"type": "baseline"}, text)
    # (the line break after the first line is one of them)
    assert reason == "the output ends with 44 repeats of the 3-gram ' ab' (max_repeats 30), from line 1, column 13"
    assert spans == [text[text.index("\n") :]]
    reason, spans = failed_on({"type": "baseline"}, "Page 1\nfine text 文字 and more 字")
    assert reason == (
        "the output has 3 disallowed characters (CJK, kana or emoji): '文字', the first at line 2, column 11"
    )
    assert spans == ["文"]


@pytest.mark.slow
@PROPERTY
@given(st.lists(st.sampled_from(WORDS + SEPARATORS + ["*", "__", "<b>", "</i>", "<br/>", "\x1c", "İ"]), max_size=30))
def test_each_normalised_character_comes_from_the_output_characters_it_is_mapped_to(pieces):
    text = "".join(pieces)
    for case_sensitive in (True, False):
        located = fact_page._Page(text).located(case_sensitive)
        assert located is not None
        expected = normalize_text(text) if case_sensitive else normalize_text(text).lower()
        assert located.text == expected
        assert len(located.starts) == len(located.ends) == len(located.text)
        previous = 0
        for k, character in enumerate(located.text):
            start, end = located.starts[k], located.ends[k]
            assert previous <= start < end <= len(text)
            previous = start
            source = normalize_text(text[start:end])
            assert character in (source if case_sensitive else source.lower()), (k, character, text[start:end])


# --- 5. Huge outputs finish in bounded time and memory

HUGE = textwrap.dedent(
    """
    import random, time
    from pytest_ocr.metrics.facts import check_facts, parse_fact

    FACTS = [
        {"type": "present", "text": "item 12345"},
        {"type": "present", "text": "A sentence of the page body that the output does not have, long enough."},
        {"type": "present", "text": "long needle " * 90},
        {"type": "absent", "text": "item 99999999", "case_sensitive": False, "last_n": 1000},
        {"type": "order", "before": "item 10 |", "after": "item 100000"},
        {"type": "order", "before": "item 10 | and more", "after": "item 100000", "max_diffs": 2},
        {"type": "order", "before": "item 1", "after": "item 2", "max_diffs": 3},
        {"type": "order", "before": "item 1 and", "after": "item 2 and", "max_diffs": 5},
        {"type": "table", "cell": "item 77777", "top_heading": "Name", "up": "item 77776"},
        {"type": "table", "cell": "item 77777", "left_heading": "nothing like it"},
        {"type": "table", "cell": "12", "top_heading": "zzz", "max_diffs": 1},
        {"type": "table", "cell": "", "up": "zzz"},
        {"type": "baseline"},
        {"type": "baseline", "max_length": 10, "max_length_skips_image_alt_tags": True},
    ]
    FACTS = [parse_fact(d, default_id=f"check {i}") for i, d in enumerate(FACTS)]

    def markdown_table():
        rng = random.Random(3)
        rows, size = [], 0
        while size < 5_000_000:
            row = "| " + " | ".join(str(rng.randrange(100000)) for _ in range(4)) + f" | item {len(rows)} |"
            rows.append(row)
            size += len(row) + 1
        return "| A | B | C | D | Name |\\n|---|---|---|---|---|\\n" + "\\n".join(rows)

    OUTPUTS = {
        "markdown table": markdown_table(),
        "html table": "<table>" + "".join(f"<tr><td>{i}</td><td>x</td></tr>" for i in range(200_000)) + "</table>",
        "nested tables": "<table><tr><td>" * 3000 + "x" + "</td></tr></table>" * 3000,
        "span bomb": "<table><tr><th rowspan=99999999 colspan=99999999>a</th></tr><tr><td>b</td></tr></table>",
        "backward spans": "<table><tr><td rowspan=2 colspan=500>a</td></tr><tr>"
        + '<td colspan="-500">x</td>' * 20_000
        + "</tr></table>",
        "header rows": "<table><thead>"
        + "<tr><th>Name</th></tr>" * 10_000
        + "</thead><tr><td>item 77777</td></tr></table>",
        "image tags": "![" * 2_500_000,
        "one letter": "a" * 5_000_000,
        "two letters": "x " * 2_500_000,
    }

    def test_huge_outputs():
        seconds = {}
        for name, text in OUTPUTS.items():
            start = time.monotonic()
            verdicts = check_facts(FACTS, text)
            seconds[name] = time.monotonic() - start
            print(name, f"{seconds[name]:.1f} s", [v.passed for v in verdicts])
            assert len(verdicts) == len(FACTS)
        table = check_facts(FACTS, OUTPUTS["markdown table"])
        assert [v.passed for v in table] == [
            True, False, False, True, True, False, True, False, True, False, False, False, True, False
        ], table
        assert table[2].reason.startswith("not checked: a fuzzy search for a 1080-character text")
        assert "ORDER_SLOW_PATH_MAX_WORK" in table[7].reason
        assert "HTML_MAX_CHARS" in check_facts(FACTS, OUTPUTS["html table"])[8].reason
        assert "HTML_MAX_WORK" in check_facts(FACTS, OUTPUTS["nested tables"])[8].reason
        assert "HTML_MAX_WORK" in check_facts(FACTS, OUTPUTS["span bomb"])[8].reason
        assert "HTML_MAX_WORK" in check_facts(FACTS, OUTPUTS["backward spans"])[8].reason
        # 10,000 equal <thead> rows: found (olmOCR's rows.index compares each with every row before it)
        header_rows = check_facts(FACTS, OUTPUTS["header rows"])[8].reason
        assert header_rows.startswith(
            "cell 'item 77777' found on line 1, row 10001, column 1 of its table, but the cell above is 'Name', "
            "not 'item 77776'"
        )
        assert max(seconds.values()) < 60, seconds
    """
)


@pytest.mark.slow
def test_huge_outputs_are_checked_in_bounded_time_and_memory(tmp_path):
    (tmp_path / "test_huge.py").write_text(HUGE, encoding="utf-8")
    result = run_bounded(tmp_path, "-q", "-s", "test_huge.py", memory_mb=2048, timeout=400)
    assert result.returncode == 0, result.output[-3000:]
    assert result.max_rss_mb < 1500, result.output[-3000:]
