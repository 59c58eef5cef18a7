"""A page's Markdown split into OmniDocBench's blocks: text, display formulas, tables, code.

Port of ``utils/extract.py`` (``md_tex_filter`` and what it calls) and of the Markdown-table-to-HTML conversion of
``utils/table_utils.py`` of OmniDocBench (``pichiu/OmniDocBench`` at commit
7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d, v1.5's end-to-end evaluation), Apache License 2.0, Copyright its authors.
The same regular expressions in the same order give the same blocks, quirks included
(tests/test_omnidocbench_extract.py compares them with the original's). What the original does in quadratic time
(each step slicing or rewriting the whole page, or a regular expression scanning to the end of the page from each
opening it cannot close) is done here in linear time with the same result, each step named after the original's and
fuzzed against it: the scan for nested ``<table>`` and ``\\begin{tabular}`` blocks (``_nested_blocks``; the original
also recurses once per block left open, and a page with 5,000 unclosed ``<table>`` fails there with a
``RecursionError``), the regular expressions of the form "opening, anything, first closing" (images, display
formulas, Markdown table rows, ``\\begin{table}``, HTML tables, code fences, ``\\title``, ``\\text`` and ``\\section``),
the rewriting of each Markdown table row (in place, where the original replaces the first occurrence of its text,
which is the same place: no earlier text can hold it) and the blanking of extracted blocks (in one pass).

The result is the original's: a ``defaultdict(list)`` from ``category_type`` (``text_all``, ``equation_isolated``,
``html_table``, ``latex_table``) to blocks sorted by their start, each a dict with ``category_type``, ``position``
(``[start, end]``), ``content`` and, for some, ``fine_category_type`` and ``language``.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from typing import Any

from .clean import FirstAfter, remove_markdown_fences, replace_repeated_chars

Block = dict[str, Any]


def _blank(content: str, spans: list[tuple[int, int]]) -> str:
    """``content`` with each span replaced by as many spaces, as the original's slicing does one span at a time
    (replacing a span twice, or two that overlap, leaves the same spaces)."""
    if not spans:
        return content
    chars = list(content)
    for start, end in spans:
        chars[start:end] = " " * len(chars[start:end])
    return "".join(chars)


def _nested_blocks(
    text: str, begins: list[int], ends: list[int], begin_source: str, end_source: str
) -> tuple[list[str], list[tuple[int, int]]]:
    r"""Port of utils/extract.py: extract_tabular and extract_html_table (one function there for each pattern),
    given where the begin and end patterns match.

    The original scans from a position to the nearer of the next begin and end, pushes a begin, pops at an end
    (an end with nothing open is passed over), and takes the text from the outermost begin to the end that closes it;
    after either it moves on by the length of the *end* pattern's source (``len(r"\\end{tabular}")`` is 14, so a
    LaTeX block takes the character after ``\end{tabular}`` with it). When begins are left open at the end of the
    text it starts again (recursing) after the first one left open, by the length of the *begin* pattern's source.
    That is quadratic, and recurses once per open begin; this computes the same blocks in linear time.

    The tokens are the match starts in order. From a token the scan always goes on to ``succ``: the first token at or
    after its start plus the end pattern's length, so every scan follows the same ``succ`` links. ``closer[i]``, for
    a begin, is the end at which the scan, starting at token i with nothing open, has nothing open again (-1: never);
    ``head[i]`` the first begin that is closed on the scan from token i with nothing open, and ``left_open[i]`` the
    begin it ends with open (-1: none). All three are filled from the last token back."""
    step = len(end_source)
    tokens = sorted([(start, True) for start in begins] + [(start, False) for start in ends])
    starts = [start for start, _ in tokens]
    n = len(tokens)
    succ = [n] * n
    j = 0
    for i, start in enumerate(starts):
        while j < n and starts[j] < start + step:
            j += 1
        succ[i] = j
    # back_to_zero[i]: the end at which the scan from token i, with one begin open, has none open (-1: never)
    back_to_zero = [-1] * (n + 1)
    closer = [-1] * n
    head = [-1] * (n + 1)
    left_open = [-1] * (n + 1)
    for i in range(n - 1, -1, -1):
        if not tokens[i][1]:
            back_to_zero[i] = i
            head[i], left_open[i] = head[succ[i]], left_open[succ[i]]
            continue
        closer[i] = back_to_zero[succ[i]]
        if closer[i] == -1:
            left_open[i] = i
            continue
        after = succ[closer[i]]
        back_to_zero[i] = back_to_zero[after]
        head[i], left_open[i] = i, left_open[after]

    blocks: list[str] = []
    positions: list[tuple[int, int]] = []
    from_pos = 0
    while True:
        first = bisect.bisect_left(starts, from_pos)
        begin = head[first]
        while begin != -1:
            end_pos = starts[closer[begin]] + step
            blocks.append(text[starts[begin] : end_pos])
            positions.append((starts[begin], end_pos))
            begin = head[succ[closer[begin]]]
        if left_open[first] == -1:
            return blocks, positions
        from_pos = starts[left_open[first]] + len(begin_source)


# port of utils/extract.py: extract_tabular
def extract_tabular(text: str) -> tuple[list[str], list[tuple[int, int]]]:
    begins = [match.start() for match in re.finditer(r"\\begin\{tabular\}", text)]
    ends = [match.start() for match in re.finditer(r"\\end\{tabular\}", text)]
    return _nested_blocks(text, begins, ends, r"\\begin{tabular}", r"\\end{tabular}")


# port of utils/extract.py: extract_html_table
def extract_html_table(text: str) -> tuple[list[str], list[tuple[int, int]]]:
    # r"<table(?:[^>]*)>" matches where "<table" is followed, anywhere later, by a ">" (found without searching
    # from each "<table" to it, which is quadratic on a page of "<table" and no ">")
    last_gt = text.rfind(">")
    begins = [match.start() for match in re.finditer("<table", text) if match.start() + 6 <= last_gt]
    ends = [match.start() for match in re.finditer("</table>", text)]
    return _nested_blocks(text, begins, ends, r"<table(?:[^>]*)>", r"</table>")


# port of utils/extract.py: extract_tex_table
def extract_tex_table(content: str) -> tuple[list[str], list[tuple[int, int]]]:
    tables = []
    tables_positions = []
    for start, end in _delimited(content, "\\begin{table}", "\\end{table}"):  # r"\\begin{table}(.*?)\\end{table}"
        tables.append(content[start:end])
        tables_positions.append((start, end))
    content = _blank(content, tables_positions)
    tabulars, tabular_positions = extract_tabular(content)
    all_result = sorted(
        zip(tables_positions + tabular_positions, tables + tabulars, strict=True), key=lambda x: x[0][0]
    )
    return [table for _, table in all_result], [position for position, _ in all_result]


def _remove_images(text: str) -> str:
    r"""``re.sub(r'!\[.*?\]\(.*?\)', '', text)``, the original's removal of Markdown images, in linear time where the
    regular expression takes cubic time (5,000 "![a](" on a line take it minutes). A match from a "![" ends at the first
    ")" after the first "](" after it, all on its line: where the first "](" has no ")" after it on the line, no later
    one has."""
    image, link, close, newline = (FirstAfter(text, literal) for literal in ("![", "](", ")", "\n"))
    pieces = []
    pos = start = 0
    while (start := image(start)) != -1:
        line_end = newline(start)
        line_end = len(text) if line_end == -1 else line_end
        middle = link(start + 2)
        end = close(middle + 2) if middle != -1 and middle < line_end else -1
        if end == -1 or end >= line_end:
            start += 1
            continue
        pieces.append(text[pos:start])
        pos = start = end + 1
    return "".join(pieces) + text[pos:]


def _delimited(text: str, opening: str, closing: str) -> list[tuple[int, int]]:
    """The spans ``re.finditer(re.escape(opening) + "(.*?)" + re.escape(closing), text, re.DOTALL)`` finds, in linear
    time where the regular expression takes quadratic time on openings never closed: each opening to the first closing
    after it, and where an opening has none after it, no later one has."""
    spans = []
    pos = 0
    while (start := text.find(opening, pos)) != -1 and (end := text.find(closing, start + len(opening))) != -1:
        spans.append((start, end + len(closing)))
        pos = end + len(closing)
    return spans


def _gaps(spans: list[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    """The spans of ``range(length)`` between ``spans`` (in order, not overlapping)."""
    ends = [0] + [end for _, end in spans]
    starts = [start for start, _ in spans] + [length]
    return list(zip(ends, starts, strict=True))


def _code_blocks(text: str) -> list[tuple[int, int, str, str]]:
    r"""What ``re.finditer(r'```(\w+)\n(.*?)```', text, re.DOTALL)`` finds, as (start, end, group 1, group 2), in
    linear time where the regular expression takes quadratic time on fences never closed. A match is "```", a run of
    word characters (``\w``: alphanumeric or "_"), a newline, and text up to the first "```" after it."""
    blocks = []
    fence, closing = FirstAfter(text, "```"), FirstAfter(text, "```")
    pos = 0
    while (start := fence(pos)) != -1:
        word_end = start + 3
        while word_end < len(text) and (text[word_end].isalnum() or text[word_end] == "_"):
            word_end += 1
        if word_end > start + 3 and text.startswith("\n", word_end):
            end = closing(word_end + 1)
            if end != -1:
                blocks.append((start, end + 3, text[start + 3 : word_end], text[word_end + 1 : end]))
                pos = end + 3
                continue
        pos = start + 1
    return blocks


def _unwrap(text: str, command: str, *, star: bool, spaced: bool, dotall: bool) -> str:
    r"""A LaTeX command's argument in place of the command, as the original's ``re.sub`` does it with
    ``\command`` (``\*?`` after it with ``star``, ``\s*`` with ``spaced``) ``\{(.*?)\}``, or, with ``dotall``,
    ``\{\s*(.*?)\s*\}`` and re.DOTALL: in linear time where the regular expression takes quadratic time on
    commands never closed (5,000 "\title{" take it 3 s). The argument runs to the first "}" after the "{"; without
    ``dotall`` it must be on the same line, with it, it is stripped of whitespace (``\s`` is ``str.isspace``)."""
    brace, newline = FirstAfter(text, "}"), FirstAfter(text, "\n")
    pieces = []
    pos = search = 0
    while (start := text.find(command, search)) != -1:
        search = start + 1
        opening = start + len(command)
        if star and text.startswith("*", opening):
            opening += 1
        while spaced and opening < len(text) and text[opening].isspace():
            opening += 1
        if not text.startswith("{", opening):
            continue
        end = brace(opening + 1)
        if end == -1:
            break
        if not dotall and -1 < newline(opening + 1) < end:
            continue
        argument = text[opening + 1 : end]
        pieces += [text[pos:start], argument.strip() if dotall else argument]
        pos = search = end + 1
    return "".join(pieces) + text[pos:]


def _md_table_rows(text: str) -> list[tuple[int, int]]:
    r"""The spans the original's ``md_table_reg``, ``re.compile(r'\|\s*.*?\s*\|\n', re.DOTALL)``, finds, in linear
    time where the regular expression takes quadratic time (a line of 10,000 "| a " takes it 17 s). From a "|" it
    matches up to the first "|\n" after it (whitespace cannot step over a "|"), and where no "|\n" follows a "|", none
    follows a later one."""
    rows = []
    pos = 0
    while (start := text.find("|", pos)) != -1 and (end := text.find("|\n", start + 1)) != -1:
        rows.append((start, end + 2))
        pos = end + 2
    return rows


def _delimiter_matches(text: str, *, brackets: bool) -> list[tuple[int, int, str]]:
    r"""The matches, as (start, end, opening delimiter), the original's ``display_reg``,
    ``re.compile(r'\$\$(.*?)\$\$|\\\[(.*?)\\\]|\$(.*?)\$|\\\((.*?)\\\)', re.DOTALL)``, finds with ``finditer``, or,
    without ``brackets``, its ``dollar_pattern`` (the same without ``\[...\]``), in linear time where the regular
    expression takes quadratic time (20,000 characters of "\[" take it 1.7 s). At each "$" or "\" it tries, in its
    order, ``$$...$$``, ``\[...\]``, ``$...$`` and ``\(...\)``, each closed at the first closing delimiter after the
    opening one."""
    delimiters = [("$$", "$$"), ("\\[", "\\]"), ("$", "$"), ("\\(", "\\)")]
    if not brackets:
        del delimiters[1]
    closing = {opening: FirstAfter(text, close) for opening, close in delimiters}
    dollar, backslash = FirstAfter(text, "$"), FirstAfter(text, "\\")
    matches: list[tuple[int, int, str]] = []
    pos = 0
    while True:
        candidates = [found for found in (dollar(pos), backslash(pos)) if found != -1]
        if not candidates:
            return matches
        start = min(candidates)
        for opening, close in delimiters:
            if text.startswith(opening, start) and (found := closing[opening](start + len(opening))) != -1:
                matches.append((start, found + len(close), opening))
                pos = found + len(close)
                break
        else:
            pos = start + 1


def _dollar_sub(single_line: str, matches: list[tuple[int, int, str]], groups: tuple[str, ...]) -> str:
    r"""``re.sub(dollar_pattern, template, single_line)`` for the template ``\\[\1\\]`` (groups ``("$$",)``) or
    ``\\[\2\3\\]`` (groups ``("$", "\\(")``): each match made ``\[`` its content if it is one of those groups ``\]``."""
    pieces = []
    pos = 0
    for start, end, opening in matches:
        content = single_line[start + len(opening) : end - len(opening)] if opening in groups else ""
        pieces += [single_line[pos:start], "\\[", content, "\\]"]
        pos = end
    return "".join(pieces) + single_line[pos:]


def _take_tables(
    content: str, found: tuple[list[str], list[tuple[int, int]]], category: str, pred_all: list[Block]
) -> str:
    """Each table found made a block of ``category`` and blanked out of the page, as the original does (the block's
    end is its start plus its length, not the end the scan gave)."""
    spans = []
    for table, (start, _) in zip(*found, strict=True):
        pred_all.append({"category_type": category, "position": [start, start + len(table)], "content": table})
        spans.append((start, start + len(table)))
    return _blank(content, spans)


# port of utils/extract.py: md_tex_filter
def md_tex_filter(content: str) -> defaultdict[str, list[Block]]:
    """One page's Markdown (or LaTeX) as OmniDocBench's blocks by category."""
    content = _remove_images(content)
    content = remove_markdown_fences(content)
    content = replace_repeated_chars(content)
    content = content.replace("<html>", "").replace("</html>", "").replace("<body>", "").replace("</body>", "")

    pred_all: list[Block] = []

    content = _take_tables(content, extract_tex_table(content), "latex_table", pred_all)
    content = _take_tables(content, extract_html_table(content), "html_table", pred_all)

    spans = []
    for start, end, _ in _delimiter_matches(content, brackets=True):  # display_reg.finditer's
        matched = content[start:end]
        single_line = " ".join(matched.strip().split("\n"))
        position = [start, end]
        dollar_matches = _delimiter_matches(single_line, brackets=False)
        if not dollar_matches:  # dollar_pattern.search(single_line) is None
            spans.append((position[0], position[1]))
            pred_all.append({"category_type": "equation_isolated", "position": position, "content": single_line})
        elif dollar_matches[0][2] == "$$" and dollar_matches[0][1] - dollar_matches[0][0] > 4:  # group 1 not empty
            single_line = _dollar_sub(single_line, dollar_matches, ("$$",))
            spans.append((position[0], position[1]))
            pred_all.append({"category_type": "equation_isolated", "position": position, "content": single_line})
        else:
            # an inline formula: a block of its own, and left in the text as well (the original's quirk)
            single_line = _dollar_sub(single_line, dollar_matches, ("$", "\\("))
            pred_all.append(
                {
                    "category_type": "equation_isolated",
                    "position": position,
                    "content": single_line,
                    "fine_category_type": "equation_inline",
                }
            )
    content = _blank(content, spans)

    if len(_md_table_rows(content + "\n")) >= 2:  # md_table_reg.findall's
        # the page is rewritten: the positions of the blocks found from here on are in the rewritten page's terms
        content = convert_markdown_to_html(content)
        spans = []
        for start, end in _delimited(content, "<table", "</table>"):  # html_table_reg, r"(<table.*?</table>)"
            position = [start, end]
            spans.append((start, end))
            pred_all.append(
                {
                    "category_type": "html_table",
                    "position": position,
                    "content": content[start:end].strip(),
                    "fine_category_type": "md2html_table",
                }
            )
        content = _blank(content, spans)

    spans = []
    for start, end, language, code in _code_blocks(content):
        position = [start, end]
        spans.append((start, end))
        pred_all.append(
            {
                "category_type": "text_all",
                "position": position,
                "content": code.strip(),
                "language": language,
                "fine_category_type": "code",
            }
        )
    content = _blank(content, spans)

    content = _unwrap(content, "\\title", star=False, spaced=False, dotall=False)  # r"\\title\{(.*?)\}"
    content = _unwrap(content, "\\title", star=False, spaced=True, dotall=True)  # r"\\title\s*\{\s*(.*?)\s*\}", dotall
    content = _unwrap(content, "\\text", star=False, spaced=True, dotall=True)  # r"\\text\s*\{\s*(.*?)\s*\}", dotall
    content = _unwrap(content, "\\section", star=True, spaced=False, dotall=False)  # r"\\section\*?\{(.*?)\}"
    content = _unwrap(
        content, "\\section", star=True, spaced=False, dotall=True
    )  # r"\\section\*?\{\s*(.*?)\s*\}", dotall

    res = content.split("\n\n")
    if len(res) == 1:
        res = content.split("\n")

    content_position = 0
    for text in res:
        # the separators are not counted: each paragraph's position drifts from its place by theirs (the original's)
        position = [content_position, content_position + len(text)]
        content_position += len(text)
        text = text.strip().strip("\n")
        text = "\n".join([line.strip() for line in text.split("\n") if line.strip()])
        if not text:
            continue
        if text.startswith("<table") and text.endswith("</table>"):
            pred_all.append({"category_type": "html_table", "position": position, "content": text})
        elif text.startswith("$") and text.endswith("$"):
            if text.replace("$", "").strip():
                pred_all.append({"category_type": "equation_isolated", "position": position, "content": text.strip()})
        else:
            text = text.strip()
            if text:
                pred_all.append(
                    {
                        "category_type": "text_all",
                        "position": position,
                        "content": text,
                        "fine_category_type": "text_block",
                    }
                )

    pred_dataset: defaultdict[str, list[Block]] = defaultdict(list)
    for item in sorted(pred_all, key=lambda x: x["position"][0]):
        pred_dataset[item["category_type"]].append(item)
    return pred_dataset


# port of utils/table_utils.py: markdown_to_html (from intsig-textin/markdown_tester)
def markdown_to_html(markdown_table: str) -> str:
    rows = [row.strip() for row in markdown_table.strip().split("\n")]
    html_table = "<table>\n  <thead>\n    <tr>\n"
    for cell in [cell.strip() for cell in rows[0].split("|")[1:-1]]:
        html_table += f"      <th>{cell}</th>\n"
    html_table += "    </tr>\n  </thead>\n  <tbody>\n"
    for row in rows[2:]:
        html_table += "    <tr>\n"
        for cell in [cell.strip() for cell in row.split("|")[1:-1]]:
            html_table += f"      <td>{cell}</td>\n"
        html_table += "    </tr>\n"
    html_table += "  </tbody>\n</table>\n"
    return html_table


# port of utils/table_utils.py: find_md_table_mode
def find_md_table_mode(line: str) -> bool:
    return bool(re.search(r"-*?:", line) or re.search(r"---", line) or re.search(r":-*?", line))


# port of utils/table_utils.py: delete_table_and_body
def delete_table_and_body(input_list: list[str]) -> list[str]:
    return [line for line in input_list if not re.search(r"</?t(able|head|body)>", line)]


# port of utils/table_utils.py: merge_tables
def merge_tables(input_str: str) -> str:
    comments = _delimited(input_str, "<!--", "-->")  # re.sub(r"<!--[\s\S]*?-->", "", input_str)
    input_str = "".join(input_str[start:end] for start, end in _gaps(comments, len(input_str)))
    output_lines = []
    for start, end in _delimited(input_str, "<table>", "</table>"):  # re.findall(r"<table>[\s\S]*?</table>", ...)
        block = input_str[start:end]
        block_lines = block.split("\n")
        for i, line in enumerate(block_lines):
            if "<th>" in line:
                block_lines[i] = line.replace("<th>", "<td>").replace("</th>", "</td>")
        final_tr = delete_table_and_body(block_lines)
        if len(final_tr) > 2:
            output_lines.extend(final_tr)
    merged_output = "<table>\n{}\n</table>".format("\n".join(output_lines))
    return "\n\n" + merged_output + "\n\n"


# port of utils/table_utils.py: replace_table_with_placeholder
def replace_table_with_placeholder(input_string: str) -> str:
    output_lines = []
    in_table_block = False
    temp_block = ""
    last_line = ""
    for line in input_string.split("\n"):
        if "<table>" in line:
            in_table_block = True
            temp_block += last_line
        elif in_table_block:
            if not find_md_table_mode(last_line) and "</thead>" not in last_line:
                temp_block += "\n" + last_line
            if "</table>" in last_line:
                if "<table>" not in line:
                    in_table_block = False
                    output_lines.append(merge_tables(temp_block))
                    temp_block = ""
        else:
            output_lines.append(last_line)
        last_line = line
    if last_line:
        if in_table_block or "</table>" in last_line:
            temp_block += "\n" + last_line
            output_lines.append(merge_tables(temp_block))
        else:
            output_lines.append(last_line)
    return "\n".join(output_lines)


# port of utils/table_utils.py: convert_table
def convert_table(input_str: str) -> str:
    return input_str.replace("<table>", '<table border="1" >').replace("<td>", '<td colspan="1" rowspan="1">')


# port of utils/table_utils.py: convert_markdown_to_html (the second definition, the one in effect)
def convert_markdown_to_html(markdown_content: str) -> str:
    markdown_content = markdown_content.replace("\r", "") + "\n"
    # the original replaces the first occurrence of each row's text, which is where it was found
    pieces = []
    pos = 0
    for start, end in _md_table_rows(markdown_content):
        pieces += [markdown_content[pos:start], markdown_to_html(markdown_content[start:end])]
        pos = end
    markdown_content = "".join(pieces) + markdown_content[pos:]
    return convert_table(replace_table_with_placeholder(markdown_content))
