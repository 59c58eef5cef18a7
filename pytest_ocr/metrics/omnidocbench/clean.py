"""OmniDocBench's cleaning and normalising of text, formulas and tables, ported exactly.

Port of ``utils/data_preprocess.py`` of OmniDocBench (``pichiu/OmniDocBench`` at commit
7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d, v1.5's end-to-end evaluation), Apache License 2.0, Copyright its authors.
Same regular expressions in the same order, quirks included (tests/test_omnidocbench_extract.py compares every
function with the original's outputs), but for the inline-formula one, which takes quadratic time on a long line of
unclosed ``\\(``: a linear scan finds its matches (``_inline_matches``). What else differs is where the original
touched the world:

- HTML is read by BeautifulSoup's html.parser as the beautifulsoup4 4.11.1 OmniDocBench pins reads it (see
  ``_html_parser_411``), whatever newer version is installed.

Left out, as the end-to-end evaluation never calls them: ``normalized_latex_table`` (LaTeX tables through
``latexmlc``: the end-to-end evaluation always normalises tables as HTML, see page.py), ``find_special_unicode``
(a diagnostic) and
``inline_filter_unicode``, which runs pylatexenc on the whole text and never returns when the text ends in a
backslash.
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata
from typing import Any

from . import Unavailable, require


def _latex_to_text(text: str) -> str:
    # the original builds a LatexNodes2Text at each call, with its defaults
    latex2text = require("pylatexenc.latex2text")
    return str(latex2text.LatexNodes2Text().latex_to_text(text))


# port of utils/data_preprocess.py: remove_markdown_fences
def remove_markdown_fences(content: str) -> str:
    content = re.sub(r"^```markdown\n?", "", content, flags=re.MULTILINE)
    content = re.sub(r"^```html\n?", "", content, flags=re.MULTILINE)
    content = re.sub(r"^```latex\n?", "", content, flags=re.MULTILINE)
    content = re.sub(r"```\n?$", "", content, flags=re.MULTILINE)
    return content


# port of utils/data_preprocess.py: replace_repeated_chars
def replace_repeated_chars(input_str: str) -> str:
    input_str = re.sub(r"_{4,}", "____", input_str)
    input_str = re.sub(r" {4,}", "    ", input_str)
    return input_str


# port of utils/data_preprocess.py: fullwidth_to_halfwidth
def fullwidth_to_halfwidth(s: str) -> str:
    result = []
    for char in s:
        code = ord(char)
        if code == 0x3000:
            code = 0x0020
        elif 0xFF01 <= code <= 0xFF5E:
            code -= 0xFEE0
        result.append(chr(code))
    return "".join(result)


class FirstAfter:
    """``text.find(literal, start)`` for starts that never decrease, in linear time over all of them: the first
    occurrence found from an earlier start is still the first while it lies at or after the new one, and none found
    then means none now."""

    def __init__(self, text: str, literal: str) -> None:
        self.text, self.literal, self.found = text, literal, -2

    def __call__(self, start: int) -> int:
        if self.found == -2 or (self.found != -1 and self.found < start):
            self.found = self.text.find(self.literal, start)
        return self.found


def _inline_matches(text: str) -> list[tuple[int, int, str]]:
    r"""What the original's ``inline_reg``, ``re.compile(r'\$(.*?)\$|\\\((.*?)\\\)')``, finds with ``finditer``, as
    (start, end, the group that matched), in linear time where the regular expression takes quadratic time on a long
    line of unclosed ``\(``: from a "$" to the next "$", from a "\(" to the next "\)", on the same line."""
    dollar, dollar_close, opening, closing, newline = (
        FirstAfter(text, literal) for literal in ("$", "$", "\\(", "\\)", "\n")
    )
    matches: list[tuple[int, int, str]] = []
    pos = 0
    while True:
        found = [start for start in (dollar(pos), opening(pos)) if start != -1]
        if not found:
            return matches
        start = min(found)
        line_end = newline(start)
        line_end = len(text) if line_end == -1 else line_end
        if text.startswith("$", start):
            end, width = dollar_close(start + 1), 1
        else:
            end, width = closing(start + 2), 2
        if end == -1 or end >= line_end:
            pos = start + 1
            continue
        matches.append((start, end + width, text[start + width : end]))
        pos = end + width


def _spliced(text: str, replacements: list[tuple[int, int, str]]) -> str:
    """``text`` with each (start, end) span, in order and not overlapping, replaced, in one pass (the original splices
    them in one at a time from the last, each time copying the text)."""
    pieces = []
    pos = 0
    for start, end, replacement in replacements:
        pieces += [text[pos:start], replacement]
        pos = end
    return "".join(pieces) + text[pos:]


# port of utils/data_preprocess.py: textblock2unicode
def textblock2unicode(text: str) -> str:
    removal_positions = []
    for start, end, content in _inline_matches(text):
        clean_content = re.sub(r"\\([\\_&%^])", "", content)
        try:
            if any(char in clean_content for char in r"\^_"):
                if clean_content.endswith("\\"):
                    clean_content += " "
                removal_positions.append((start, end, _latex_to_text(clean_content).strip()))
        except (Unavailable, MemoryError):  # not the formula's fault: never scored as if it were
            raise
        except Exception:  # as the original's bare except: a formula pylatexenc cannot read stays as written
            continue
    return _spliced(text, removal_positions)


_FORMULA_FILTER_LIST = [
    "\\mathbf", "\\mathrm", "\\mathnormal", "\\mathit", "\\mathbb", "\\mathcal", "\\mathscr", "\\mathfrak",
    "\\mathsf", "\\mathtt", "\\textbf", "\\text", "\\boldmath", "\\boldsymbol", "\\operatorname", "\\bm",
    "\\symbfit", "\\mathbfcal", "\\symbf", "\\scriptscriptstyle", "\\notag",
    "\\setlength", "\\coloneqq", "\\space", "\\thickspace", "\\thinspace", "\\medspace", "\\nobreakspace",
    "\\negmedspace", "\\quad", "\\qquad", "\\enspace", "\\substackw", " ", "$$", "\\left", "\\right",
    "\\displaystyle", "\\text",
]  # fmt: skip


def _first_bracketed(text: str) -> str | None:
    r"""The group of ``re.search(r'\\\[(.+?)(?<!\\)\\\]', text)``, in linear time where the regular expression takes
    quadratic time on many ``\[`` never closed: from the first "\[" that has one, on its line, the text up to the
    first "\]" at least a character on whose backslash is not itself escaped."""
    opening, closing, newline = (FirstAfter(text, literal) for literal in ("\\[", "\\]", "\n"))
    pos = 0
    while (start := opening(pos)) != -1:
        end = closing(start + 3)
        while end != -1 and text[end - 1] == "\\":
            end = closing(end + 1)
        if end == -1:
            return None
        if not -1 < newline(start + 2) < end:
            return text[start + 2 : end]
        pos = start + 1
    return None


def _without_on_line(text: str, opening: str) -> str:
    r"""``re.sub(re.escape(opening) + r'.*?\}', '', text)`` in linear time where the regular expression takes
    quadratic time on many openings never closed: each opening, up to the first "}" after it on its line, removed."""
    closing, newline = FirstAfter(text, "}"), FirstAfter(text, "\n")
    pieces = []
    pos = search = 0
    while (start := text.find(opening, search)) != -1:
        end = closing(start + len(opening))
        if end == -1:
            break
        if -1 < newline(start) < end:
            search = start + 1
            continue
        pieces.append(text[pos:start])
        pos = search = end + 1
    return "".join(pieces) + text[pos:]


# port of utils/data_preprocess.py: normalized_formula
def normalized_formula(text: str) -> str:
    text = text.strip().strip("$").strip("\n")
    bracketed = _first_bracketed(text)  # re.compile(r"\\\[(.+?)(?<!\\)\\\]").search(text).group(1)
    if bracketed is not None:
        text = bracketed.strip()
    for opening in ("\\tag{", "\\hspace{", "\\begin{", "\\end{", "\\arraycolsep"):
        text = _without_on_line(text, opening)  # re.compile(re.escape(opening) + r".*?\}").sub("", text)
    text = text.strip(".")
    for filter_text in _FORMULA_FILTER_LIST:
        text = text.replace(filter_text, "")
    return text.lower()


@functools.cache
def _html_parser_411() -> Any:
    """BeautifulSoup's "html.parser" tree builder as it is in beautifulsoup4 4.11.1, the version OmniDocBench pins.

    From 4.13 a ``<br/>`` after a ``<br>`` is an empty element; in 4.11.1 it crosses off the earlier ``<br>``'s
    pending end and stays open, taking the rest of its cell in (``<td>a<br>b<br/>c</td>`` reads as
    ``<td>a<br/>b<br>c</br></td>``), and so for every void element. That one line is put back here (through
    ``feed``'s ``_parser_class``, which 4.13 added)."""
    from bs4.builder._htmlparser import BeautifulSoupHTMLParser, HTMLParserTreeBuilder

    class Parser(BeautifulSoupHTMLParser):
        def handle_startendtag(self, tag: str, attrs: Any) -> None:
            self.handle_starttag(tag, attrs, handle_empty_element=False)
            self.handle_endtag(tag)  # 4.11.1's: check_already_closed left True

    class Builder(HTMLParserTreeBuilder):
        def feed(self, markup: Any, _parser_class: Any = Parser) -> None:
            super().feed(markup, _parser_class=Parser)

    return Builder


# port of utils/data_preprocess.py: normalized_html_table (its inner process_table_html, twice nested there)
def _process_table_html(html_content: str) -> str:
    bs4 = require("bs4")
    soup = bs4.BeautifulSoup(html_content, builder=_html_parser_411()())
    for th in soup.find_all("th"):
        th.name = "td"
    for thead in soup.find_all("thead"):
        thead.unwrap()
    for math_tag in soup.find_all("math"):
        alttext = math_tag.get("alttext", "")
        alttext = f"${alttext}$"
        if alttext:  # always true: the original wraps before it tests
            math_tag.replace_with(alttext)
    for span in soup.find_all("span"):
        span.unwrap()
    return str(soup)


# port of utils/data_preprocess.py: normalized_html_table's process_table_html (the outer one)
def _table_html(md_i: str) -> tuple[str, str]:
    table_res = ""
    table_res_no_space = ""
    if "<table" in md_i.replace(" ", "").replace("'", '"'):
        md_i = _process_table_html(md_i)
        table_res = html.unescape(md_i).replace("\n", "")
        table_res = unicodedata.normalize("NFKC", table_res).strip()
        tables = re.findall(r"<table\b[^>]*>(.*)</table>", table_res, re.DOTALL | re.IGNORECASE)
        table_res = "".join(tables)
        table_res = re.sub('( style=".*?")', "", table_res)
        table_res = re.sub('( height=".*?")', "", table_res)
        table_res = re.sub('( width=".*?")', "", table_res)
        table_res = re.sub('( align=".*?")', "", table_res)
        table_res = re.sub('( class=".*?")', "", table_res)
        table_res = re.sub("</?tbody>", "", table_res)
        table_res = re.sub(r"\s+", " ", table_res)
        table_res_no_space = '<html><body><table border="1" >' + table_res.replace(" ", "") + "</table></body></html>"
        table_res_no_space = re.sub('colspan="', ' colspan="', table_res_no_space)
        table_res_no_space = re.sub('rowspan="', ' rowspan="', table_res_no_space)
        table_res_no_space = re.sub('border="', ' border="', table_res_no_space)
        table_res = '<html><body><table border="1" >' + table_res + "</table></body></html>"
    return table_res, table_res_no_space


# port of utils/data_preprocess.py: normalized_html_table's clean_table
def _clean_table(input_str: str) -> str:
    input_str = input_str.replace("<sup>", "").replace("</sup>", "")
    input_str = input_str.replace("<sub>", "").replace("</sub>", "")
    input_str = input_str.replace("<span>", "").replace("</span>", "")
    input_str = input_str.replace("<div>", "").replace("</div>", "")
    input_str = input_str.replace("<p>", "").replace("</p>", "")
    input_str = input_str.replace('<spandata-span-identity="">', "")
    input_str = re.sub("<colgroup>.*?</colgroup>", "", input_str)
    return input_str


# port of utils/data_preprocess.py: normalized_html_table
def normalized_html_table(text: str) -> str:
    norm_text, _ = _table_html(text)
    return _clean_table(norm_text)


# port of utils/data_preprocess.py: normalized_table. The end-to-end evaluation only ever asks for html (see
# page.py), so its LaTeX branch (latexmlc) is not ported.
def normalized_table(text: str) -> str:
    return normalized_html_table(text)


def textblock_with_norm_formula(text: str) -> str:
    return _spliced(
        text, [(start, end, normalized_formula(content).strip()) for start, end, content in _inline_matches(text)]
    )


# port of utils/data_preprocess.py: inline_filter
def inline_filter(text: Any) -> tuple[str, list[dict[str, Any]]]:
    if not isinstance(text, str):
        text = str(text)
    inline_array: list[dict[str, Any]] = []
    original = text
    # the matches are found in the text as given, each then replaced wherever its text occurs (the original's)
    for start, end, content in _inline_matches(text):
        matched = original[start:end]
        clean_content = re.sub(r"\\([\\_&%^])", "", content)
        if any(char in clean_content for char in r"\^_"):
            inline_array.append({"category_type": "equation_inline", "position": [start, end], "content": matched})
            text = text.replace(matched, "")
        else:
            text = text.replace(matched, content)
    return text, inline_array


# port of utils/data_preprocess.py: clean_string
def clean_string(input_string: str) -> str:
    for junk in ("\\t", "\\n", "\t", "\n", "/t", "/n"):  # in this order, as the original's chain of replace
        input_string = input_string.replace(junk, "")
    return re.sub(r"[^\w\u4e00-\u9fff]", "", input_string)
