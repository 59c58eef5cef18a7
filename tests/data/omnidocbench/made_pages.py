"""The made pages of the OmniDocBench oracle fixture: each one hits hard cases of OmniDocBench's
end-to-end scoring (SOURCES.md lists which). Our own text, written for this fixture. Read by make_pages.py."""

TEXT = {"text_language": "text_english", "text_background": "white", "text_rotate": "normal"}
TEXT_COLOURED = dict(TEXT, text_background="single_colored")
ZH = {"text_language": "text_simplified_chinese", "text_background": "white", "text_rotate": "normal"}
TABLE = {
    "table_layout": "horizontal",
    "with_span": False,
    "line": "full_line",
    "language": "table_en",
    "include_equation": False,
    "include_photo": False,
    "include_background": False,
    "with_structured_text": False,
}


def attrs(data_source, language, layout, special_issue=None, **flags):
    page = {
        "data_source": data_source,
        "language": language,
        "layout": layout,
        "watermark": flags.get("watermark", False),
        "fuzzy_scan": flags.get("fuzzy_scan", False),
        "colorful_backgroud": flags.get("colorful_backgroud", False),
    }
    if special_issue is not None:
        page["special_issue"] = special_issue
    return page


def text(cat, body, attr=None, **extra):
    return dict(cat=cat, text=body, attr=attr or TEXT, **extra)


def formula(latex, **extra):
    return dict(cat="equation_isolated", latex=latex, attr={"formula_type": "print"}, **extra)


def table(rows, attr=None, **extra):
    """A table block: its HTML (the first row as <th>) and LaTeX ground truth, and its rows for drawing."""
    head, *body = rows
    html = (
        "<table><thead><tr>"
        + "".join(f"<th>{c}</th>" for c in head)
        + "</tr></thead><tbody>"
        + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in body)
        + "</tbody></table>"
    )
    tex = (
        "\\begin{tabular}{"
        + "l" * len(head)
        + "}\n\\hline\n"
        + " \\\\\n".join(" & ".join(r) for r in rows)
        + " \\\\\n\\hline\n\\end{tabular}"
    )
    return dict(cat="table", rows=rows, html=html, tex=tex, attr=attr or TABLE, **extra)


FIGURE = dict(cat="figure")

MADE_PAGES = [
    {
        "image": "made_paragraphs.png",
        "attrs": attrs("note", "english", "single_column", []),
        "blocks": [
            text("title", "Field notes on splitting and merging paragraphs"),
            text(
                "text_block",
                "The first paragraph is long on purpose. It runs over several lines of the page, "
                "and a recogniser that sees a wide gap between two of its lines may cut it in two, so that the "
                "output holds two paragraphs where the ground truth holds one.",
            ),
            text("text_block", "The second paragraph is short."),
            text(
                "text_block",
                "The third paragraph follows it closely, and a recogniser may join the two of "
                "them into one block of text.",
            ),
            text(
                "text_block",
                "The fourth paragraph keeps the line breaks of the page inside it, one line of "
                "text after the other, as many models write them, with a single newline between the lines.",
            ),
        ],
    },
    {
        "image": "made_md_table.png",
        "attrs": attrs("research_report", "english", "single_column", ["table_full_line"]),
        "blocks": [
            text("title", "Quarterly rainfall by station"),
            text("text_block", "The table below gives the rainfall measured at four stations in millimetres."),
            table(
                [
                    ["Station", "Q1", "Q2", "Q3"],
                    ["Harbour", "120", "85", "40"],
                    ["Hill", "150", "110", "62"],
                    ["Valley", "98", "71", "35"],
                    ["Airport", "105", "80", "44"],
                ]
            ),
            text("text_block", "The hill station is the wettest in every quarter."),
        ],
    },
    {
        "image": "made_latex_table.png",
        "attrs": attrs("academic_literature", "english", "single_column", ["table_full_line"]),
        "blocks": [
            text("text_block", "We compare three settings of the learning rate on the same data set."),
            text("table_caption", "Table 2: Accuracy for each learning rate."),
            table(
                [
                    ["Rate", "Accuracy", "Loss"],
                    ["0.1", "81.2", "0.64"],
                    ["0.01", "88.9", "0.41"],
                    ["0.001", "86.5", "0.47"],
                ]
            ),
            text("text_block", "The middle setting gives the best accuracy and the lowest loss."),
        ],
    },
    {
        "image": "made_formulas.png",
        "attrs": attrs("academic_literature", "english", "single_column", ["None"]),
        "blocks": [
            text(
                "text_block",
                "Let $x_i$ be the $i$-th sample and $\\alpha$ the step size; the mean of $n$ "
                "samples is written $\\bar{x}$.",
            ),
            formula("\\int_0^1 x^2 \\, dx = \\frac{1}{3}"),
            text("equation_caption", "(1)"),
            text("text_block", "The sum of the first $n$ integers has a closed form:"),
            formula("\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}"),
            text("text_block", "An arithmetic sequence with difference d satisfies"),
            formula("a_{n+1} = a_n + d"),
            text("text_block", "where a_1 is the first term."),
        ],
    },
    {
        "image": "made_ignored.png",
        "attrs": attrs("magazine", "english", "double_column", ["None"]),
        "columns": 2,
        "blocks": [
            text("header", "MADE PAGES MONTHLY - VOLUME 3"),
            text("title", "Captions, footnotes and page furniture"),
            text(
                "text_block",
                "A page carries text that a reader follows and text that only frames it: the "
                "running header, the footer, the page number, captions and footnotes.",
            ),
            FIGURE,
            text("figure_caption", "Figure 1: A drawing of nothing in particular."),
            text(
                "text_block",
                "OmniDocBench leaves that framing text out of the text score, but a recogniser "
                "writes it anyway, next to the paragraphs it belongs to.",
                column_break=True,
            ),
            text("table_caption", "Table 1: Not a table, only its caption."),
            text(
                "text_block",
                "Short lines that look like a caption may be dropped from the output before the "
                "paragraphs are matched.",
            ),
            text("page_footnote", "1 This footnote is part of the page furniture."),
            text("footer", "Printed for the pytest-ocr test suite"),
            text("page_number", "17"),
        ],
    },
    {
        "image": "made_truncated.png",
        "attrs": attrs("book", "simplified_chinese", "double_column", []),
        "columns": 2,
        "cjk": True,
        "blocks": [
            text("title", "截断段落测试", ZH, anno_id=0),
            text(
                "text_block",
                "这一页用来检查被分栏截断的段落。第一段是完整的，它没有被截断，也不需要合并。",
                ZH,
                anno_id=1,
            ),
            text("text_block", "第二段从左栏的底部开始，讲述一个很长的故事，故事还没有讲完", ZH, anno_id=2),
            text("text_block", "就到了右栏的顶部，在这里继续讲下去，直到结束。", ZH, anno_id=3, column_break=True),
            text("text_block", "第三段被分成三块：第一块在图的上面，", ZH, anno_id=4),
            dict(FIGURE, anno_id=5),
            text("figure_caption", "图1：一张空白的图。", ZH, anno_id=6),
            text("text_block", "第二块在图的下面，", ZH, anno_id=7),
            text("text_block", "第三块是段落的结尾。", ZH, anno_id=8),
        ],
        "relations": [
            {"source_anno_id": 2, "target_anno_id": 3, "relation_type": "truncated"},
            {"source_anno_id": 4, "target_anno_id": 7, "relation_type": "truncated"},
            {"source_anno_id": 7, "target_anno_id": 8, "relation_type": "truncated"},
            {"source_anno_id": 5, "target_anno_id": 6, "relation_type": "parent_son"},
        ],
    },
    {
        "image": "made_empty.png",
        "attrs": attrs("exam_paper", "english", "single_column", ["None"]),
        "blocks": [
            text("title", "Exercise sheet 4"),
            text("text_block", "Solve the equation below and fill in the table."),
            formula("x^2 - 5x + 6 = 0"),
            table([["Root", "Value"], ["first", "2"], ["second", "3"]]),
            text("text_block", "Show your working."),
        ],
    },
    {
        "image": "made_two_tables.png",
        "attrs": attrs("research_report", "english", "double_column", ["table_full_line", "table_horizontal"]),
        "blocks": [
            text("title", "Sales by region and by product"),
            text("text_block", "Two tables summarise the year: sales by region, then sales by product."),
            text("table_caption", "Table 1: Sales by region."),
            table([["Region", "2024", "2025"], ["North", "12", "14"], ["South", "9", "11"]]),
            text("text_block", "The north grew faster than the south."),
            text("table_caption", "Table 2: Sales by product."),
            table([["Product", "Units"], ["Kettle", "340"], ["Toaster", "275"], ["Lamp", "190"]]),
        ],
    },
    {
        "image": "made_cleaned_lines.png",
        "attrs": attrs("note", "english", "single_column", []),
        "blocks": [
            text("title", "Lines that cleaning empties"),
            text("text_block", "* * *", TEXT_COLOURED),
            text("text_block", "The paragraph after a row of stars keeps its text.", TEXT),
            text("text_block", "— · —", TEXT_COLOURED),
            text("text_block", "Cleaning keeps letters and digits only, so a line of punctuation becomes empty.", TEXT),
            text("text_block", "The last paragraph ends the page.", TEXT),
        ],
    },
    {
        "image": "made_quirk.png",
        "attrs": attrs("newspaper", "english", "three_column", ["None"]),
        "blocks": [
            text("title", "Two pages, one name"),
            text("text_block", "This page is named made_quirk.png; the next one is made_quirk_tif.tif."),
            text("text_block", "OmniDocBench groups a sample by its image name when it ends in .jpg or .png."),
        ],
    },
    {
        "image": "made_quirk_tif.tif",
        "attrs": attrs("newspaper", "english", "single_column", ["fuzzy_scan"], fuzzy_scan=True),
        "blocks": [
            text("title", "A page whose image is a TIFF"),
            text("text_block", "Any other name loses its last underscore-separated part before grouping."),
            text("text_block", "So this page's samples are counted under the name made_quirk."),
        ],
    },
    {
        "image": "made_code.png",
        "attrs": attrs("exam_paper", "english", "single_column", ["None"], watermark=True),
        "blocks": [
            text("title", "Adding two numbers"),
            text("text_block", "The function below returns the sum of its two arguments."),
            text("code_txt", "def add(a, b):\n    return a + b"),
            text("text_block", "Call it with two integers."),
        ],
    },
    {
        "image": "made_arrays.png",
        "attrs": attrs("exam_paper", "english", "single_column", ["None"]),
        "blocks": [
            text("text_block", "Solve the system of equations below."),
            formula("\\begin{array}{l} x + y = 1 \\\\ x - y = 3 \\end{array}"),
            text("text_block", "Its matrix uses a two-column array, which is not split into lines:"),
            formula("\\left( \\begin{array}{cc} 1 & 1 \\\\ 1 & -1 \\end{array} \\right)"),
            text("text_block", "so x = 2 and y = -1."),
            text("abandon", "DRAFT"),
        ],
    },
    {
        "image": "made_no_text.png",
        "attrs": attrs("colorful_textbook", "english", "single_column", ["None"], colorful_backgroud=True),
        "blocks": [FIGURE],
    },
]
