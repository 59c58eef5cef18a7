"""OmniDocBench's Markdown extraction and cleaning (pytest_ocr/metrics/omnidocbench/extract.py and clean.py).

The oracle is OmniDocBench's own code (pichiu/OmniDocBench at the commit tests/data/omnidocbench/extract_expected.json
names): its ``md_tex_filter`` and ``utils/data_preprocess.py`` functions were run by make_extract_expected.py on the
olmOCR pipeline's Markdown, our hand-written hard pages, strings drawn at random from the pieces its regular
expressions look for, and every block those pages give; the port must give exactly the same outputs, every block,
every field.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from pytest_ocr.metrics.omnidocbench import INSTALL_HINT, MissingExtra, clean
from pytest_ocr.metrics.omnidocbench.clean import normalized_table, textblock2unicode
from pytest_ocr.metrics.omnidocbench.extract import md_tex_filter

DATA = Path(__file__).parent / "data"
EXPECTED = json.loads((DATA / "omnidocbench" / "extract_expected.json").read_text(encoding="utf-8"))
PAGES = sorted(
    [
        *(DATA / "olmocr-bench-sample" / "olmocr_pipeline").rglob("*.md"),
        *(DATA / "omnidocbench" / "markdown").glob("*.md"),
    ]
)


def as_json(value: object) -> object:
    """A result as the JSON holds it (tuples as lists), to compare with the recorded one."""
    return json.loads(json.dumps(value))


def test_the_expected_values_come_from_the_pinned_commit_on_every_page_of_the_corpus():
    assert EXPECTED["reference"]["commit"] == "7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d"
    assert sorted(EXPECTED["pages"]) == [page.relative_to(DATA).as_posix() for page in PAGES]
    assert len(PAGES) == 39


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_a_page_gives_the_blocks_omnidocbench_gives(page):
    # read as OmniDocBench's read_md_file reads it: text mode, so \r\n arrives as \n
    with open(page, encoding="utf-8") as f:
        blocks = md_tex_filter(f.read())
    assert isinstance(blocks, defaultdict)
    assert blocks == EXPECTED["pages"][page.relative_to(DATA).as_posix()]


def test_strings_give_the_blocks_omnidocbench_gives():
    wrong = [case["input"] for case in EXPECTED["strings"] if md_tex_filter(case["input"]) != case["output"]]
    assert len(EXPECTED["strings"]) == 154
    assert wrong == []


CLEAN = EXPECTED["clean"]


@pytest.mark.parametrize("case", CLEAN, ids=lambda case: f"{case['function']}-{case['inputs']}")
def test_a_cleaning_function_gives_omnidocbenchs_outputs(case):
    function = getattr(clean, case["function"])
    inputs = EXPECTED["corpus"][case["inputs"]]
    outputs = [as_json(function(text, *case["args"])) for text in inputs]
    wrong = [(text, got) for text, got, want in zip(inputs, outputs, case["outputs"], strict=True) if got != want]
    assert wrong == []


def test_the_quirks_users_are_told_about_are_the_originals():
    page = "Intro $x^2$ here.\n\n$$E = mc^2$$\n\nEnd"
    blocks = md_tex_filter(page)
    # an inline formula is a formula block and stays in its paragraph's text
    assert [block["content"] for block in blocks["equation_isolated"]] == ["\\[x^2\\]", "\\[E = mc^2\\]"]
    assert blocks["text_all"][0]["content"] == "Intro $x^2$ here."
    # a paragraph's position leaves the separators out: "End" starts at 33 in the page, 29 here
    assert page.index("End") == 33
    assert blocks["text_all"][1]["position"] == [29, 32]
    # the closing fence goes before code blocks are looked for: a fenced block is text, its language line with it
    code = md_tex_filter("Intro\n\n```python\nprint(1)\n```\n")
    assert code["text_all"][1] == {
        "category_type": "text_all",
        "position": [5, 24],
        "content": "```python\nprint(1)",
        "fine_category_type": "text_block",
    }


def test_a_markdown_table_loses_its_cells_that_hold_a_colon_or_three_dashes_as_the_original_does():
    # its Markdown conversion drops every line of the converted table that looks like a separator row
    page = "| time | event |\n|---|---|\n| 12:30 | lunch |\n| 14:00 | talk --- late |\n| 15 | tea |\n"
    (table,) = md_tex_filter(page)["html_table"]
    cells = [line.strip() for line in table["content"].split("\n") if "<td" in line]
    assert cells == [f'<td colspan="1" rowspan="1">{text}</td>' for text in ("time", "event", "lunch", "15", "tea")]


def test_html_is_read_as_beautifulsoup_4_11_1_reads_it():
    # a <br/> after a <br> stays open and takes the rest of its cell in (fixed in beautifulsoup4 4.13)
    assert normalized_table("<table><tr><td>a<br>b<br/>c</td></tr></table>") == (
        '<html><body><table border="1" ><tr><td>a<br/>b<br>c</br></td></tr></table></body></html>'
    )


def test_a_missing_pylatexenc_names_the_extra_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pylatexenc.latex2text", None)  # as if not installed: its import fails
    with pytest.raises(MissingExtra) as raised:
        textblock2unicode("a $x^2$ b")
    assert isinstance(raised.value, ImportError)
    assert str(raised.value).startswith("OmniDocBench's scoring needs pylatexenc (")
    assert str(raised.value).endswith(f"install it with {INSTALL_HINT}")
    assert INSTALL_HINT == 'pip install "pytest-ocr[omnidocbench]"'


def test_importing_the_port_loads_none_of_its_libraries():
    code = (
        "import sys; import pytest_ocr.metrics; import pytest_ocr.metrics.omnidocbench.extract; "
        "print(sorted(m for m in ('pylatexenc', 'bs4', 'lxml', 'scipy') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_unclosed_tables_by_the_thousand_are_extracted_without_recursing():
    # the original starts again after each unclosed <table> or \begin{tabular} by recursing, and fails past
    # Python's recursion limit (5,000 "<table>" do); here the same blocks come out of a loop
    page = "<table>" * 20_000 + "\n\n" + "\\begin{tabular}" * 20_000 + "<table>a</table>\n\nend"
    blocks = md_tex_filter(page)
    assert blocks["text_all"][-1]["content"] == "end"
    assert blocks["html_table"] == [
        {"category_type": "html_table", "position": [len(page) - 21, len(page) - 5], "content": "<table>a</table>"}
    ]
    assert "latex_table" not in blocks


def test_pages_the_originals_regular_expressions_take_minutes_on_give_the_same_blocks_at_once():
    # quadratic or cubic there (a line of 10,000 "| a " took it 17 s, 5,000 "![a](" minutes, 5,000 "\title{" 3 s,
    # a formula of 20,000 "\tag{" 6 s);
    # the fixtures above hold that these scans find what its regular expressions find, on pages it can do
    pipes = "| a " * 100_000
    assert md_tex_filter(pipes)["text_all"][0]["content"] == pipes.strip()
    brackets = "\\[" * 100_000
    assert md_tex_filter(brackets)["text_all"][0]["content"] == brackets
    images = "![a](" * 100_000 + "\n![b](c) d"
    assert [block["content"] for block in md_tex_filter(images)["text_all"]] == ["![a](" * 100_000, "d"]
    for unclosed in ("\\title{", "\\text {", "\\section*{", "\\begin{table}"):
        page = unclosed * 100_000
        assert md_tex_filter(page)["text_all"][0]["content"] == page.strip()
    assert textblock2unicode("\\(a " * 100_000 + "$x^2$") == "\\(a " * 100_000 + "x^2"
    formula = "\\tag{" * 100_000 + "\\[a" * 100_000
    assert clean.normalized_formula(formula) == formula
    display = "\\[" + "\\(a" * 100_000 + "\\]"
    assert md_tex_filter(display)["equation_isolated"][0]["content"] == display
    comments = "| a |\n|---|\n" + "<!--" * 100_000 + "\n| b |\n"
    blocks = md_tex_filter(comments)  # the line between the two rows is taken into the table, and lost there
    assert [len(block["content"]) for block in blocks["html_table"]] == [88, 88]
    assert "text_all" not in blocks
