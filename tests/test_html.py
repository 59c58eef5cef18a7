"""The HTML report (--ocr-html), made by the real plugin from a suite with two engines,
hostile OCR output, failed and errored items, key fields and warnings; checked as
parsed HTML, and as rendered by a real headless Chromium (DOM after the script ran,
and screenshots)."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import io
import json
import re
from pathlib import Path

import pytest
from helpers.chromium import chromium, console, rendered
from helpers.dom import Tree, assert_nothing_injected, embedded
from PIL import Image

from pytest_ocr.report.html import cases as html_cases
from pytest_ocr.report.html import markup as html_markup
from pytest_ocr.report.html import page as html_page
from pytest_ocr.report.numbers import number
from pytest_ocr.run.aggregate import summarize
from pytest_ocr.run.record import RunRecord

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

ASSETS = Path(html_page.__file__).parent.parent / "html_assets"

# The engine: reads "<image stem>.<side>.json" and returns its text, fields and warnings,
# or raises with its "raise" message; a second engine is the same function on side "b".
TWIN_ENGINE = """
import json
from pathlib import Path

from pytest_ocr.engines.base import Recognition

def read(image_path, side="a", note=""):
    data = json.loads(Path(image_path).with_suffix("." + side + ".json").read_text(encoding="utf-8"))
    if "raise" in data:
        raise RuntimeError(data["raise"])
    return Recognition(text=data["text"], fields=data.get("fields"), warnings=data.get("warnings", []))
"""

# Everything a browser could act on, with quotes, a script end tag and a right-to-left override.
HOSTILE = (
    '<script>alert(1)</script> "><img src=x onerror=alert(1)> \'" </script><b>bold</b> '
    "\u202eevil\u202c &amp; <!-- c -->"
)
HOSTILE_ERROR = "boom </script><img src=x onerror=alert(2)><script>alert(2)</script>"
HOSTILE_NOTE = '</script><script>alert(3)</script>"><img src=x onerror=alert(3)>'
HOSTILE_IMAGE = 'x"><img src=x onerror=alert(4)>.tif'
HOSTILE_FIELD = "<b>x</b></script><img src=x onerror=alert(5)>"

CONFIG = (
    """
engines:
  alpha: {type: python, function: "twin:read", kwargs: {side: a}}
  beta: {type: python, function: "twin:read", kwargs: {side: b, note: """
    + json.dumps(HOSTILE_NOTE)
    + """}}
defaults:
  engine: [alpha, beta]
"""
)

CASES = (
    """cases:
  - id: hello
    image: hello.tif
    tags: [pages]
    expected: {text: "Hello world"}
    thresholds: {cer: "< 0.05"}
  - id: hostile
    image: hostile.tif
    tags: [hostile]
    expected: {text: "Total 12.00"}
  - id: fields
    image: fields.tif
    tags: [fields]
    expected: {text: "Total 12.00 2020-01-01", fields: {total: "12.00", date: "2020-01-01"}}
    thresholds: {field_f1: ">= 0.9"}
  - id: named
    image: """
    + json.dumps(HOSTILE_IMAGE)
    + """
    expected: {text: abc}
  - id: page
    image: page.tif
    tags: [pages]
    expected: {text: abc}
  - id: missing
    image: nope.png
    expected: {text: abc}
  - id: corrupt
    image: corrupt.png
    expected: {text: abc}
"""
)

# What each engine "reads" per image stem (text, or raise, plus fields and warnings).
OUTPUTS = {
    # "Hello world" -> "Hxllo wrld!": e/x substituted, the o of "world" missing, "!" extra.
    "hello": ({"text": "Hxllo wrld!"}, {"text": "Hello world"}),
    "hostile": (
        {"text": "Total 12.00 " + HOSTILE, "fields": {"total": HOSTILE_FIELD}, "warnings": [HOSTILE]},
        {"raise": HOSTILE_ERROR},
    ),
    "fields": (
        {"text": "Total 12.00 2020-01-01", "fields": {"total": "12.00", "date": HOSTILE_FIELD}},
        {"text": "Total 12.00 2020-01-01", "fields": {"total": "12.00"}},
    ),
    Path(HOSTILE_IMAGE).stem: ({"text": "abc"}, {"text": "abc"}),
    "page": ({"text": "abd"}, {"text": "abc"}),
}
HELLO = "hostile.ocr.yaml::hello[alpha]"
# Levenshtein alignment of "Hello world" with "Hxllo wrld!" worked out by hand, as
# (kind, reference length, prediction length): H equal, e->x substituted, "llo w" equal,
# o deleted, "rld" equal, "!" inserted.
HELLO_OPS = [0, 1, 1, 1, 1, 1, 0, 5, 5, 2, 1, 0, 0, 3, 3, 3, 0, 1]
DIFF_COLOURS = {"d-sub": (0xFF, 0xD9, 0x66), "d-del": (0xF4, 0xA6, 0xA6), "d-ins": (0x9F, 0xDF, 0x9F)}
ENGINE_COLOURS = {"alpha": (0x1F, 0x77, 0xB4), "beta": (0xFF, 0x7F, 0x0E)}


@pytest.fixture
def made(suite):
    """Run the hostile suite with --ocr-report and --ocr-html; return (html text, report, suite)."""
    suite.pytester.makepyfile(twin=TWIN_ENGINE)
    suite.write("ocr-config.yaml", CONFIG)
    suite.write("hostile.ocr.yaml", CASES)
    for stem, (a, b) in OUTPUTS.items():
        source = "pages/unlv_8087_054.tif" if stem == "page" else "pages/tess_phototest.tif"
        image = suite.image(stem + ".tif", None, source)
        for side, output in (("a", a), ("b", b)):
            (suite.path / image).with_suffix(f".{side}.json").write_text(json.dumps(output), encoding="utf-8")
    suite.write("corrupt.png", "this is not a PNG")
    result = suite.pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",
        "--ocr-no-cache",
        "--ocr-report",
        "report.json",
        "--ocr-html",
        "out/report.html",
        "--ocr-gate",
        "cer.macro < 0.5",
    )
    # hello: alpha fails its CER threshold; fields: both fail field_f1; hostile on beta, missing
    # and corrupt on both are errors. The gate is a test per engine: alpha's CER macro is above 1.
    result.assert_outcomes(passed=7, failed=4, errors=5)
    assert f"OCR HTML report: {suite.path / 'out' / 'report.html'}" in result.stdout.str()
    page = (suite.path / "out" / "report.html").read_text(encoding="utf-8")
    report = json.loads((suite.path / "report.json").read_text(encoding="utf-8"))
    return page, report, suite


# -- the page as written ------------------------------------------------------------------------


def test_one_file_whose_only_scripts_are_its_own_and_that_loads_nothing(made):
    page, report, _ = made
    tree = Tree(page)
    scripts = tree.root.find_all("script")
    code = [s for s in scripts if "type" not in s.attrs]
    assert len(code) == 1 and code[0].text() == (ASSETS / "report.js").read_text(encoding="utf-8")
    data = [s for s in scripts if s.attrs.get("type") == "application/json"]
    assert [s.attrs["id"] for s in data] == ["ocr-data"]
    thumbs = [s for s in scripts if s.attrs.get("type") == "text/plain"]
    assert len(scripts) == 1 + 1 + len(thumbs)
    for s in thumbs:
        assert re.fullmatch(r"ocr-thumb-\d+", s.attrs["id"])
        assert re.fullmatch(r"data:image/jpeg;base64,[A-Za-z0-9+/]+=*", s.text())
    # Each script element closes once: no text ended one early.
    assert page.count("</script>") == len(scripts)
    # Nothing is fetched: no external resources, links only within the page.
    tags = {n.tag for n in tree.root.walk()}
    assert not tags & {"img", "link", "iframe", "object", "embed", "base", "form", "b", "input"}
    for node in tree.root.walk():
        assert "src" not in node.attrs, node.tag
        assert not any(name.startswith("on") for name in node.attrs), (node.tag, node.attrs)
        if "href" in node.attrs:
            assert node.attrs["href"].startswith("#"), node.attrs["href"]
    # The policy admits exactly this script and this style, by their SHA-256.
    csp = tree.root.find("meta", http_equiv="Content-Security-Policy").attrs["content"]
    style = tree.root.find("style").text()
    for kind, text in (("script-src", code[0].text()), ("style-src", style)):
        digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()
        assert f"{kind} 'sha256-{digest}'" in csp
    assert "default-src 'none'" in csp and "img-src data:;" in csp


def test_hostile_text_appears_only_escaped(made):
    page, _, _ = made
    for raw in ("<script>alert", "<img src=x", "</script><b>", "<b>x</b>", "\u202e", "<!-- c -->"):
        assert raw not in page, raw
    tree = Tree(page)
    # The engine's configuration is rendered here, as text: the parser reads it back intact.
    configs = [n.text() for n in tree.root.find_all("pre") if "note" in n.text()]
    assert len(configs) == 1 and json.loads(configs[0])["kwargs"]["note"] == HOSTILE_NOTE
    # In the embedded JSON, <, > and & are escapes that decode to the original text.
    data = tree.root.find("script", id="ocr-data").text()
    assert "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in data
    assert "<" not in data and ">" not in data and "&" not in data


def test_html_escaping_of_rendered_text_by_hand():
    # html.escape's entities, and U+FFFD for a right-to-left override and a control character.
    assert html_markup.esc('<a href="x">\'&\u202e\x07') == "&lt;a href=&quot;x&quot;&gt;&#x27;&amp;\ufffd\ufffd"
    assert html_markup.embed_json({"t": "</script>\u2028&"}) == '{"t":"\\u003c/script\\u003e\\u2028\\u0026"}'


def test_embedded_data_round_trips_to_the_report(made):
    page, report, _ = made
    data = embedded(Tree(page))
    records = {r["id"]: r for r in report["results"]}
    cases = {c["id"]: c for c in data["cases"]}
    assert list(cases) == list(records)
    for id_, record in records.items():
        case = cases[id_]
        for key in html_cases.CASE_KEYS:
            assert case[key] == record.get(key), (id_, key)
        assert case["confusions"] == record["details"].get("cer", {}).get("confusions", [])
    assert cases[HELLO]["prediction"] == "Hxllo wrld!"
    assert cases[HELLO]["diff"] == HELLO_OPS
    assert cases["hostile.ocr.yaml::hostile[alpha]"]["prediction"] == "Total 12.00 " + HOSTILE
    error = cases["hostile.ocr.yaml::hostile[beta]"]["error"]
    assert error.startswith("twin:read raised RuntimeError: " + HOSTILE_ERROR)
    assert cases["hostile.ocr.yaml::hostile[alpha]"]["warnings"][0] == HOSTILE
    # Field checks: alpha got the date wrong, beta has none; matched case-folded by default.
    assert cases["hostile.ocr.yaml::fields[alpha]"]["fields_check"] == {
        "missing": [],
        "extra": [],
        "absent": [],
        "incorrect": {"date": {"expected": "2020-01-01", "extracted": HOSTILE_FIELD, "match": "casefold"}},
    }
    assert cases["hostile.ocr.yaml::fields[beta]"]["fields_check"] == {
        "missing": ["date"],
        "extra": [],
        "absent": [],
        "incorrect": {},
    }
    assert cases["hostile.ocr.yaml::hello[beta]"]["fields_check"] is None
    assert data["engines"] == ["alpha", "beta"]
    assert data["confusions"] == {e: report["summary"][e]["top_confusions"] for e in ("alpha", "beta")}
    # Every alignment rebuilds the prediction from the reference.
    for case in data["cases"]:
        if case["diff"] is None:
            assert case["reference"] is None or case["prediction"] is None
            continue
        ref, hyp, out, i, j = case["reference"], case["prediction"], [], 0, 0
        ops = case["diff"]
        for k in range(0, len(ops), 3):
            kind, a, b = ops[k : k + 3]
            assert (
                (kind == 0 and a == b)
                or (kind == 1 and a and b)
                or (kind == 2 and a and not b)
                or (kind == 3 and b and not a)
            )
            if kind == 0:
                assert ref[i : i + a] == hyp[j : j + b]
            out.append(hyp[j : j + b])
            i, j = i + a, j + b
        assert (i, j) == (len(ref), len(hyp)) and "".join(out) == hyp


def test_thumbnails_are_scaled_jpegs_and_unreadable_images_are_placeholders(made):
    page, _, suite = made
    tree = Tree(page)
    cases = {c["case"] + "[" + c["engine"] + "]": c for c in embedded(tree)["cases"]}

    def thumb(key: str) -> Image.Image:
        url = tree.root.find("script", id=f"ocr-thumb-{cases[key]['thumb']}").text()
        return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))

    # A 640x480 TIFF fits the 1000x1000 box: converted to JPEG, not scaled.
    assert Image.open(suite.path / "hello.tif").format == "TIFF"
    assert (thumb("hello[alpha]").format, thumb("hello[alpha]").size) == ("JPEG", (640, 480))
    # A 2560x3300 scan: 1000 high, 2560 * 1000 / 3300 = 775.8 -> 776 wide.
    assert Image.open(suite.path / "page.tif").size == (2560, 3300)
    assert thumb("page[alpha]").size == (776, 1000)
    # One thumbnail per image, shared by the engines; the four copies of one TIFF share one.
    assert cases["page[alpha]"]["thumb"] == cases["page[beta]"]["thumb"]
    assert len({cases[f"{c}[alpha]"]["thumb"] for c in ("hello", "hostile", "fields", "named")}) == 1
    assert len(tree.root.find_all("script", type="text/plain")) == 2
    assert cases["named[alpha]"]["thumb"] is not None and cases["named[alpha]"]["image"] == HOSTILE_IMAGE
    assert cases["missing[alpha]"]["thumb"] is None
    assert cases["missing[alpha]"]["thumb_error"] == "image not found: nope.png"
    assert cases["corrupt[beta]"]["thumb"] is None
    assert cases["corrupt[beta]"]["thumb_error"].startswith("image could not be read: UnidentifiedImageError")


def test_summary_and_charts_show_the_reports_values(made):
    page, report, _ = made
    tree = Tree(page)
    table = tree.root.find("table", cls="summary")
    rows = {
        r.find_all("th")[0].text().split(" (")[0]: [td.text() for td in r.find_all("td")]
        for r in table.find("tbody").find_all("tr")
    }
    summary = report["summary"]
    assert rows["cases"] == ["7", "7"] and rows["failed"] == ["2", "1"] and rows["errors"] == ["2", "3"]
    for metric in ("cer", "wer", "field_f1"):
        for kind in ("macro", "micro"):
            assert rows[f"{metric} {kind}"] == [number(summary[e]["metrics"][metric][kind]) for e in ("alpha", "beta")]
    gates = [[td.text() for td in r.find_all("td")] for r in tree.root.find("table", cls="gates").find_all("tr")[1:]]
    assert gates == [
        ["FAILED" if not g["passed"] else "passed", g["name"], number(g["value"]), str(g["cases"]), g["message"]]
        for g in report["gates"]
    ]
    assert [g[0] for g in gates] == ["FAILED", "passed"]  # alpha's CER macro is above 1, beta's is 0
    charts = tree.root.find("section", cls="charts")
    svgs = charts.find_all("svg")
    # CER per item, by hand. alpha: hello 3/11, hostile > 1, fields 0, named 0, page 1/3 (abc -> abd);
    # beta: hello, fields, named and page all 0, hostile an error.
    bars = [t.text() for t in svgs[0].find_all("title")][1:]
    assert "alpha: 2 cases with CER 0" in bars and "alpha: 2 cases with CER 0.2–0.5" in bars
    assert "alpha: 1 case with CER >1" in bars and "beta: 4 cases with CER 0" in bars
    assert sum(int(t.split(": ")[1].split()[0]) for t in bars) == 5 + 4
    # Scatter: the four cases with a CER on both engines.
    scatter = charts.find("figure", cls="scatter")
    assert len(scatter.find_all("circle")) == 4
    assert scatter.find("figcaption").text().startswith("4 cases run on both")
    # CER macro per tag, from the report's groups; beta's only hostile item errored, so it has none.
    titles = [t.text() for t in svgs[-1].find_all("title")]
    assert "cer" not in summary["beta"]["groups"]["tag:hostile"]["metrics"]
    assert "beta tag:hostile: cer -" in titles
    for engine in ("alpha", "beta"):
        for key, group in summary[engine]["groups"].items():
            if "cer" in group["metrics"]:
                assert f"{engine} {key}: cer {number(group['metrics']['cer']['macro'])}" in titles


def test_the_script_inserts_data_as_text_only():
    script = (ASSETS / "report.js").read_text(encoding="utf-8")
    for sink in (
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
        "eval(",
        "Function(",
        'setTimeout("',
        "srcdoc",
        "createContextualFragment",
    ):
        assert sink not in script, sink


# -- the page in a browser -----------------------------------------------------------------------


def test_browser_draws_the_list_and_a_failed_case_with_its_diff_and_heat_map(made):
    page, report, suite = made
    path = suite.path / "out" / "report.html"
    scripts = len(Tree(page).root.find_all("script"))
    body = rendered(suite.path, path, "#case=" + HELLO)
    assert body.attrs["data-ocr-rendered"] == str(len(report["results"]))
    rows = body.find_all("tr", cls="case-row")
    assert [r.attrs["data-id"] for r in rows] == [r["id"] for r in report["results"]]
    detail = body.find("div", cls="detail")
    assert detail.attrs["data-case"] == HELLO
    diff = detail.find("table", cls="diff")
    ref_cell, hyp_cell = diff.find("tbody").find_all("td")
    # The hand alignment: reference H[e]llo w[o]rld·, recognized H[x]llo w·rld[!]
    assert [(s.attrs["class"], s.text()) for s in ref_cell.find_all("span")] == [
        ("d-eq", "H"),
        ("d-sub", "e"),
        ("d-eq", "llo w"),
        ("d-del", "o"),
        ("d-eq", "rld"),
        ("d-gap", "·"),
    ]
    assert [(s.attrs["class"], s.text()) for s in hyp_cell.find_all("span")] == [
        ("d-eq", "H"),
        ("d-sub", "x"),
        ("d-eq", "llo w"),
        ("d-gap", "·"),
        ("d-eq", "rld"),
        ("d-ins", "!"),
    ]
    # Heat map of this case: e->x, o->(missing), (extra)->!, once each.
    cells = {c.attrs["title"]: c.text() for c in detail.find_all("td", cls="hm-cell")}
    assert cells == {"e → x ×1": "1", "o → ∅ missing ×1": "1", "∅ extra → ! ×1": "1"}
    metrics = {
        r.find_all("td")[0].text(): [td.text() for td in r.find_all("td")[1:]]
        for r in detail.find("table", cls="metrics").find("tbody").find_all("tr")
    }
    assert metrics["cer"] == ["0.2727", "< 0.05", "failed"]  # 3 errors / 11 characters
    assert detail.find("img", cls="thumb").attrs["src"].startswith("data:image/jpeg;base64,")
    # The engines' heat maps on the overview: beta read every text it read right.
    maps = body.find("div", id="engine-confusions")
    assert maps.find("figure").find("figcaption").text() == "alpha"
    assert maps.find("p", cls="note").text() == "beta: no confusions."
    assert_nothing_injected(body, scripts)


def test_browser_shows_hostile_output_errors_and_fields_as_text(made):
    page, report, suite = made
    path = suite.path / "out" / "report.html"
    scripts = len(Tree(page).root.find_all("script"))

    body = rendered(suite.path, path, "#case=hostile.ocr.yaml::hostile[alpha]")
    detail = body.find("div", cls="detail")
    inserted = "".join(s.text() for s in detail.find("table", cls="diff").find_all("span", cls="d-ins"))
    # The prediction's tail, character for character, but the override made visible.
    assert inserted.replace("·", "") == (" " + HOSTILE).replace("\u202e", "\ufffd").replace("\u202c", "\ufffd")
    override = [s for s in detail.find_all("span", cls="d-ctl")]
    assert [s.attrs["title"] for s in override] == ["U+202E", "U+202C"]
    assert "\u202e" not in detail.text()
    assert detail.find("ul", cls="warnings").text() == HOSTILE.replace("\u202e", "\ufffd").replace("\u202c", "\ufffd")
    assert_nothing_injected(body, scripts)

    body = rendered(suite.path, path, "#case=hostile.ocr.yaml::hostile[beta]")
    detail = body.find("div", cls="detail")
    assert detail.find("pre", cls="error").text().startswith("twin:read raised RuntimeError: " + HOSTILE_ERROR)
    assert [p.text() for p in detail.find_all("p", cls="note")] == [
        "No recognized text: the item did not get that far.",
        "this case: no confusions.",
    ]
    assert_nothing_injected(body, scripts)

    body = rendered(suite.path, path, "#case=hostile.ocr.yaml::fields[alpha]")
    mismatch = body.find("table", cls="field-mismatches").find("tbody").find("tr")
    assert [td.text() for td in mismatch.find_all("td")] == [
        "date",
        "incorrect",
        "2020-01-01",
        HOSTILE_FIELD,
        "casefold",
    ]
    assert_nothing_injected(body, scripts)

    body = rendered(suite.path, path, "#case=hostile.ocr.yaml::missing[alpha]")
    placeholder = body.find("div", cls="placeholder")
    assert placeholder.text() == "image unavailableimage not found: nope.png"
    assert "image not found" in body.find("pre", cls="error").text()


def test_browser_filters_by_outcome_engine_and_text(made):
    _, report, suite = made
    path = suite.path / "out" / "report.html"
    body = rendered(suite.path, path, "#outcome=failed")
    failed = [r["id"] for r in report["results"] if r["outcome"] == "failed"]
    assert [r.attrs["data-id"] for r in body.find_all("tr", cls="case-row")] == failed
    body = rendered(suite.path, path, "#engine=beta&outcome=error")
    assert [r.attrs["data-id"] for r in body.find_all("tr", cls="case-row")] == [
        r["id"] for r in report["results"] if r["engine"] == "beta" and r["outcome"] == "error"
    ]
    body = rendered(suite.path, path, "#q=wrld")  # searches the recognized texts too
    assert [r.attrs["data-id"] for r in body.find_all("tr", cls="case-row")] == [HELLO]


def test_browser_screenshots_show_the_diff_colours_and_the_charts(made):
    _, _, suite = made
    path = suite.path / "out" / "report.html"
    shots = {}
    for name, fragment in (("case", "#case=" + HELLO), ("overview", "")):
        shot = suite.path / f"{name}.png"
        proc = chromium(suite.path, path.as_uri() + fragment, f"--screenshot={shot}", "--window-size=1280,2000")
        assert console(proc) == []
        shots[name] = Image.open(shot).convert("RGB")
    for image in shots.values():
        assert image.size == (1280, 2000)
        assert len(image.getcolors(maxcolors=1 << 20)) > 200  # text, thumbnails, charts: not a blank page

    def pixels(image: Image.Image, colour: tuple[int, int, int]) -> int:
        return sum(
            n
            for n, rgb in image.getcolors(maxcolors=1 << 20)
            if max(abs(a - b) for a, b in zip(rgb, colour, strict=True)) <= 2
        )

    for name, colour in DIFF_COLOURS.items():
        assert pixels(shots["case"], colour) >= 50, name
    for engine, colour in ENGINE_COLOURS.items():
        assert pixels(shots["overview"], colour) >= 500, engine


def test_a_filtered_item_renders_with_its_reason(made, tmp_path):
    # The report's fourth outcome (confidence below a dataset's conf_threshold), in the shape the
    # plugin records it: no metrics, the reason in `error`, counted per engine in the summary.
    _, report, suite = made
    run = RunRecord.from_document(report)
    reason = "filtered: confidence 0.4000 is below 0.5 (conf_threshold)"
    run.results = [
        dataclasses.replace(r, outcome="filtered", error=reason, confidence=0.4, metrics={}, details={}, checks=[])
        if r.id == "hostile.ocr.yaml::page[beta]"
        else r
        for r in run.results
    ]
    run.summaries = summarize(run.results)
    record = {"id": "hostile.ocr.yaml::page[beta]"}
    target = tmp_path / "filtered.html"
    target.write_text(html_page.render(run, suite.path), encoding="utf-8")
    tree = Tree(target.read_text(encoding="utf-8"))
    rows = {
        r.find_all("th")[0].text(): [td.text() for td in r.find_all("td")]
        for r in tree.root.find("table", cls="summary").find("tbody").find_all("tr")
    }
    assert rows["filtered"] == ["0", "1"]
    assert tree.root.find("span", cls="filtered").text() == "1 filtered"
    body = rendered(tmp_path, target, "#outcome=filtered&case=" + record["id"])
    assert [r.attrs["data-id"] for r in body.find_all("tr", cls="case-row")] == [record["id"]]
    box = body.find("div", cls="filtered-box")
    assert box.find("h4").text() == "Not evaluated" and box.find("pre").text() == reason


def test_a_script_error_leaves_no_rendered_marker(made, tmp_path):
    # The marker the browser tests rely on really goes missing when the script fails.
    page, _, _ = made
    broken = tmp_path / "broken.html"
    broken.write_text(page.replace('id="ocr-data">{', 'id="ocr-data">{{', 1), encoding="utf-8")
    proc = chromium(tmp_path, broken.as_uri(), "--dump-dom")
    body = Tree(proc.stdout).root.find("body")
    assert "data-ocr-rendered" not in body.attrs
    assert body.attrs["data-ocr-error"].startswith("Uncaught SyntaxError")
    assert any("Uncaught SyntaxError" in line for line in console(proc))


def test_the_content_security_policy_stops_injected_markup(made, tmp_path):
    # Defence in depth: were some text ever left unescaped, the policy would keep it from running.
    page, _, _ = made
    injected = tmp_path / "injected.html"
    injected.write_text(
        page.replace(
            "<main>",
            "<main><img src=x onerror=\"document.body.setAttribute('data-pwned', 1)\">"
            "<script>document.body.setAttribute('data-pwned', 2)</script>",
            1,
        ),
        encoding="utf-8",
    )
    proc = chromium(tmp_path, injected.as_uri(), "--dump-dom")
    body = Tree(proc.stdout).root.find("body")
    assert "data-pwned" not in body.attrs
    assert body.attrs["data-ocr-rendered"] == "14"  # the page's own script still ran
    assert sum("Content Security Policy" in line for line in console(proc)) >= 2
