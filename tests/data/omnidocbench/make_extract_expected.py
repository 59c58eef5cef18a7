"""Record OmniDocBench's own extraction and cleaning outputs on our corpus: extract_expected.json.

Run with OmniDocBench's environment (its requirements.txt; pylatexenc 3.0a30, beautifulsoup4 4.11.1), from this
directory or anywhere:

    python make_extract_expected.py /path/to/OmniDocBench

where /path/to/OmniDocBench is a checkout of ``pichiu/OmniDocBench`` at commit
7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d (the script refuses another commit). Nothing is written into the checkout.
LaTeX tables are not normalised: the end-to-end evaluation always normalises tables as HTML (its LaTeX branch,
through latexmlc, is never reached; see pytest_ocr.metrics.omnidocbench.page).
tests/test_omnidocbench_extract.py asserts that pytest_ocr.metrics.omnidocbench gives these outputs;
it does not run this script, which needs OmniDocBench's code.

The corpus: every olmOCR pipeline Markdown file of tests/data/olmocr-bench-sample/olmocr_pipeline/ (Apache-2.0, see
its SOURCES.md), the hand-written pages of markdown/ (see SOURCES.md), a few strings written here, and strings drawn
at random (seeded) from the pieces OmniDocBench's regular expressions look for. The cleaning functions are run on
every block the extraction finds in those pages and on the strings below.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

COMMIT = "7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d"
HERE = Path(__file__).resolve().parent
DATA = HERE.parent
PAGES = [
    *sorted((DATA / "olmocr-bench-sample" / "olmocr_pipeline").rglob("*.md")),
    *sorted((HERE / "markdown").glob("*.md")),
]

# pieces of Markdown, HTML and LaTeX that OmniDocBench's extraction reacts to
MARKDOWN_PIECES = [
    "|", " | ", "|\n", "\n", "\n\n", "$", "$$", "\\[", "\\]", "\\(", "\\)", "<table>", "</table>", "<table border=1>",
    "<tr>", "<td>", "</td>", "\\begin{tabular}", "\\end{tabular}", "\\begin{table}", "\\end{table}", "```",
    "```python\n", "```markdown\n", "---", ":--", "| --- |", "a", "bc", "x^2", "_", "____", "     ", "# ", "\\title{",
    "}", "{", "\\section*{", "![img](x.png)", "<html>", "<body>", "Ｆ", "\\text{", "<th>", "</th>", "<thead>",
    "</thead>", "<!-- c -->", "\r", " ", "\\\\", "&", "![", "](", ")", "(", "]", "!",
]  # fmt: skip
TEXT_PIECES = [
    "$", "$$", "\\[", "\\]", "\\(", "\\)", "\\mathbf{", "\\mathrm", "}", "{", "x^2", "_", "\\alpha", "\\frac{1}{2}",
    "\\tag{3}", "\\begin{array}{cc}", "\\end{array}", "\\left(", "\\right)", "\\\\", "&", " ", "\n", "\t", "\\t", "/n",
    "Ｆ", "数", "é", "a", "1", ".", "\\text{hi}", "\\hspace{1cm}", "%", "^", "\\%", "\\_", "ﬁ", "²", "\\", "$x_1$",
    "\\tag{", "\\arraycolsep", "\\\\]", "\\end{",
]  # fmt: skip
HTML_PIECES = [
    "<table>", "</table>", '<table border=1 class="t">', "<tr>", "</tr>", "<td>", "</td>", '<th colspan="2" rowspan=3>',
    "</th>", "<thead>", "</thead>", "<tbody>", "</tbody>", "<span>", "</span>", '<span style="c">', "<sup>", "</sup>",
    "<sub>", "</sub>", '<math alttext="x^2">', "<math>", "</math>", "<br>", "<br/>", "<br />", "</br>", "<img src=a>",
    "<hr>", "<col>", "<colgroup>", "</colgroup>", "&amp;", "&lt;", "&nbsp;", "&#x41;", "<p>", "</p>", "<div>", "</div>",
    "<b>", "</b>", "<!-- c -->", "<![CDATA[x]]>", "<", ">", "<td a=1 a=2>", "<TD>", "\n", " ", "\t", "a", "Ｆ", "ﬁ",
    "'",
]  # fmt: skip


def drawn(pieces: list[str], count: int, most: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, most))) for _ in range(count)]


MARKDOWN_STRINGS = [
    "Header line\r\n\r\n| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n\r\nText after.\r\n",  # read with universal newlines,
    "| only | one | row |\n",  # a file never reaches md_tex_filter with \r\n: the strings do
    "a\n\nb\n\n\n\nc",
    "$$x$$$$y$$",
    *drawn(MARKDOWN_PIECES, 150, 60, seed=30),
]
TEXTS = [
    "Hello, World! \\n 数学 tab\\there /n/t é_x 12",
    "where $x^2 + \\alpha_i$ and $a$ and \\(\\beta^2\\) and $\\frac{1}{2}_x$ $bad^{$",
    "a $\\mathbf{X}$ b \\( y \\)",
    "ends in a backslash $x_\\\\$ and $y^\\$",
    "",
    *drawn(TEXT_PIECES, 100, 30, seed=31),
]
FORMULAS = [
    "$$ \\mathbf{x} = \\left( a \\right) \\tag{1} $$",
    "\\[ \\begin{aligned} a &= b \\\\ c \\end{aligned} \\].",
    "\\[a\\]\\[b\\]",
    "\\arraycolsep=2pt} \\hspace{3mm} x \\quad y",
    "",
    *drawn(TEXT_PIECES, 100, 30, seed=32),
]
HTML_TABLES = [
    "<table><thead><tr><th style=\"x\">A&amp;B</th></tr></thead><tbody><tr><td class='c'><span>1</span> "
    '<sup>2</sup><math alttext="x^2"><mi>x</mi></math></td></tr></tbody></table>',
    "<table><tr><td>a<br>b<br/>c</td></tr></table>",
    "no table here",
    "",
    *drawn(HTML_PIECES, 200, 30, seed=33),
]
LATEX_TABLES = [
    "\\begin{tabular}{|c|c|}\\hline a & b \\\\ \\hline 1 & \\textbf{2} \\\\ \\hline\\end{tabular}",
    "\\begin{table}[h]\\centering\\begin{tabular}{lr}\\toprule x & \\multicolumn{1}{c}{y} \\\\ \\midrule "
    "\\multirow{2}{*}{z} & 1 \\\\ & 2 \\\\ \\bottomrule\\end{tabular}\\caption{C}\\end{table}",
    "\\begin{tabular}{cc} a & \\begin{tabular}{c} b \\\\ c \\end{tabular} \\\\ $x^2$ & \\% \\end{tabular}"
    "\\begin{tabular}{c} second \\end{tabular}",
    "\\begin{tabular}{c} never closed",
]
STRINGS = [
    "```markdown\n# T\n```\ntext\n```html\n<p>\n```",
    "a_______b        c ____ d\t\t\t\t",
    "ＡＢＣ　１２３！～｟",
    "",
]


def dedup(texts: list[str]) -> list[str]:
    return list(dict.fromkeys(texts))


def run_all(odb: Path) -> dict:
    sys.path.insert(0, str(odb))
    os.chdir(odb)  # as its scripts run: imports relative to the checkout
    from utils import data_preprocess, extract

    with contextlib.redirect_stdout(io.StringIO()):  # nothing should print; if it does, not into the JSON
        pages = {}
        for path in PAGES:
            # as utils/read_files.py's read_md_file: text mode, universal newlines
            with open(path, encoding="utf-8") as f:
                pages[path.relative_to(DATA).as_posix()] = extract.md_tex_filter(f.read())
        strings = [{"input": text, "output": extract.md_tex_filter(text)} for text in MARKDOWN_STRINGS]

        blocks: dict[str, list[str]] = {}
        for result in pages.values():
            for category, items in result.items():
                blocks.setdefault(category, []).extend(item["content"] for item in items)

        corpus = {
            "texts": dedup(TEXTS + blocks.get("text_all", [])),
            "formulas": dedup(FORMULAS + blocks.get("equation_isolated", [])),
            "html_tables": dedup(HTML_TABLES + blocks.get("html_table", [])),
            "latex_tables": dedup(LATEX_TABLES + blocks.get("latex_table", [])),
            "strings": dedup(STRINGS + MARKDOWN_STRINGS[:60] + TEXTS[:60]),
        }

        def calls(function: str, inputs: str, *args: str) -> dict:
            method = getattr(data_preprocess, function)
            outputs = [method(text, *args) for text in corpus[inputs]]
            return {"function": function, "inputs": inputs, "args": list(args), "outputs": outputs}

        clean = [
            calls("clean_string", "texts"),
            calls("textblock2unicode", "texts"),
            calls("textblock_with_norm_formula", "texts"),
            calls("inline_filter", "texts"),
            calls("normalized_formula", "formulas"),
            calls("textblock2unicode", "formulas"),
            calls("normalized_table", "html_tables"),
            calls("remove_markdown_fences", "strings"),
            calls("replace_repeated_chars", "strings"),
            calls("fullwidth_to_halfwidth", "strings"),
        ]
    return {
        "reference": {
            "repository": "pichiu/OmniDocBench",
            "commit": COMMIT,
            "licence": "Apache-2.0",
            "made_by": "tests/data/omnidocbench/make_extract_expected.py",
            "python": sys.version.split()[0],
            "pylatexenc": version("pylatexenc"),
            "beautifulsoup4": version("beautifulsoup4"),
        },
        "pages": pages,
        "strings": strings,
        "corpus": corpus,
        "clean": clean,
    }


def main() -> None:
    odb = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/odb-ref").resolve()
    head = subprocess.run(["git", "-C", str(odb), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    if head.stdout.strip() != COMMIT:
        sys.exit(f"{odb} is at {head.stdout.strip()}, not OmniDocBench's pinned commit {COMMIT}")
    expected = run_all(odb)
    out = HERE / "extract_expected.json"
    out.write_text(json.dumps(expected, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    calls = sum(len(case["outputs"]) for case in expected["clean"])
    print(f"{out}: {len(expected['pages'])} pages, {len(expected['strings'])} strings, {calls} calls")


if __name__ == "__main__":
    main()
