"""Hostile formulas scored by OmniDocBench's CDM, in a real pytest session under a memory limit and a timeout.

A formula CDM's tokenizer cannot parse (here: an unbalanced ``\\left(``) reaches xelatex as written, so TeX's own
commands could read any file: ``\\input{~/F}`` and ``\\input{$HOME/F}`` (kpathsea expands them after its
openin_any check), ``\\special{pdf:image ...}`` and ``pdf:fstream`` (read by xdvipdfmx, which ignores openin_any),
XeTeX's ``\\font\\z="[/path]"``, and the same ``\\input`` spelled with ``^^5c`` or built by ``\\csname``. Each
variant here made OmniDocBench's CDM (and pytest-ocr's before) score differently with the file present and
absent, so an engine's output learned whether a file exists on the CI machine. Now: the same value both ways,
a warning naming the command, no syscall on the files (strace), and the good formulas score as before.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import PYTEST, run_bounded
from helpers.hostile import good_image
from PIL import Image

pytestmark = pytest.mark.slow

WHY = "which CDM does not typeset (it typesets math and text commands only)"


def _tricks(home: Path, elsewhere: Path) -> dict[str, tuple[str, str, str]]:
    """Per page: the ground truth, the engine's formula (behind an unbalanced \\left( the tokenizer gives up on),
    and the reason the formula is not typeset now."""
    return {
        "input_tilde": (r"\left( x \Omega", r"\left( x \input{~/F.tex}", rf"uses \input, {WHY}"),
        "input_home": (r"\left( x \Omega", r"\left( x \input{$HOME/F.tex}", rf"uses \input, {WHY}"),
        "hat_notation": (
            r"\left( x \Omega",
            r"\left( x ^^5cinput{~/F.tex}",
            "holds ^^, TeX's notation for a character by its code (it can spell any command)",
        ),
        "csname": (r"\left( x \Omega", r"\left( x \csname\ifx..input\fi\endcsname{~/F.tex}", rf"uses \csname, {WHY}"),
        "special_image": (
            r"\left( x y",
            rf"\left( x \special{{pdf:image({elsewhere}/img.pdf)}} y",
            rf"uses \special, {WHY}",
        ),
        "special_fstream": (
            r"\left( x y",
            rf"\left( x \special{{pdf:fstream\space@x\space({elsewhere}/stream)\space"
            r"<</Type/XObject/Subtype/Form/BBox[0\space0\space200\space200]>>}\special{pdf:uxobj\space@x} y",
            rf"uses \special, {WHY}",
        ),
        "font_path": (
            r"\left( x A",
            rf'\left( x \hbox{{\font\z="[{elsewhere}/font.otf]"at50pt\z{{}}A}}',
            rf"uses \font, {WHY}",
        ),
    }


# formulas that are typeset: an ordinary one, and one with a command TeX has no meaning for (it typesets x + y,
# as OmniDocBench's xelatex does): the values of tests/data/omnidocbench/cdm_expected.json's pairs
GOOD = {
    "ordinary": (r"\frac{a}{b} + \alpha^{2}", r"\frac{a}{b} + \alpha^{2}", 1.0),
    "unknown_macro": ("x + y", r"\foo{x} + y", 1.0),
}


def _page(name: str, gt: str) -> dict:
    formula = {"category_type": "equation_isolated", "poly": [10, 10, 300, 10, 300, 60, 10, 60], "ignore": False}
    formula |= {"order": 1, "anno_id": 0, "latex": gt, "attribute": {"formula_type": "print"}}
    info = {"image_path": f"{name}.png", "page_attribute": {}}
    return {"layout_dets": [formula], "page_info": info, "extra": {"relation": []}}


def _canaries(home: Path, elsewhere: Path) -> list[Path]:
    """The files a formula reads if it can: TeX at HOME, a PDF, a stream and a font at an absolute path."""
    home.mkdir()
    elsewhere.mkdir()
    (home / "F.tex").write_text("\\Omega", encoding="utf-8")
    Image.new("L", (40, 40), 0).save(elsewhere / "img.pdf")
    (elsewhere / "stream").write_text("0 0 0 rg 0 0 150 150 re f", encoding="utf-8")
    font = subprocess.run(["kpsewhich", "lmroman10-regular.otf"], capture_output=True, text=True, check=True)
    shutil.copy(font.stdout.strip(), elsewhere / "font.otf")
    return [home / "F.tex", elsewhere / "img.pdf", elsewhere / "stream", elsewhere / "font.otf"]


# Runs pytest under strace (python -m traced ARGS), every file syscall of every process it starts logged.
TRACED = f"""
import os, sys
argv = ["strace", "-f", "-qq", "-e", "trace=%file", "-o", "strace.log", sys.executable, "-m", *{list(PYTEST)!r}]
os.execvp("strace", argv + sys.argv[1:])
"""


def test_a_formula_reads_no_file_and_scores_the_same_whether_it_exists(tmp_path: Path) -> None:
    root, home, elsewhere = tmp_path / "session", tmp_path / "home", tmp_path / "elsewhere"
    canaries = _canaries(home, elsewhere)
    tricks = _tricks(home, elsewhere)
    bench = root / "bench"
    (bench / "images").mkdir(parents=True)
    (bench / "vlm").mkdir()
    pages = []
    for name, (gt, pred, *_) in {**tricks, **GOOD}.items():
        good_image(bench / "images", f"{name}.png")
        (bench / "vlm" / f"{name}.md").write_text(f"$${pred}$$\n", encoding="utf-8")
        pages.append(_page(name, gt))
    (bench / "pages.json").write_text(json.dumps(pages), encoding="utf-8")
    (root / "bench.ocr.yaml").write_text(
        "dataset: {type: omnidocbench, path: bench}\ndefaults: {metrics: [odb_formula_cdm]}\n", encoding="utf-8"
    )
    (root / "traced.py").write_text(TRACED, encoding="utf-8")
    env = {"HOME": str(home)}

    seen = {}
    for present in (True, False):
        if not present:
            for canary in canaries:
                canary.unlink()
        done = run_bounded(
            root, "--ocr-report", "report.json", env=env, timeout=400, command=("traced",) if present else PYTEST
        )
        assert done.returncode == 0, done.output[-3000:]
        results = {Path(r["image"]).stem: r for r in done.report(root)["results"]}
        seen[present] = {name: (r["metrics"]["odb_formula_cdm"], r["warnings"]) for name, r in results.items()}
        assert done.max_rss_mb < 600, done.max_rss_mb
        assert done.seconds < 300, done.seconds
        if present:
            trace = (root / "strace.log").read_text(encoding="utf-8", errors="replace")
            assert "xelatex" in trace and "gs" in trace  # the tools ran, traced
            # no process opened, stat'ed or listed them (HOME itself is looked at: Python's site does)
            assert str(home / "F.tex") not in trace and str(elsewhere) not in trace
            for canary in canaries:
                assert canary.exists()

    assert seen[True] == seen[False]  # the file's existence makes no difference
    for name, (_, _, why) in tricks.items():
        assert seen[True][name] == (0.0, [f"CDM scored display formula 1 0: the predicted formula {why}"]), name
    for name, (_, _, value) in GOOD.items():
        assert seen[True][name] == (value, []), name
    warning = f"CDM scored display formula 1 0: the predicted formula uses \\input, {WHY}"
    assert f"  bench.ocr.yaml::input_tilde[vlm]: {warning}" in done.output.splitlines()


def test_a_page_past_its_cdm_time_is_an_error_saying_so(tmp_path: Path) -> None:
    """--ocr-max-cdm-s bounds a page's CDM: past it the item is an error in one line (a value of some of its
    formulas would be no score of the page), and a page without formulas still passes."""
    bench = tmp_path / "bench"
    (bench / "images").mkdir(parents=True)
    (bench / "vlm").mkdir()
    formulas = _page("formulas", r"\frac{a}{b}")
    formulas["layout_dets"].append({**formulas["layout_dets"][0], "anno_id": 1, "order": 2, "latex": "x^{2}"})
    text = {"category_type": "text_block", "poly": [10, 10, 300, 10, 300, 60, 10, 60], "ignore": False}
    text |= {"order": 1, "anno_id": 0, "text": "Hello world", "attribute": {}}
    prose = _page("prose", "") | {"layout_dets": [text]}
    for name, output in (("formulas", "$$\\frac{a}{b}$$\n\n$$x^{2}$$\n"), ("prose", "Hello world\n")):
        good_image(bench / "images", f"{name}.png")
        (bench / "vlm" / f"{name}.md").write_text(output, encoding="utf-8")
    (bench / "pages.json").write_text(json.dumps([formulas, prose]), encoding="utf-8")
    (tmp_path / "bench.ocr.yaml").write_text(
        "dataset: {type: omnidocbench, path: bench}\ndefaults: {metrics: [odb_text_edit, odb_formula_cdm]}\n",
        encoding="utf-8",
    )

    done = run_bounded(tmp_path, "--ocr-report", "report.json", "--ocr-max-cdm-s", "0.001", timeout=120)

    assert done.returncode == 1, done.output[-3000:]
    results = {Path(r["image"]).stem: r for r in done.report(tmp_path)["results"]}
    message = (
        "CDM of the page's 2 display formulas took more than 0.001 s before formula 1 was scored; the page is not "
        "scored (--ocr-max-cdm-s sets the bound)"
    )
    assert results["formulas"]["outcome"] == "error"
    assert results["formulas"]["error"].endswith(message), results["formulas"]["error"]
    lines = done.output.splitlines()
    assert message in lines and f"  bench.ocr.yaml::formulas[vlm]: {message}" in lines, done.output[-3000:]
    assert "Traceback" not in done.output
    assert results["prose"]["outcome"] == "passed"
    assert results["prose"]["metrics"]["odb_text_edit"] == 0.0
    assert done.max_rss_mb < 600, done.max_rss_mb
    assert done.seconds < 60, done.seconds
