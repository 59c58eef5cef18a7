"""Build pages.json and images/ of the OmniDocBench oracle fixture (not run by the tests).

Run from this folder with a Python that has pypdfium2 and Pillow:
    python make_pages.py /path/to/olmocr-bench-sample
The ground truth below is written by hand in OmniDocBench's ground-truth format: the olmOCR-Bench pages'
text comes from the PDF's own text layer (pypdfium2), joined per block, with formulas, tables and
accents written out by hand; the made pages are ours. See SOURCES.md.
"""

import json
import sys
import textwrap
from pathlib import Path

import pypdfium2
from made_pages import MADE_PAGES, TABLE
from made_pages import TEXT as TEXT_ATTR
from made_pages import attrs as page_attrs
from PIL import Image, ImageDraw, ImageFont

HERE = Path(__file__).resolve().parent
DPI = 100
FORMULA_ATTR = {"formula_type": "print"}
TABLE_SPAN_ATTR = dict(TABLE, with_span=True, line="fewer_line")
UNORDERED = {"header", "footer", "page_number", "page_footnote", "abandon"}


def B(cat, lines=(), text=None, latex=None, html=None, attr=None, box=None, tex=None):
    """One block: its category, the PDF text lines it covers (or an explicit box), and its content."""
    return {
        "cat": cat,
        "lines": list(lines),
        "text": text,
        "latex": latex,
        "html": html,
        "attr": attr,
        "box": box,
        "tex": tex,
    }


# ---------------------------------------------------------------- olmOCR-Bench sample pages
EARNINGS_TABLE = (
    '<table><tr><td></td><td colspan="3">Year Ended</td></tr>'
    "<tr><td></td><td>Jan 26, 2025</td><td>Jan 28, 2024</td><td>Jan 29, 2023</td></tr>"
    '<tr><td></td><td colspan="3">(In millions)</td></tr>'
    "<tr><td>Cost of revenue</td><td>$ 178</td><td>$ 141</td><td>$ 138</td></tr>"
    "<tr><td>Research and development</td><td>3,423</td><td>2,532</td><td>1,892</td></tr>"
    "<tr><td>Sales, general and administrative</td><td>1,136</td><td>876</td><td>680</td></tr>"
    "<tr><td>Total</td><td>$ 4,737</td><td>$ 3,549</td><td>$ 2,710</td></tr></table>"
)
EARNINGS_TABLE_TEX = (
    "\\begin{tabular}{lccc}\n & \\multicolumn{3}{c}{Year Ended} \\\\\n"
    " & Jan 26, 2025 & Jan 28, 2024 & Jan 29, 2023 \\\\\n & \\multicolumn{3}{c}{(In millions)} \\\\\n"
    "Cost of revenue & \\$ 178 & \\$ 141 & \\$ 138 \\\\\nResearch and development & 3,423 & 2,532 & 1,892 \\\\\n"
    "Sales, general and administrative & 1,136 & 876 & 680 \\\\\nTotal & \\$ 4,737 & \\$ 3,549 & \\$ 2,710 \\\\\n"
    "\\end{tabular}"
)
OLMO2_ROWS = [
    ["DCLM-Baseline", "Web pages", "3.71T", "3.32T", "21.32T", "2.95B"],
    ["StarCoder filtered version from OLMoE Mix", "Code", "83.0B", "70.0B", "459B", "78.7M"],
    ["peS2o from Dolma 1.7", "Academic papers", "58.6B", "51.1B", "413B", "38.8M"],
    ["arXiv", "STEM papers", "20.8B", "19.3B", "77.2B", "3.95M"],
    ["OpenWebMath", "Math web pages", "12.2B", "11.1B", "47.2B", "2.89M"],
    ["Algebraic Stack", "Math proofs code", "11.8B", "10.8B", "44.0B", "2.83M"],
    ["Wikipedia & Wikibooks from Dolma 1.7", "Encyclopedic", "3.7B", "3.16B", "16.2B", "6.17M"],
    ["Total", "", "3.90T", "3.48T", "22.38T", "3.08B"],
]
OLMO2_HEAD = ["Source", "Type", "Tokens", "Words", "Bytes", "Docs"]
OLMO2_TABLE = (
    "<table><tr>" + "".join(f"<td>{h}</td>" for h in OLMO2_HEAD) + "</tr>"
    '<tr><td colspan="6">Pretraining ✦ OLMo 2 1124 Mix</td></tr>'
    + "".join("<tr>" + "".join(f"<td>{c.replace('&', '&amp;')}</td>" for c in row) + "</tr>" for row in OLMO2_ROWS)
    + "</table>"
)
OLMO2_TABLE_TEX = (
    "\\begin{tabular}{llllll}\n"
    + " & ".join(OLMO2_HEAD)
    + " \\\\\n\\multicolumn{6}{c}{Pretraining ✦ OLMo 2 1124 Mix} \\\\\n"
    + "".join(" & ".join(c.replace("&", "\\&") for c in row) + " \\\\\n" for row in OLMO2_ROWS)
    + "\\end{tabular}"
)

OLMOCR_PAGES = [
    {
        "pdf": "earnings.pdf",
        "image": "earnings_pg1.jpg",
        "attrs": page_attrs("research_report", "english", "single_column", ["table_full_line", "table_span"]),
        "blocks": [
            B("header", [0]),
            B("header", [1, 2, 3]),
            B("title", [4]),
            B("title", [5]),
            B("text_block", [6, 7, 8]),
            B("title", [9]),
            B("text_block", [10, 11, 12]),
            B("text_block", [13, 14, 15, 16]),
            B("title", [17]),
            B("title", [18]),
            B("text_block", [19, 20, 21]),
            B("title", [22]),
            B("text_block", [23]),
            B("text_block", [24, 25]),
            B("table", range(26, 33), html=EARNINGS_TABLE, tex=EARNINGS_TABLE_TEX, attr=TABLE_SPAN_ATTR),
            B("text_block", [33]),
            B("page_number", [34]),
        ],
    },
    {
        "pdf": "math_2503_04086.pdf",
        "image": "math_2503_04086_pg1.jpg",
        "attrs": page_attrs("academic_literature", "english", "single_column", ["None"]),
        "blocks": [
            B(
                "text_block",
                [0, 1, 2],
                text="Proof. Let $S$ be the generating set associated with $D$ as described in "
                "Proposition 2.5. By the circulant diagonalization theorem, "
                "the spectrum of $G_R(D) = \\Gamma(R, S)$ is "
                "the multiset $\\{\\lambda_g\\}_{g \\in R}$ where",
            ),
            B(
                "equation_isolated",
                range(3, 19),
                latex="$$\\lambda_g = \\sum_{s \\in S} \\zeta_n^{\\psi(gs)} = "
                "\\sum_{i=1}^{k} \\left[ \\sum_{s, Rs = I_i} \\zeta_n^{\\psi(gs)} \\right].$$",
            ),
            B(
                "text_block",
                range(19, 24),
                text="We remark that by Corollary 2.7, if $s \\in R$ such that $Rs = I_i = "
                "Rx_i$ then $s$ has a unique representation of the form "
                "$s = u\\hat{x}_i$ where $u \\in (R/\\mathrm{Ann}_R"
                "(x_i))^\\times$ and $\\hat{u}$ is a fixed lift of $u$ "
                "to $R^\\times$. With this presentation, we can write",
            ),
            B(
                "equation_isolated",
                range(24, 41),
                latex="$$\\sum_{s, Rs = I_i} \\zeta_n^{\\psi(gs)} = \\sum_{u \\in "
                "(R/\\mathrm{Ann}_R(x_i))^\\times} \\zeta_n^{\\psi(g u x_i)} "
                "= \\sum_{u \\in (R/\\mathrm{Ann}_R(x_i))^\\times}"
                " \\zeta_n^{\\psi_{x_i}(gu)} = c(g, R/\\mathrm{Ann}_R(x_i)).$$",
            ),
            B(
                "text_block",
                range(41, 47),
                text="Here we recall that $\\psi_{x_i}$ is the induced linear functional on "
                "$R/\\mathrm{Ann}_R(x_i)$. We conclude that $\\lambda_g "
                "= \\sum_{i=1}^{k} c(g, R/\\mathrm{Ann}_R(x_i))$. "
                "$\\square$",
            ),
            B("text_block", [47, 48]),
            B(
                "text_block",
                [49, 50, 51],
                text="Corollary 4.17. Suppose that $g' = ug$ for some $u \\in R^\\times$. "
                "Then $\\lambda_g = \\lambda_{g'}$.",
            ),
            B("title", [52]),
            B(
                "text_block",
                [53, 54],
                text="We thank the Department of Mathematics and Computer Science at Lake Forest "
                "College for their generous financial support through an Overleaf subscription. We also thank "
                "Ján Mináč for his constant encouragement and support.",
            ),
            B("title", [55]),
            B(
                "reference",
                [56, 57, 58],
                text="1. Reza Akhtar, Megan Boggess, Tiffany Jackson-Henderson, Isidora "
                "Jiménez, Rachel Karpman, Amanda Kinzel, and Dan Pritikin, On the unitary Cayley graph of a finite "
                "ring, Electron. J. Combin. 16 (2009), no. 1, Research Paper 117, 13 pages.",
            ),
            B(
                "reference",
                [59, 60],
                text="2. Milan Bašić, Aleksandar Ilić, and Aleksandar Stamenković, Maximal "
                "diameter of integral circulant graphs, Information and Computation 301 (2024), 105208.",
            ),
            B(
                "reference",
                [61, 62, 63],
                text="3. Maria Chudnovsky, Michal Cizek, Logan Crew, Ján Mináč, Tung T. "
                "Nguyen, Sophie Spirkl, and Nguyễn Duy Tân, On prime Cayley graphs, arXiv:2401.06062, to appear in "
                "Journal of Combinatorics (2024).",
            ),
            B(
                "reference",
                [64, 65],
                text="4. Thomas Honold, Characterization of finite frobenius rings, Archiv der "
                "Mathematik 76 (2001), no. 6, 406–415.",
            ),
            B("reference", [66, 67]),
            B("reference", [68, 69]),
            B(
                "reference",
                [70],
                text="7. Erich Lamprecht, Allgemeine theorie der Gaußschen Summen in endlichen "
                "kommutativen Ringen, Mathematische Nachrichten 9 (1953), no. 3, 149–196.",
            ),
            B(
                "reference",
                [71, 72],
                text="8. Ján Mináč, Tung T Nguyen, and Nguyễn Duy Tân, Isomorphic gcd-graphs "
                "over polynomial rings, arXiv preprint arXiv:2411.01768 (2024).",
            ),
            B("reference", [73]),
            B("page_number", [74]),
        ],
    },
    {
        "pdf": "mathfuncs.pdf",
        "image": "mathfuncs_pg1.jpg",
        "attrs": page_attrs("PPT2PDF", "english", "double_column", ["colorful_backgroud"], colorful_backgroud=True),
        "blocks": [
            B("title", [0]),
            B("text_block", [1]),
            B("title", [2]),
            B("equation_isolated", box=(190, 183, 300, 201), latex="e^{i\\pi} + 1 = 0"),
            B("text_block", [3, 4, 5]),
            B("title", [6]),
            B("equation_isolated", box=(520, 183, 595, 201), latex="a^2 + b^2 = c^2"),
            B("text_block", [7, 8, 9]),
            B("title", [10]),
            B("equation_isolated", range(24, 28), latex="\\int_a^b f(x)\\,dx = F(b) - F(a)"),
            B(
                "text_block",
                [11, 12, 13],
                text="Establishes that differentiation and integration are inverse "
                "operations. If F is an antiderivative of f, the definite integral equals F(b) - F(a). "
                "Revolutionized mathematical problem-solving.",
            ),
            B("title", [14]),
            B("equation_isolated", [28, 29, 30], latex="\\nabla \\cdot \\mathbf{E} = \\frac{\\rho}{\\varepsilon_0}"),
            B("equation_isolated", [31], latex="\\nabla \\cdot \\mathbf{B} = 0"),
            B(
                "equation_isolated",
                [32, 33, 34],
                latex="\\nabla \\times \\mathbf{E} = -\\frac{\\partial \\mathbf{B}}{\\partial t}",
            ),
            B(
                "equation_isolated",
                [35, 36, 37],
                latex="\\nabla \\times \\mathbf{B} = \\mu_0 \\mathbf{J} + \\mu_0 "
                "\\varepsilon_0 \\frac{\\partial \\mathbf{E}}{\\partial t}",
            ),
            B("text_block", [15, 16, 17, 18]),
            B("footer", [38]),
        ],
    },
    {
        "pdf": "openstax_caculus_pg_273.pdf",
        "image": "openstax_caculus_pg_273_pg1.jpg",
        "attrs": page_attrs("book", "english", "double_column", ["None"]),
        "blocks": [
            B("header", [87]),
            B("title", [0]),
            B("text_block", [1, 2]),
            B("text_block", [3]),
            B("text_block", [4, 5]),
            B("text_block", [6, 7, 8], text="150. $s(t) = 2t^3 - 3t^2 - 12t + 8$"),
            B("text_block", [9, 10, 11], text="151. $s(t) = 2t^3 - 15t^2 + 36t - 10$"),
            B("text_block", [12, 13, 14, 15], text="152. $s(t) = \\frac{t}{1 + t^2}$"),
            B(
                "text_block",
                [16, 17, 18, 19],
                text="153. A rocket is fired vertically upward from the ground. The "
                "distance $s$ in feet that the rocket travels from the ground after $t$ seconds is given by "
                "$s(t) = -16t^2 + 560t$.",
            ),
            B("text_block", [20, 21]),
            B("text_block", [22, 23]),
            B(
                "text_block",
                [24, 25, 26],
                text="154. A ball is thrown downward with a speed of 8 ft/s from the top "
                "of a 64-foot-tall building. After $t$ seconds, its height above the ground is given by",
            ),
            B("equation_isolated", [27, 28], latex="s(t) = -16t^2 - 8t + 64."),
            B("text_block", [29, 30]),
            B("text_block", [31, 32]),
            B(
                "text_block",
                range(33, 41),
                text="155. The position function $s(t) = t^2 - 3t - 4$ represents the "
                "position of the back of a car backing out of a driveway "
                "and then driving in a straight line, where $s$ "
                "is in feet and $t$ is in seconds. In this case, $s(t) "
                "= 0$ represents the time at which the back of the "
                "car is at the garage door, so $s(0) = -4$ is the starting position of the car, 4 feet inside the "
                "garage.",
            ),
            B("text_block", [41], text="a. Determine the velocity of the car when $s(t) = 0$."),
            B("text_block", [42], text="b. Determine the velocity of the car when $s(t) = 14$."),
            B(
                "text_block",
                [43, 44, 45],
                text="156. The position of a hummingbird flying along a straight line in $t$ "
                "seconds is given by $s(t) = 3t^3 - 7t$ meters.",
            ),
            B("text_block", [46]),
            B("text_block", [47]),
            B("text_block", [48, 49]),
            B("text_block", [50, 51, 52, 53]),
            B("equation_isolated", [54, 55], latex="s(t) = -16t^2 + 100t + 85."),
            B("text_block", [56, 57]),
            B("text_block", [58]),
            B("text_block", [59, 60]),
            B("text_block", [61, 62]),
            B("text_block", [63]),
            B("text_block", [64, 65]),
            B(
                "text_block",
                [66, 67, 68, 69],
                text="158. The position function $s(t) = t^3 - 8t$ gives the position in "
                "miles of a freight train where east is the positive direction and $t$ is measured in hours.",
            ),
            B("text_block", [70, 71], text="a. Determine the direction the train is traveling when $s(t) = 0$."),
            B("text_block", [72, 73], text="b. Determine the direction the train is traveling when $a(t) = 0$."),
            B("text_block", [74, 75]),
            B(
                "text_block",
                [76, 77],
                text="159. The following graph shows the position $y = s(t)$ of an object "
                "moving along a straight line.",
            ),
            B("figure", box=(315, 436, 540, 615)),
            B("text_block", [78, 79, 80]),
            B("text_block", [81]),
            B("text_block", [82, 83, 84]),
            B("text_block", [85, 86]),
        ],
    },
    {
        "pdf": "olmo2-pg4.pdf",
        "image": "olmo2-pg4_pg1.jpg",
        "attrs": page_attrs("academic_literature", "english", "single_column", ["table_fewer_line", "table_span"]),
        "blocks": [
            B("table", range(0, 17), html=OLMO2_TABLE, tex=OLMO2_TABLE_TEX, attr=TABLE_SPAN_ATTR),
            B("table_caption", [17, 18, 19, 20]),
            B("title", [21]),
            B("text_block", [22, 23, 24]),
            B(
                "text_block",
                range(25, 30),
                text="We combine data from DCLM (Li et al., 2024) and Dolma 1.7 (Soldaini "
                "et al., 2024). From DCLM, we use the “baseline 1.0” mix.4 From Dolma, we use the arXiv (Together AI, "
                "2023), OpenWebMath (Paster et al., 2023), Algebraic Stack, peS2o (Soldaini and Lo, 2023), and "
                "Wikipedia subsets. arXiv, OpenWebMath, and Algebraic Stack were originally part of ProofPile II "
                "(Azerbayev et al., 2023).",
            ),
            B("text_block", range(30, 38)),
            B("title", [38]),
            B("text_block", range(39, 46)),
            B("page_number", [46]),
        ],
    },
    {
        "pdf": "headers_footers/ff4f7dad78081cff727d19ab51c181d4a661_pg1.pdf",
        "image": "ff4f7dad78081cff727d19ab51c181d4a661_pg1_pg1.jpg",
        "attrs": page_attrs("academic_literature", "english", "single_column", []),
        "blocks": [
            B("header", [1]),
            B("title", [2]),
            B("text_block", [3]),
            B("text_block", [4]),
            B("title", [5]),
            B("text_block", [6]),
            B("title", [7]),
            B("text_block", [8, 9]),
            B("title", [10]),
            B("text_block", [11, 12, 13, 14]),
            B("footer", [0]),
            B("footer", [15]),
        ],
    },
    {
        "pdf": "headers_footers/ffaac214730d2b8c2ec842e3618ccb9c4259_pg1.pdf",
        "image": "ffaac214730d2b8c2ec842e3618ccb9c4259_pg1_pg1.jpg",
        "attrs": page_attrs("academic_literature", "english", "single_column"),
        "blocks": [
            B("header", [0]),
            B("title", [1]),
            B("text_block", [2]),
            B("title", [3]),
            B("text_block", [4]),
            B("title", [5]),
            B("text_block", [6]),
            B("text_block", [7]),
            B("title", [8]),
            B("text_block", [9, 10, 11, 12]),
            B("title", [13]),
            B("text_block", [14, 15]),
            B(
                "text_block",
                [16],
                text="• Users may download and print one copy of any publication from the public "
                "portal for the purpose of private study or research.",
            ),
            B(
                "text_block",
                [17],
                text="• You may not further distribute the material or use it for any "
                "profit-making activity or commercial gain",
            ),
            B(
                "text_block",
                [18],
                text="• You may freely distribute the URL identifying the publication in the public portal",
            ),
            B("title", [19]),
            B("text_block", [20, 21]),
            B("footer", [22]),
        ],
    },
    {
        "pdf": "headers_footers/fff590bed29a2854ac1f874dad5752ede1aa_pg1.pdf",
        "image": "fff590bed29a2854ac1f874dad5752ede1aa_pg1_pg1.jpg",
        "attrs": page_attrs("book", "english", "other_layout", ["None"]),
        "blocks": [
            B("title", [16], text="User's Manual"),
            B("title", [17]),
            B("title", [18]),
            B("text_block", [0, 1, 2]),
            B("text_block", [3]),
            B("text_block", [4, 5]),
            B("text_block", [6]),
            B("text_block", [7]),
            B("text_block", [8, 9]),
            B("text_block", [10, 11, 12, 13, 14]),
            B("footer", [15]),
        ],
    },
    {
        "pdf": "test-graphical-text.pdf",
        "image": "test-graphical-text_pg1.jpg",
        "attrs": page_attrs("PPT2PDF", "other", "single_column", ["colorful_backgroud"], colorful_backgroud=True),
        "blocks": [
            B("title", [0]),
            B("title", [1]),
            B("text_block", [2], attr=dict(TEXT_ATTR, text_language="text_other")),
        ],
    },
    {
        "pdf": "blank_book_pg1.pdf",
        "image": "blank_book_pg1_pg1.jpg",
        "attrs": page_attrs("book", "english", "single_column", ["None"], fuzzy_scan=True),
        "blocks": [],
    },
]


def pdf_lines(pdf):
    """The page's text lines with their boxes in PDF points, top-left origin."""
    page = pypdfium2.PdfDocument(pdf)[0]
    textpage = page.get_textpage()
    _, height = page.get_size()
    count = textpage.count_chars()
    text = textpage.get_text_range(0, count)
    assert len(text) == count
    lines, chars, box = [], [], None
    for i, ch in enumerate(text):
        if ch in "\r\n":
            if chars:
                lines.append(("".join(chars), box))
            chars, box = [], None
            continue
        chars.append(ch)
        left, bottom, right, top = textpage.get_charbox(i)
        if ch.strip() and (right > left or top > bottom):
            b = (left, height - top, right, height - bottom)
            box = b if box is None else (min(box[0], b[0]), min(box[1], b[1]), max(box[2], b[2]), max(box[3], b[3]))
    if chars:
        lines.append(("".join(chars), box))
    return page, lines


def poly(box, scale=1.0):
    x0, y0, x1, y1 = (round(v * scale, 1) for v in box)
    return [x0, y0, x1, y0, x1, y1, x0, y1]


def union(boxes):
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def clean_line(s):
    return s.replace("\ufffe", "").replace("\u2019", "'").strip()


def annotation(anno_id, order, spec, box, scale, spans):
    cat = spec["cat"]
    item = {
        "category_type": cat,
        "poly": poly(box, scale),
        "ignore": False,
        "order": None if cat in UNORDERED else order,
        "anno_id": anno_id,
    }
    if cat == "equation_isolated":
        item["latex"] = spec["latex"]
        item["attribute"] = spec["attr"] or FORMULA_ATTR
    elif cat == "table":
        item["latex"] = spec["tex"]
        item["html"] = spec["html"]
        item["attribute"] = spec["attr"] or TABLE
    elif cat == "figure":
        pass
    else:
        item["text"] = spec["text"]
        item["attribute"] = spec["attr"] or TEXT_ATTR
    if spans:
        span_cat = "equation_isolated" if cat == "equation_isolated" else "text_span"
        item["line_with_spans"] = [{"category_type": span_cat, "poly": poly(b, scale), "text": t} for t, b in spans]
    return item


def olmocr_page(root, spec, images):
    page, lines = pdf_lines(root / "pdfs" / spec["pdf"])
    scale = DPI / 72
    image = page.render(scale=scale).to_pil().convert("RGB")
    image.save(images / spec["image"], quality=55, optimize=True)
    dets = []
    order = 0
    for anno_id, block in enumerate(spec["blocks"]):
        spans = [(clean_line(lines[i][0]), lines[i][1]) for i in block["lines"] if lines[i][1]]
        box = block["box"] or union([b for _, b in spans])
        if block["text"] is None and block["cat"] not in ("equation_isolated", "table", "figure"):
            block = dict(block, text=" ".join(t for t, _ in spans))
        if block["cat"] not in UNORDERED:
            order += 1
        dets.append(annotation(anno_id, order, block, box, scale, spans))
    return page_json(spec["image"], image.size, spec["attrs"], dets, [])


def page_json(image_name, size, attrs, dets, relations):
    return {
        "layout_dets": dets,
        "page_info": {
            "page_no": 0,
            "height": size[1],
            "width": size[0],
            "image_path": image_name,
            "page_attribute": attrs,
        },
        "extra": {"relation": relations},
    }


# ---------------------------------------------------------------- made pages (their blocks: made_pages.py)
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
CJK_FONT = "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"


def render_made_page(spec, images):
    """Lay the blocks out top to bottom (two columns when asked) and draw them, so each has a real box."""
    width, height = 850, 1100
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(CJK_FONT if spec.get("cjk") else FONT, 14)
    columns = spec.get("columns", 1)
    col_width = (width - 100 - 30 * (columns - 1)) // columns
    chars_per_line = max(20, col_width // (15 if spec.get("cjk") else 8))
    x, y, column = 50, 60, 0
    dets = []
    order = 0
    for anno_id, block in enumerate(spec["blocks"]):
        cat = block["cat"]
        if block.get("column_break"):
            column += 1
            x, y = 50 + column * (col_width + 30), 60
        if cat == "header":
            by = 20
        elif cat in ("footer", "page_number"):
            by = height - 40
        else:
            by = y
        if cat == "table":
            rows = block["rows"]
            content_lines = [" | ".join(r) for r in rows]
        elif cat == "equation_isolated":
            content_lines = [block["latex"]]
        elif cat == "figure":
            content_lines = ["[figure]"] * 6
        else:
            content_lines = textwrap.wrap(block["text"], chars_per_line) or [""]
        spans = []
        ly = by
        for line in content_lines:
            draw.text((x, ly), line, fill="black", font=font)
            lx0, ly0, lx1, ly1 = draw.textbbox((x, ly), line or " ", font=font)
            spans.append((line, (lx0, ly0, lx1, ly1)))
            ly += 20
        box = union([b for _, b in spans])
        if cat == "table":
            draw.rectangle((box[0] - 4, box[1] - 4, box[2] + 4, box[3] + 4), outline="black")
        if cat == "figure":
            draw.rectangle(box, outline="gray")
        if cat not in ("header", "footer", "page_number"):
            y = ly + 16
        if cat not in UNORDERED:
            order += 1
        item = annotation(
            block.get("anno_id", anno_id),
            order,
            B(
                cat,
                text=block.get("text"),
                latex=block.get("latex"),
                html=block.get("html"),
                tex=block.get("tex"),
                attr=block.get("attr"),
            ),
            box,
            1.0,
            spans if cat not in ("figure", "table") else [],
        )
        dets.append(item)
    name = spec["image"]
    if name.endswith(".tif"):
        image.convert("1").save(images / name, compression="group4")
    elif name.endswith(".png"):
        image.convert("L").save(images / name, optimize=True)
    else:
        image.save(images / name, quality=55, optimize=True)
    return page_json(name, image.size, spec["attrs"], dets, spec.get("relations", []))


def main():
    root = Path(sys.argv[1])
    images = HERE / "images"
    images.mkdir(exist_ok=True)
    pages = [olmocr_page(root, spec, images) for spec in OLMOCR_PAGES]
    pages += [render_made_page(spec, images) for spec in MADE_PAGES]
    (HERE / "pages.json").write_text(json.dumps(pages, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(pages)} pages")


if __name__ == "__main__":
    main()
