"""CDM's LaTeX handling: what happens to a formula between the tokenizer and xelatex.

Ported from OmniDocBench v1.5 (pichiu/OmniDocBench at commit 7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d, Apache-2.0):
``metrics/cdm/modules/latex_processor.py`` (``normalize_latex``, ``token_add_color_RGB``, ``find_matching_brace``
and the token tables), the Python halves of ``metrics/cdm/modules/tokenize_latex/tokenize_latex.py``, and the
template of ``metrics/cdm/modules/latex2bbox_color.py``. Ported as written, quirks included (``l_split[idx - 1]`` at
index 0 reads the last token; an IndexError or ValueError anywhere makes the formula fail, as it does there): CDM's
values depend on every one of these string operations.
"""

from __future__ import annotations

import re

SKIP_PATTERNS = [
    r"\{",
    r"\}",
    r"[\[\]]",
    r"\\begin\{.*?\}",
    r"\\end\{.*?\}",
    r"\^",
    r"\_",
    r"\\.*rule.*",
    r"\\.*line.*",
    r"\[[\-.0-9]+[epm][xtm]\]",
]
SKIP_Tokens = [
    "\\",
    "\\\\",
    "\\index",
    "\\a",
    "&",
    "$",
    "\\multirow",
    "\\def",
    "\\raggedright",
    "\\url",
    "\\cr",
    "\\ensuremath",
    "\\left",
    "\\right",
    "\\mathchoice",
    "\\scriptstyle",
    "\\displaystyle",
    "\\qquad",
    "\\quad",
    "\\,",
    "\\!",
    "~",
    "\\boldmath",
]
PHANTOM_Tokens = ["\\fontfamily", "\\vphantom", "\\phantom", "\\rowcolor", "\\ref"]
TWO_Tail_Tokens = ["\\frac", "\\binom"]
AB_Tail_Tokens = ["\\xrightarrow", "\\xleftarrow", "\\sqrt"]
TWO_Tail_Invisb_Tokens = ["\\overset", "\\underset", "\\stackrel"]
ONE_Tail_Tokens = [
    "\\widetilde",
    "\\overline",
    "\\hat",
    "\\widehat",
    "\\tilde",
    "\\Tilde",
    "\\dot",
    "\\bar",
    "\\vec",
    "\\underline",
    "\\underbrace",
    "\\check",
    "\\breve",
    "\\Bar",
    "\\Vec",
    "\\mathring",
    "\\ddot",
]
ONE_Tail_Invisb_Tokens = [
    "\\boldsymbol",
    "\\pmb",
    "\\textbf",
    "\\mathrm",
    "\\mathbf",
    "\\mathbb",
    "\\mathcal",
    "\\textmd",
    "\\texttt",
    "\\textnormal",
    "\\text",
    "\\textit",
    "\\textup",
    "\\mathop",
    "\\mathbin",
    "\\smash",
    "\\operatorname",
    "\\textrm",
    "\\mathfrak",
    "\\emph",
    "\\textsf",
    "\\textsc",
]

# port of latex2bbox_color.py: formular_template (the only template it uses; its tabular_template is never chosen)
FORMULA_TEMPLATE = r"""
\documentclass[12pt]{article}
\usepackage[landscape]{geometry}
\usepackage{geometry}
\geometry{a<PaperSize>paper,scale=0.98}
\pagestyle{empty}
\usepackage{amsmath}
\usepackage{upgreek}
\usepackage{amssymb}
\usepackage{xcolor}
\usepackage{xeCJK}
\setCJKmainfont{Source Han Sans SC}
\setCJKsansfont{Source Han Sans SC}
\setCJKmonofont{Source Han Sans SC}
\xeCJKsetup{CJKmath=true}
\begin{document}
\makeatletter
\renewcommand*{\@textcolor}[3]{%%
  \protect\leavevmode
  \begingroup
    \color#1{#2}#3%%
  \endgroup
}
\makeatother
\begin{displaymath}
%s
\end{displaymath}
\end{document}
"""

_OPERATORS = r"\s?".join(
    "|".join(
        [
            "arccos",
            "arcsin",
            "arctan",
            "arg",
            "cos",
            "cosh",
            "cot",
            "coth",
            "csc",
            "deg",
            "det",
            "dim",
            "exp",
            "gcd",
            "hom",
            "inf",
            "injlim",
            "ker",
            "lg",
            "lim",
            "liminf",
            "limsup",
            "ln",
            "log",
            "max",
            "min",
            "Pr",
            "projlim",
            "sec",
            "sin",
            "sinh",
            "sup",
            "tan",
            "tanh",
        ]
    )
)
_OPERATORNAME = re.compile(r"\\operatorname {(" + _OPERATORS + ")}")


def formula_tokenizer_input(latex: str) -> str:
    """port of tokenize_latex.py: tokenize_latex, formula branch, what it writes for the Node tokenizer."""
    prepre = re.sub(
        r"\\begin{(split|align|alignedat|alignat|eqnarray)\*?}(.+?)\\end{\1\*?}",
        r"\\begin{aligned}\2\\end{aligned}",
        latex,
        flags=re.S,
    )
    return re.sub(r"\\begin{(smallmatrix)\*?}(.+?)\\end{\1\*?}", r"\\begin{matrix}\2\\end{matrix}", prepre, flags=re.S)


def formula_tokenizer_output(lines: list[str]) -> str:
    """port of tokenize_latex.py: tokenize_latex, formula branch, reading the tokenizer's output: the last line
    counts; no line at all is the original's NameError (``post`` unbound), raised here as ValueError."""
    if not lines:
        raise ValueError("the tokenizer printed no line")
    post = " ".join(lines[-1].strip().split())
    names = ["\\" + x.replace(" ", "") for x in re.findall(_OPERATORNAME, post)]
    return re.sub(_OPERATORNAME, lambda match: str(names.pop(0)), post).replace(r"\\ \end{array}", r"\end{array}")


def tabular_tokenizer_input(latex: str) -> str:
    """port of tokenize_latex.py: tokenize_latex, tabular branch, up to the tokenizer (its ``perl -pe
    's|hskip(.*?)(cm\\|in\\|pt\\|mm\\|em)|hspace{\\1\\2}|g'`` as the same regular expression: the text is one line)."""
    latex = latex.replace("\\\\%", "\\\\ %")
    latex = latex.replace("\\%", "<PERCENTAGE_TOKEN>")
    latex = latex.split("%")[0]
    latex = latex.replace("<PERCENTAGE_TOKEN>", "\\%")
    if "\\end{tabular}" not in latex:
        latex += "\\end{tabular}"
    latex = latex.replace("\r", " ").replace("\n", " ")
    return re.sub(r"hskip(.*?)(cm|in|pt|mm|em)", r"hspace{\1\2}", latex)


def tabular_tokenizer_output(lines: list[str]) -> str:
    if not lines:
        raise ValueError("the tokenizer printed no line")
    return " ".join(lines[-1].strip().split())


def find_matching_brace(sequence: list[str], start_index: int, brace: tuple[str, str] = ("{", "}")) -> int:
    """port of latex_processor.py: find_matching_brace"""
    left_brace, right_brace = brace
    depth = 0
    for i, char in enumerate(sequence[start_index:], start=start_index):
        if char == left_brace:
            depth += 1
        elif char == right_brace:
            depth -= 1
            if depth == 0:
                return i
    if depth > 0:
        raise ValueError("Warning! found no matching brace in sequence !")
    return -1


def _join_pattern(latex: str, pattern: str, tail: str = "") -> str:
    """The original's recurring step: every match of ``pattern`` loses its spaces (``tail`` added back)."""
    for bef in re.findall(pattern, latex, re.DOTALL):
        latex = latex.replace(bef, bef.replace(" ", "") + tail)
    return latex


def normalize_latex(latex: str) -> str:  # noqa: C901 - one function in the original
    """port of latex_processor.py: normalize_latex (rm_trail=False, as latex2bbox_color calls it)"""
    latex_type = "tabular" if "tabular" in latex else "formula"
    latex = latex.strip().replace(r"\pmatrix", r"\mypmatrix").replace(r"\matrix", r"\mymatrix")
    for item in ["\\raggedright", "\\arraybackslash"]:
        latex = latex.replace(item, "")
    for item in ["\\lowercase", "\\uppercase"]:
        latex = latex.replace(item, "")

    old_token = re.findall(r"\\[hv]space { [.0-9a-z ]+ }", latex, re.DOTALL)
    new_token = ["" for item in old_token] if latex_type == "tabular" else [item.replace(" ", "") for item in old_token]
    for bef, aft in zip(old_token, new_token, strict=True):
        latex = latex.replace(bef, aft)

    if latex_type == "tabular":
        latex = latex.replace("\\begin {tabular}", "\\begin{tabular}")
        latex = latex.replace("\\end {tabular}", "\\end{tabular}")
        latex = latex.replace("\\begin {array}", "\\begin{array}")
        latex = latex.replace("\\end {array}", "\\end{array}")
        l_split = latex.split(" ")
        idx = 0
        while idx < len(l_split):
            token = l_split[idx]
            if token == "\\begin{tabular}":
                sub_idx = idx + 1
                end_idx = find_matching_brace(l_split, sub_idx)
                new = "".join(l_split[idx : end_idx + 1])
                l_split = l_split[0:idx] + [new] + l_split[end_idx + 1 :]
                break
            idx += 1
        latex = " ".join(l_split)

        l_split = latex.split(" ")
        idx = 0
        while idx < len(l_split):
            token = l_split[idx]
            if token in ["\\cmidrule", "\\cline"]:
                sub_idx = idx + 1
                if l_split[sub_idx] == "(":
                    mid_end = find_matching_brace(l_split, sub_idx, brace=("(", ")"))
                    end_idx = find_matching_brace(l_split, mid_end + 1)
                else:
                    end_idx = find_matching_brace(l_split, sub_idx)
                new = "".join(l_split[idx : end_idx + 1])
                l_split = l_split[0:idx] + [new] + l_split[end_idx + 1 :]
            idx += 1
        latex = " ".join(l_split)

    for bef in re.findall(r"\\begin{array} { [lrc ]+ }", latex, re.DOTALL):
        aft = bef.replace("\\begin{array} ", "<s>").replace(" ", "").replace("<s>", "\\begin{array} ")
        latex = latex.replace(bef, aft)

    for bef in re.findall(r"\\not [<>+=\-]", latex, re.DOTALL):
        latex = latex.replace(bef, bef.replace(" ", ""))

    latex = " " + latex + " "
    latex = latex.replace(" \\ldots ", " . . . ")
    latex = latex.replace(" \\cdots ", " . . . ")
    latex = latex.replace(" \\dots ", " . . . ")
    latex = latex.replace(" \\dotsb ", " . . . ")
    latex = latex.replace(" \\log ", " \\mathrm { l o g } ")
    latex = latex.replace(" \\exp ", " \\mathrm { e x p } ")
    latex = latex.replace(" \\sin ", " \\mathrm { s i n } ")
    latex = latex.replace(" \\cos ", " \\mathrm { c o s } ")
    latex = latex.replace(" \\tan ", " \\mathrm { t a n } ")
    latex = latex.replace(" \\tanh ", " \\mathrm { t a n h } ")
    latex = latex.replace(" \\cosh ", " \\mathrm { c o s h } ")
    latex = latex.replace(" \\sinh ", " \\mathrm { s i n h } ")

    latex = _join_pattern(latex, r"\\[Bb]ig[g]?[glrm]? [(){}|\[\]] ", " ")
    latex = _join_pattern(latex, r"\\[Bb]ig[g]?[glrm]? \\.*? ", " ")

    for bef in re.findall(r"\\operatorname \*", latex, re.DOTALL):
        latex = latex.replace(bef, "\\operatorname")

    latex = latex.replace("\\lefteqn", "")
    latex = latex.replace("\\footnote ", "^ ")
    latex = _join_pattern(latex, r"\\\' [^{] ", " ")

    if latex_type == "tabular":
        latex = _join_pattern(latex, r"\[ [\-.0-9 ]+[exptcm ]+ \]")

    latex = _join_pattern(latex, r"\\parbox {[^{]+}")

    for bef in re.findall(r"\\raisebox {[^{]+} [\[\]0-9 exptcm]+{", latex, re.DOTALL):
        latex = latex.replace(bef, bef.replace(" ", "")[0:-1] + " {")

    for bef in re.findall(r"{ \\char[0-9\' ]+}", latex, re.DOTALL):
        latex = latex.replace(bef, "{ " + bef.replace(" ", "")[1:-1] + " }")

    latex = _join_pattern(latex, r"\\not [\\=\<\>][^ ]+ ", " ")
    latex = _join_pattern(latex, r"\\specialrule {[ .0-9a-z]+} {[ .0-9a-z]+} {[ .0-9a-z]+}")

    colour = (
        r"\\colorbox[ \[\]RGBrgb]+{ [A-Za-z 0-9,!]+ } |\\color[ \[\]RGBrgb]+{ [A-Za-z 0-9,!]+ } |"
        r"\\textcolor[ \[\]RGBrgb]+{ [A-Za-z 0-9,!]+ } |\\cellcolor[ \[\]RGBrgb]+{ [A-Za-z 0-9,!]+ } "
    )
    for bef in re.findall(colour, latex, re.DOTALL):
        latex = latex.replace(bef, "")

    l_split = latex.split(" ")
    idx = 0
    while idx < len(l_split):
        token = l_split[idx]
        if token in ONE_Tail_Tokens + ONE_Tail_Invisb_Tokens:
            sub_idx = idx + 1
            while sub_idx < len(l_split) and l_split[sub_idx] in ONE_Tail_Tokens + ONE_Tail_Invisb_Tokens:
                sub_idx += 1
            new_split = l_split[0:idx]
            for ii in range(idx, sub_idx):
                new_split = new_split + [l_split[ii], "{"]
            if l_split[sub_idx] != "{":
                new_split = new_split + [l_split[sub_idx]] + ["}"] * (sub_idx - idx)
                l_split = new_split + l_split[sub_idx + 1 :]
            else:
                end_idx = find_matching_brace(l_split, sub_idx)
                new_split = new_split + l_split[sub_idx + 1 : end_idx] + ["}"] * (sub_idx - idx)
                l_split = new_split + l_split[end_idx + 1 :]
        elif token in AB_Tail_Tokens:
            if l_split[idx + 1] != "[" and l_split[idx + 1] != "{":
                l_split = l_split[0 : idx + 1] + ["{"] + [l_split[idx + 1]] + ["}"] + l_split[idx + 2 :]
            else:
                if l_split[idx + 1] == "[":
                    end1 = find_matching_brace(l_split, idx + 1, brace=("[", "]"))
                else:
                    end1 = idx
                if l_split[end1 + 1] != "{":
                    l_split = l_split[0 : end1 + 1] + ["{"] + [l_split[end1 + 1]] + ["}"] + l_split[end1 + 2 :]
        elif token in TWO_Tail_Tokens + TWO_Tail_Invisb_Tokens:
            if l_split[idx + 1] != "{":
                l_split = l_split[0 : idx + 1] + ["{"] + [l_split[idx + 1]] + ["}"] + l_split[idx + 2 :]
            end1 = find_matching_brace(l_split, idx + 1)
            if l_split[end1 + 1] != "{":
                l_split = l_split[0 : end1 + 1] + ["{"] + [l_split[end1 + 1]] + ["}"] + l_split[end1 + 2 :]
        idx += 1
    return " ".join(l_split)


def _color_token(token_list: list[str]) -> str:
    return "\\mathcolor[RGB]{<color_<idx>>}{".replace("<idx>", str(len(token_list)))


def token_add_color_RGB(  # noqa: N802, C901 - the original's name; one function there
    l_split: list[str], idx: int, token_list: list[str], brace_color: bool = False
) -> tuple[list[str], int, list[str]]:
    """port of latex_processor.py: token_add_color_RGB"""
    token = l_split[idx]
    if not token:
        next_idx = idx + 1
    elif token in PHANTOM_Tokens:
        brace_end = find_matching_brace(l_split, idx + 1) if l_split[idx + 1] == "{" else idx + 1
        next_idx = brace_end + 1
    elif token in TWO_Tail_Tokens:
        num_start = idx + 1
        num_end = find_matching_brace(l_split, num_start)
        den_start = num_end + 1
        den_end = find_matching_brace(l_split, den_start)
        color_token = _color_token(token_list)
        l_split = (
            l_split[:idx] + [color_token + token] + l_split[idx + 1 : den_end + 1] + ["}"] + l_split[den_end + 1 :]
        )
        token_list.append(token)
        next_idx = idx + 1
    elif token in ONE_Tail_Tokens:
        num_start = idx + 1
        num_end = find_matching_brace(l_split, num_start)
        color_token = _color_token(token_list)
        if token != "\\underbrace" and num_end + 1 < len(l_split) and l_split[num_end + 1] == "_":
            l_split = (
                l_split[:idx]
                + ["{" + color_token + token]
                + l_split[idx + 1 : num_end + 1]
                + ["}}"]
                + l_split[num_end + 1 :]
            )
        else:
            l_split = (
                l_split[:idx] + [color_token + token] + l_split[idx + 1 : num_end + 1] + ["}"] + l_split[num_end + 1 :]
            )
        token_list.append(token)
        next_idx = idx + 1
    elif token in ONE_Tail_Invisb_Tokens:
        num_start = idx + 1
        num_end = find_matching_brace(l_split, num_start)
        sub_idx = num_start + 1
        if num_end - num_start == 2:
            color_token = _color_token(token_list)
            token_list.append(l_split[num_start + 1])
            l_split = l_split[: num_start + 1] + [color_token + l_split[num_start + 1] + "}"] + l_split[num_end:]
        else:
            while sub_idx < num_end:
                l_split, sub_idx, token_list = token_add_color_RGB(l_split, sub_idx, token_list)
        next_idx = num_end + 1
    elif token in AB_Tail_Tokens:
        # the original leaves next_idx unbound when neither { nor [ follows (normalize_latex always adds one)
        if l_split[idx + 1] == "{":
            num_start = idx + 1
            num_end = find_matching_brace(l_split, num_start)
            color_token = _color_token(token_list)
            l_split = (
                l_split[:idx] + [color_token + token] + l_split[idx + 1 : num_end + 1] + ["}"] + l_split[num_end + 1 :]
            )
            token_list.append(token)
            sub_idx = num_start + 1
            while sub_idx < num_end:
                l_split, sub_idx, token_list = token_add_color_RGB(l_split, sub_idx, token_list)
            next_idx = num_end + 1
        elif l_split[idx + 1] == "[":
            num_start = idx + 1
            num_end = find_matching_brace(l_split, num_start, brace=("[", "]"))
            den_start = num_end + 1
            den_end = find_matching_brace(l_split, den_start)
            color_token = _color_token(token_list)
            l_split = (
                l_split[:idx] + [color_token + token] + l_split[idx + 1 : den_end + 1] + ["}"] + l_split[den_end + 1 :]
            )
            token_list.append(token)
            sub_idx = num_start + 1
            while sub_idx < num_end:
                l_split, sub_idx, token_list = token_add_color_RGB(l_split, sub_idx, token_list, brace_color=True)
            sub_idx = den_start + 1
            while sub_idx < den_end:
                l_split, sub_idx, token_list = token_add_color_RGB(l_split, sub_idx, token_list)
            next_idx = den_end + 1
        else:
            raise UnboundLocalError("next_idx")
    elif token in ["\\multicolumn", "\\multirow"]:
        first_end = find_matching_brace(l_split, idx + 1)
        second_end = find_matching_brace(l_split, first_end + 1)
        third_start = second_end + 1
        third_end = find_matching_brace(l_split, third_start)
        sub_idx = third_start + 1
        while sub_idx < third_end:
            l_split, sub_idx, token_list = token_add_color_RGB(l_split, sub_idx, token_list)
        next_idx = third_end + 1
    elif token in SKIP_Tokens + TWO_Tail_Invisb_Tokens or any(re.match(pattern, token) for pattern in SKIP_PATTERNS):
        if (token == "[" and l_split[idx - 1] != "\\sqrt") or (
            token == "]" and idx >= 3 and l_split[idx - 3] != "\\sqrt"
        ):
            color_token = _color_token(token_list)
            l_split = l_split[:idx] + [color_token + l_split[idx] + "}"] + l_split[idx + 1 :]
            token_list.append(token)
        next_idx = idx + 1
    else:
        color_token = _color_token(token_list)
        if brace_color or (idx > 1 and l_split[idx - 1] == "_"):
            l_split = l_split[:idx] + ["{" + color_token + l_split[idx] + "}}"] + l_split[idx + 1 :]
        else:
            l_split = l_split[:idx] + [color_token + l_split[idx] + "}"] + l_split[idx + 1 :]
        token_list.append(token)
        next_idx = idx + 1
    return l_split, next_idx, token_list


def colour_list(num: int = 5800, gap: int = 15) -> list[tuple[int, int, int]]:
    """port of cdm_metric.py: CDM.gen_color_list (CDM calls it with num=5800)"""
    num += 1
    single_num = 255 // gap + 1
    num = min(num, single_num**3)
    colours = []
    for idx in range(num):
        green_blue = idx % single_num**2
        colours.append((idx // single_num**2 * gap, green_blue // single_num * gap, green_blue % single_num * gap))
    return colours[1:]


COLOURS = colour_list()


def coloured_formula(normalized: str) -> tuple[str, list[str], list[tuple[int, int, int]]]:
    """port of latex2bbox_color.py: latex2bbox_color, from normalize_latex to the formula's line of the .tex
    text (see :func:`document`): that line, the tokens in colour order, and the colours looked for in the
    picture."""
    token_list: list[str] = []
    l_split = normalized.strip().split(" ")
    color_list = COLOURS[0 : len(l_split)]
    idx = 0
    while idx < len(l_split):
        l_split, idx, token_list = token_add_color_RGB(l_split, idx, token_list)
    rgb_latex = " ".join(l_split)
    for idx, (red, green, blue) in enumerate(color_list):
        rgb_latex = rgb_latex.replace(f"<color_{idx}>", f"{red},{green},{blue}")
    return rgb_latex, token_list, color_list


def document(formula: str, tokens: int) -> str:
    """port of latex2bbox_color.py: latex2bbox_color, the .tex text: the template with the coloured formula
    on its own line, on a paper as large as its number of tokens asks."""
    paper_size = 3 if tokens > 1300 else 4 if tokens > 600 else 5
    return FORMULA_TEMPLATE.replace("<PaperSize>", str(paper_size)) % formula
