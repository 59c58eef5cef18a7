"""CDM (Character Detection Matching) of two LaTeX formulas, as OmniDocBench v1.5 computes it.

Ported from OmniDocBench (pichiu/OmniDocBench at commit 7bd6c2ebdb7676e6fd251b0e695e15e09cf3ab5d, Apache-2.0):
``metrics/cdm_metric.py`` (``CDM.evaluate``), ``metrics/cdm/modules/latex2bbox_color.py``,
``metrics/cdm/modules/visual_matcher.py`` and ``metrics/cal_metric.py``'s ``_process_single_cdm_sample`` (the
delimiters it strips). Each formula is tokenized by CDM's Node.js tokenizer (vendored in ``cdm_js/``), every token
coloured, typeset by xelatex, rasterised at 200 dpi, and each colour's bounding box found; the boxes of the two
formulas are matched (Hungarian assignment on token, position and order costs, then RANSAC with seed 42 drops
matches off the common layout), and F1, recall and precision of matched tokens are rounded to 3 decimals.

Where the original differs from what runs here, with the same pixels and values:
  * ImageMagick's ``magick -density 200 -quality 100 x.pdf x.png`` is Ghostscript run with the arguments
    ImageMagick 6 gives it (``-sDEVICE=pngalpha -r200x200 -dTextAlphaBits=4 -dGraphicsAlphaBits=4 ...``): the same
    pixels, without ImageMagick (Debian's forbids reading PDF) or its ``magick``/``convert`` naming.
  * scikit-image's ``ransac`` (0.20, the last version CDM runs on: later ones have no ``random_state`` and every CDM
    with more than 3 matched tokens silently scores 0) is ported with the one model CDM uses.
  * Node's tokenizer has a timeout here (the original waits forever); xelatex and Ghostscript have the original's
    30 s. A tool that times out, cannot be started or crashes (killed by a signal, or an exit status above 128, the
    shell's way of saying so) raises :class:`CdmToolFailed` naming the tool and the formula, where the original
    scores the pair 0 (xelatex, Ghostscript) or renders the formula untokenized (Node): a score that depends on
    the machine's load or health is no score. A tool's ordinary failure (xelatex's errors, the tokenizer's parse
    error) is the original's, zeros or its fallback.
  * A formula is untrusted text, and TeX's commands read files (OmniDocBench typesets a formula its tokenizer
    cannot parse as written: ``\\input{~/F}``, ``\\special{pdf:image (/F)}``, ``\\font\\x="[/F]"`` were read, and
    the score told whether F existed). A formula is typeset only when every command in it is a math or text
    command of a fixed list, or one TeX has no meaning for (cdm_allowed.py says which, and why); any other pair
    scores 0, and ``failure`` names the command. The tools run in the pair's directory with an environment of
    their own: ``PATH``, and ``HOME`` and the temporary directories there (kpathsea expands ``~`` and ``$HOME``),
    no ``TEXINPUTS`` or other variable of the caller's, kpathsea's ``openin_any=p``, ``openout_any=p`` and
    ``shell_escape=f``, and xelatex's ``-no-shell-escape``. Only such formulas can score differently.
  * A deadline (``cdm(..., deadline=)``, the page's ``--ocr-max-cdm-s`` in a run) bounds the tools' time:
    past it :class:`CdmOutOfTime` is raised, as a tool's timeout raises :class:`CdmToolFailed`.
  * OmniDocBench answers every failure (tokenizer, xelatex, an empty side, no box found) with zeros and says
    nothing; here the zeros come with ``failure`` saying why.

Needs xelatex with xeCJK, Ghostscript and Node.js: on Debian ``apt-get install --no-install-recommends
texlive-xetex texlive-lang-cjk texlive-lang-chinese ghostscript nodejs``. OmniDocBench's template asks for the font
Source Han Sans SC, which Debian does not package: CJK characters render as nothing here (as on any machine without
that font) and score differently; Latin, Greek and mathematical symbols are unaffected. A character that rendered
as nothing is named (``missing_glyphs``), so the item can say its score depends on the machine's fonts. Debian's
recommended packages (more CJK fonts, none of them that one) change no value: measured on 64 pairs.
"""

from __future__ import annotations

import functools
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from ...errors import OcrError, shortened
from ...subprocesses import OutputTooLarge, run
from ...visible import visible
from . import cdm_allowed, cdm_latex

JS_DIR = Path(__file__).parent / "cdm_js"
TOOL_TIMEOUT = 30.0  # the original's run_cmd timeout for xelatex and ImageMagick
MAX_OUTPUT = 16 * 1024 * 1024  # bytes a tool may print (xelatex stops after 100 errors; far below this)
DEBIAN_PACKAGES = "texlive-xetex texlive-lang-cjk texlive-lang-chinese ghostscript nodejs"
# the LaTeX packages of CDM's template that texlive-xetex alone lacks: a missing one makes every formula fail
TEMPLATE_FILES = ("xeCJK.sty", "ctexhook.sty", "upgreek.sty")

MAX_ITER, MIN_SAMPLES, RESIDUAL_THRESHOLD, MAX_TRIALS = 3, 3, 25, 50  # CDM.__init__
COST_TOKEN, COST_POSITION, COST_ORDER = 1, 0.05, 0.15  # HungarianMatcher's defaults


class CdmToolMissing(OcrError):
    """xelatex, Ghostscript, Node.js or a LaTeX package of CDM's template is not installed."""


class CdmToolFailed(OcrError):
    """A tool CDM runs timed out, could not be started or crashed: the pair has no score."""


class CdmOutOfTime(OcrError):
    """The deadline CDM was given passed before the pair was scored: it has no score."""


@dataclass(frozen=True)
class CdmResult:
    """One formula pair's CDM. ``f1`` is OmniDocBench's ``F1_score``: 2·matched / (gt_tokens + pred_tokens),
    like ``recall`` and ``precision`` rounded to 3 decimals as the original rounds them."""

    f1: float
    recall: float
    precision: float
    gt_tokens: int  # tokens of the ground truth found in its rendering
    pred_tokens: int
    matched: int
    failure: str | None = None  # why the pair scored 0 without being compared (the original says nothing)
    # characters xelatex had no glyph for in the template's fonts (CJK without Source Han Sans SC): they rendered
    # as nothing, so the pair scores differently on a machine that has the font
    missing_glyphs: tuple[str, ...] = ()


def strip_delimiters(gt: str, pred: str) -> tuple[str, str]:
    """port of cal_metric.py: _process_single_cdm_sample, what it does to the pair before CDM.evaluate
    (its ``lstrip("$$")`` strips every leading ``$``, as ``lstrip("$")`` does, then ``strip()`` and the same
    again; ``\\[ \\]`` and ``\\( \\)`` stay)."""
    gt = gt.lstrip("$").rstrip("$").strip()
    gt = gt.lstrip("$").rstrip("$").strip()
    pred = pred.split("```latex")[-1].split("```")[0]
    pred = pred.lstrip("$").rstrip("$").strip()
    pred = pred.lstrip("$").rstrip("$").strip()
    return gt, pred


def cdm(gt_latex: str, pred_latex: str, *, timeout: float = TOOL_TIMEOUT, deadline: float | None = None) -> CdmResult:
    """CDM of a predicted formula against the ground truth, as OmniDocBench's end-to-end evaluation scores a
    matched display formula (its delimiters stripped first, see :func:`strip_delimiters`). ``timeout``: each
    tool's time; ``deadline``: a ``time.monotonic()`` past which :class:`CdmOutOfTime` is raised."""
    tools = _tools()
    gt_latex, pred_latex = strip_delimiters(gt_latex, pred_latex)
    missing: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="pytest-ocr-cdm-") as directory:
        work = Path(directory)
        bounds = _Bounds(timeout, deadline)
        try:
            box_gt, size_gt = _rendered(gt_latex, "ground-truth", work / "gt", tools, bounds, missing)
            box_pred, size_pred = _rendered(pred_latex, "predicted", work / "pred", tools, bounds, missing)
            inliers = _match_boxes(box_gt, box_pred, size_gt, size_pred)
        except _Failure as failure:
            return CdmResult(0, 0, 0, 0, 0, 0, failure=str(failure), missing_glyphs=tuple(sorted(missing)))
    final_match_num = int(np.count_nonzero(inliers))
    return CdmResult(
        f1=round(2 * final_match_num / (len(box_gt) + len(box_pred)), 3),
        recall=round(final_match_num / len(box_gt), 3),
        precision=round(final_match_num / len(box_pred), 3),
        gt_tokens=len(box_gt),
        pred_tokens=len(box_pred),
        matched=final_match_num,
        missing_glyphs=tuple(sorted(missing)),
    )


class _Failure(Exception):
    """A step at which OmniDocBench's evaluate() ends in its ``except:`` and returns zeros."""


class _Refused(Exception):
    """The formula may not be typeset (cdm_allowed.py): the pair scores 0, saying why."""


@dataclass(frozen=True)
class _Bounds:
    timeout: float  # each tool's
    deadline: float | None  # time.monotonic() past which the pair is not scored


def _rendered(
    latex: str, side: str, work: Path, tools: _Tools, bounds: _Bounds, missing: set[str]
) -> tuple[list[dict[str, Any]], tuple[int, int]]:
    try:
        return _render(latex, work, tools, bounds, missing)
    except CdmToolFailed as exc:
        raise CdmToolFailed(f"CDM: {exc} on the {side} formula {visible(shortened(latex, 80))!r}") from exc
    except _Refused as exc:
        raise _Failure(f"the {side} formula {exc}") from exc


@dataclass(frozen=True)
class _Tools:
    xelatex: str
    gs: str
    node: str


@functools.lru_cache(maxsize=1)
def _tools() -> _Tools:
    found = {name: shutil.which(name) for name in ("xelatex", "gs", "node", "kpsewhich")}
    missing = [name for name, path in found.items() if path is None]
    if not missing:
        with tempfile.TemporaryDirectory(prefix="pytest-ocr-cdm-") as directory:
            argv = [str(found["kpsewhich"]), *TEMPLATE_FILES]
            try:
                located = _run(argv, Path(directory), _Bounds(TOOL_TIMEOUT, None)).stdout
                located = located.decode("utf-8", "replace").split()
            except CdmToolFailed as exc:
                raise CdmToolMissing(f"CDM could not look for its LaTeX packages: {exc}") from exc
        missing = [name for name in TEMPLATE_FILES if not any(path.endswith("/" + name) for path in located)]
    if missing:
        raise CdmToolMissing(
            f"CDM (OmniDocBench's formula metric) needs xelatex with xeCJK, Ghostscript and Node.js; missing: "
            f"{', '.join(missing)}. On Debian or Ubuntu: apt-get install --no-install-recommends {DEBIAN_PACKAGES}"
        )
    return _Tools(xelatex=str(found["xelatex"]), gs=str(found["gs"]), node=str(found["node"]))


def _environment(directory: Path) -> dict[str, str]:
    """What a tool sees of the environment: PATH (xelatex runs xdvipdfmx), and its home, temporary and cache
    directories in ``directory`` (kpathsea expands ``~`` and ``$HOME`` in a name after its openin_any check;
    run_cmd sets the temporary ones too). No TEXINPUTS, TEXMFCNF, NODE_OPTIONS, GS_LIB... of the caller's."""
    env = {"PATH": os.environ.get("PATH", os.defpath)}
    for name in ("HOME", "TMPDIR", "TMP", "TEMP", "TEXMFCACHE", "TEXMFVAR", "TEXMFCONFIG"):
        env[name] = str(directory)
    # kpathsea: TeX opens no file by an absolute or parent path outside its tree, writes none, runs nothing
    env.update(openin_any="p", openout_any="p", shell_escape="f")
    return env


def _run(argv: list[str], cwd: Path, bounds: _Bounds, stdin: Path | None = None) -> subprocess.CompletedProcess:
    """A tool in the pair's private directory (see :func:`_environment`), within its timeout and the deadline."""
    tool = Path(argv[0]).name
    timeout = bounds.timeout
    if bounds.deadline is not None:
        timeout = min(timeout, bounds.deadline - time.monotonic())
        if timeout <= 0:
            raise CdmOutOfTime(f"CDM's deadline passed before {tool} could run")
    try:
        done = run(argv, timeout=timeout, cwd=cwd, env=_environment(cwd), max_stdout=MAX_OUTPUT, stdin=stdin)
    except subprocess.TimeoutExpired as exc:
        if timeout < bounds.timeout:
            raise CdmOutOfTime(f"CDM's deadline passed while {tool} ran") from exc
        raise CdmToolFailed(f"{tool} took more than {timeout:g} s") from exc
    except OutputTooLarge as exc:
        raise CdmToolFailed(f"{tool} printed more than {MAX_OUTPUT} bytes") from exc
    except OSError as exc:
        raise CdmToolFailed(f"{tool} could not be started: {exc}") from exc
    if done.returncode < 0 or done.returncode > 128:  # a signal, or a shell (a wrapper script) reporting one
        number = -done.returncode if done.returncode < 0 else done.returncode - 128
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        raise CdmToolFailed(f"{tool} crashed (exit status {done.returncode}: {name})")
    return done


def _tokenize(latex: str, work: Path, tools: _Tools, bounds: _Bounds) -> tuple[bool, str]:
    """port of tokenize_latex.py: tokenize_latex (``ret`` and the tokenized text)"""
    if not latex:
        return False, latex
    tabular = "tabular" in latex
    if tabular:
        script, mode, text = "preprocess_tabular.js", "tokenize", cdm_latex.tabular_tokenizer_input(latex)
    else:
        script, mode, text = "preprocess_formula.js", "normalize", cdm_latex.formula_tokenizer_input(latex)
    source = work / "formula.txt"
    source.write_text(text, encoding="utf-8")
    done = _run([tools.node, str(JS_DIR / script), mode], work, bounds, stdin=source)
    if done.returncode != 0:
        return False, latex
    # read as the original reads its output file: text mode, universal newlines, the last line counts
    lines = list(io.StringIO(done.stdout.decode("utf-8"), newline=None))
    post = cdm_latex.tabular_tokenizer_output(lines) if tabular else cdm_latex.formula_tokenizer_output(lines)
    return True, post


def _render(
    latex: str, work: Path, tools: _Tools, bounds: _Bounds, missing: set[str]
) -> tuple[list[dict[str, Any]], tuple[int, int]]:
    """port of latex2bbox_color.py: latex2bbox_color, then CDM._load_bboxes and _load_images: the tokens that
    have a box, each ``{"bbox": [x0, y0, x1, y1], "token": ...}``, and the cropped picture's size. The
    characters xelatex found no glyph for are added to ``missing``. A formula cdm_allowed.py refuses raises
    :class:`_Refused` before xelatex sees it."""
    work.mkdir()
    try:
        latex = latex.replace("\n", " ")
        latex = latex.replace("\\%", "<PERCENTAGETOKEN>")
        ret, new_latex = _tokenize(latex, work, tools, bounds)
        if not (ret and new_latex):
            new_latex = latex
        new_latex = new_latex.replace("< P E R C E N T A G E T O K E N >", "\\%")
        formula, token_list, color_list = cdm_latex.coloured_formula(cdm_latex.normalize_latex(new_latex))
    except (_Failure, CdmToolFailed, CdmOutOfTime):
        raise
    except Exception as exc:  # the original's "Preprocess latex failed": no boxes are written
        raise _Failure(f"the formula could not be prepared for rendering ({type(exc).__name__}: {exc})") from exc
    _check(formula, work, tools, bounds)  # the text xelatex gets, after every change CDM made to it
    tex = work / "formula.tex"
    tex.write_text(cdm_latex.document(formula, len(token_list)), encoding="utf-8")
    _run([*_xelatex(tools, work), tex.name], work, bounds)
    missing.update(_missing_glyphs(work / "formula.log"))
    pdf = work / "formula.pdf"
    if not pdf.exists():
        raise _Failure("xelatex made no PDF of the formula")
    gs_argv = [
        tools.gs,
        "-sstdout=%stderr",
        "-dQUIET",
        "-dSAFER",
        "-dBATCH",
        "-dNOPAUSE",
        "-dNOPROMPT",
        "-dMaxBitmap=500000000",
        "-dAlignToPixels=0",
        "-dGridFitTT=2",
        "-sDEVICE=pngalpha",
        "-dTextAlphaBits=4",
        "-dGraphicsAlphaBits=4",
        "-r200x200",
        f"-sOutputFile={work / 'page-%d.png'}",
        "-f",
        str(pdf),
    ]
    _run(gs_argv, work, bounds)
    pages = sorted(work.glob("page-*.png"))
    if len(pages) != 1:  # ImageMagick names pages x-0.png, x-1.png...: the x.png the original opens is missing
        raise _Failure(f"the formula was rendered on {len(pages)} pages, not 1")
    image = _crop(Image.open(pages[0]))
    bbox_list = _colour_boxes(image, color_list)
    boxes = [{"bbox": box, "token": token} for token, box in zip(token_list, bbox_list, strict=False) if box]
    return boxes, image.size


def _xelatex(tools: _Tools, work: Path) -> list[str]:
    # the file is then named relatively: openin_any=p refuses absolute paths
    return [tools.xelatex, "-no-shell-escape", "-interaction=nonstopmode", f"-output-directory={work}"]


# Whether TeX has a meaning for a name in CDM's template (cdm_allowed.Unknown: name, spelled), asked once per
# process; forgotten past DEFINED_KEPT names (outputs full of made-up names would grow it without end).
_DEFINED: dict[tuple[str, bool], bool] = {}
DEFINED_KEPT = 10_000


def _check(formula: str, work: Path, tools: _Tools, bounds: _Bounds) -> None:
    """Raises :class:`_Refused` unless every command in the formula's text is on cdm_allowed's lists or one
    TeX has no meaning for in the template (asked of xelatex, in place of the formula)."""
    scanned = cdm_allowed.scan(formula)
    if scanned.refused is not None:
        raise _Refused(scanned.refused)
    defined = {(u.name, u.spelled): _DEFINED.get((u.name, u.spelled)) for u in scanned.unknown}
    asked = [u for u in scanned.unknown if defined[(u.name, u.spelled)] is None]
    if asked:
        probe = work / "probe.tex"
        probe.write_text(cdm_latex.document(cdm_allowed.probe_body(asked), 0), encoding="utf-8")
        done = _run([*_xelatex(tools, work), "-no-pdf", probe.name], work, bounds)
        undefined = cdm_allowed.undefined_in_probe(done.stdout.decode("utf-8", "replace"))
        if len(_DEFINED) + len(asked) > DEFINED_KEPT:
            _DEFINED.clear()
        for index, unknown in enumerate(asked):
            defined[(unknown.name, unknown.spelled)] = index not in undefined
            _DEFINED[(unknown.name, unknown.spelled)] = index not in undefined
    for unknown in scanned.unknown:
        if defined[(unknown.name, unknown.spelled)]:
            raise _Refused(
                f"uses {visible(shortened(unknown.shown))}, which CDM does not typeset "
                "(it typesets math and text commands only)"
            )


# xelatex's two ways of saying it typeset nothing for a character: in text, and in math (CJKmath=true)
MISSING_IN_TEXT = re.compile(r"^Missing character: There is no .+? \(U\+([0-9A-F]{4,6})\)", re.MULTILINE)
MISSING_IN_MATH = re.compile(
    r"^! \\(?:text|script|scriptscript)font \d+ is undefined \(character (.)\)\.$", re.MULTILINE
)


def _missing_glyphs(log: Path) -> set[str]:
    """The characters xelatex's log says it had no glyph for (it typesets nothing for them)."""
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            text = f.read(MAX_OUTPUT)
    except OSError:  # no log: xelatex failed before it wrote one, which the missing PDF reports
        return set()
    codes = {int(code, 16) for code in MISSING_IN_TEXT.findall(text)}
    return {chr(code) for code in codes if code <= sys.maxunicode} | set(MISSING_IN_MATH.findall(text))


def _crop(image: Image.Image, pad: int = 8) -> Image.Image:
    """port of latex2bbox_color.py: crop_image (a blank page is cropped to a 26-pixel square, black outside)"""
    ink = np.where(np.asarray(image.convert("L"), dtype=np.uint8) != 255)
    if len(ink[0]) == 0:
        y_min, y_max, x_min, x_max = 0, 10, 0, 10
    else:
        y_min, y_max, x_min, x_max = int(ink[0].min()), int(ink[0].max()), int(ink[1].min()), int(ink[1].max())
    return image.convert("RGB").crop((x_min - pad, y_min - pad, x_max + pad, y_max + pad))


def _colour_boxes(image: Image.Image, color_list: Sequence[tuple[int, int, int]]) -> list[list[int]]:
    """port of latex2bbox_color.py: extrac_bbox_from_color_image: for each colour the box around its pixels,
    one pixel wider on each side, or [] when no pixel has it."""
    rgb = np.asarray(image, dtype=np.int32)
    codes = (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]
    bbox_list: list[list[int]] = []
    for red, green, blue in color_list:
        ys, xs = np.nonzero(codes == (red << 16) | (green << 8) | blue)
        if len(ys) == 0:
            bbox_list.append([])
        else:
            bbox_list.append([int(xs.min()) - 1, int(ys.min()) - 1, int(xs.max()) + 1, int(ys.max()) + 1])
    return bbox_list


# --- matching: port of visual_matcher.py and cdm_metric.py: CDM._match_boxes ---------------------------------------

_NORM_SPECIAL = {
    "\\cdot": ".",
    "\\mid": "|",
    "\\to": "\\rightarrow",
    "\\top": "T",
    "\\Tilde": "\\tilde",
    "\\cdots": "\\dots",
    "\\prime": "'",
    "\\ast": "*",
    "\\left<": "\\langle",
    "\\right>": "\\rangle",
}


def norm_same_token(token: str) -> str:
    """port of visual_matcher.py: norm_same_token"""
    token = _NORM_SPECIAL.get(token, token)
    if token.startswith("\\left") or token.startswith("\\right"):
        token = token.replace("\\left", "").replace("\\right", "")
    if token.startswith("\\big") or token.startswith("\\Big"):
        token = "\\" + token[4:].split("\\")[-1] if "\\" in token[4:] else token[-1]
    if token in ["\\leq", "\\geq"]:
        return token[0:-1]
    if token in ["\\lVert", "\\rVert", "\\Vert"]:
        return "\\|"
    if token in ["\\lvert", "\\rvert", "\\vert"]:
        return "|"
    if token.endswith("rightarrow"):
        return "\\rightarrow"
    if token.endswith("leftarrow"):
        return "\\leftarrow"
    if token.startswith("\\wide"):
        return token.replace("wide", "")
    if token.startswith("\\var"):
        return token.replace("\\var", "")
    return token


def _token_cost(box_gt: list[dict[str, Any]], box_pred: list[dict[str, Any]]) -> np.ndarray:
    """port of visual_matcher.py: HungarianMatcher.calculate_token_cost: 0 for the same token, 0.05 for tokens
    norm_same_token makes equal, else 1 (gt rows, pred columns)."""
    token2id: dict[str, int] = {}
    token2id_norm: dict[str, int] = {}
    for data in box_gt + box_pred:
        token2id.setdefault(data["token"], len(token2id))
    for data in box_gt + box_pred:
        token2id_norm.setdefault(norm_same_token(data["token"]), len(token2id_norm))
    gt_ids = np.array([token2id[data["token"]] for data in box_gt])
    gt_ids_norm = np.array([token2id_norm[norm_same_token(data["token"])] for data in box_gt])
    pred_logits, pred_logits_norm = [], []
    for data in box_pred:
        logits = [0] * len(token2id)
        logits[token2id[data["token"]]] = 1
        pred_logits.append(logits)
        logits_norm = [0] * len(token2id_norm)
        logits_norm[token2id_norm[norm_same_token(data["token"])]] = 1
        pred_logits_norm.append(logits_norm)
    token_cost = 1.0 - np.array(pred_logits)[:, gt_ids]
    norm_token_cost = 1.0 - np.array(pred_logits_norm)[:, gt_ids_norm]
    token_cost[np.logical_and(token_cost == 1, norm_token_cost == 0)] = 0.05
    return token_cost.T


def _l1_cost(gt_array: np.ndarray, pred_array: np.ndarray) -> np.ndarray:
    from scipy.spatial.distance import cdist  # type: ignore[import-untyped]

    return cdist(gt_array, pred_array, "minkowski", p=1) / gt_array.shape[-1]


def _hungarian(
    box_gt: list[dict[str, Any]], box_pred: list[dict[str, Any]], gt_size: tuple[int, int], pred_size: tuple[int, int]
) -> tuple[list[tuple[int, int]], np.ndarray]:
    """port of visual_matcher.py: HungarianMatcher.__call__ (and the token cost CDM reads back from it)"""
    from scipy.optimize import linear_sum_assignment  # type: ignore[import-untyped]

    def box_array(boxes: list[dict[str, Any]], size: tuple[int, int]) -> np.ndarray:
        width, height = size
        return np.array(
            [[b["bbox"][0] / width, b["bbox"][1] / height, b["bbox"][2] / width, b["bbox"][3] / height] for b in boxes]
        )

    def order_array(boxes: list[dict[str, Any]]) -> np.ndarray:
        return np.array([[idx / len(boxes)] for idx in range(len(boxes))])

    token_cost = _token_cost(box_gt, box_pred)
    position_cost = _l1_cost(box_array(box_gt, gt_size), box_array(box_pred, pred_size))
    order_cost = _l1_cost(order_array(box_gt), order_array(box_pred))
    cost = COST_TOKEN * token_cost + COST_POSITION * position_cost + COST_ORDER * order_cost
    cost[np.isnan(cost) | np.isinf(cost)] = 100
    rows, columns = linear_sum_assignment(cost)
    return list(zip(rows.tolist(), columns.tolist(), strict=True)), token_cost


class SimpleAffineTransform:
    """port of visual_matcher.py: SimpleAffineTransform (translation and scale), the model CDM's RANSAC fits"""

    def __init__(self) -> None:
        self.translation = np.array((0, 0))
        self.scale = 1.0

    def estimate(self, src: np.ndarray, dst: np.ndarray) -> None:
        src_center = np.mean(src, axis=0)
        dst_center = np.mean(dst, axis=0)
        self.translation = dst_center - src_center
        src_dists = np.linalg.norm(src - src_center, axis=1)
        dst_dists = np.linalg.norm(dst - dst_center, axis=1)
        self.scale = np.mean(dst_dists) / (np.mean(src_dists) + 1e-10)

    def residuals(self, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
        moved = self.scale * (src - np.mean(src, axis=0)) + np.mean(src, axis=0) + self.translation
        return np.sqrt(np.sum((moved - dst) ** 2, axis=1))


def ransac_inliers(src: np.ndarray, dst: np.ndarray, random_state: int = 42) -> np.ndarray | None:
    """port of scikit-image 0.20's skimage.measure.ransac (BSD-3-Clause, the scikit-image team) as CDM calls it:
    SimpleAffineTransform, min_samples 3, residual_threshold 25, max_trials 50, the stop criteria at their
    defaults (stop_probability 1). Returns the inliers, or None where ransac warns "No inliers found"."""
    rng = np.random.default_rng(random_state)
    num_samples = len(src)
    if not (0 < MIN_SAMPLES < num_samples):
        raise ValueError(f"`min_samples` must be in range (0, {num_samples})")
    best_inlier_num = 0
    best_inlier_residuals_sum = np.inf
    best_inliers: Any = []
    max_trials: float = MAX_TRIALS
    spl_idxs = rng.choice(num_samples, MIN_SAMPLES, replace=False)
    model = SimpleAffineTransform()
    num_trials = 0
    while num_trials < max_trials:
        num_trials += 1
        samples = (src[spl_idxs], dst[spl_idxs])
        spl_idxs = rng.choice(num_samples, MIN_SAMPLES, replace=False)
        model.estimate(*samples)
        residuals = np.abs(model.residuals(src, dst))
        inliers = residuals < RESIDUAL_THRESHOLD
        residuals_sum = residuals.dot(residuals)
        inliers_count = int(np.count_nonzero(inliers))
        if inliers_count > best_inlier_num or (
            inliers_count == best_inlier_num and residuals_sum < best_inlier_residuals_sum
        ):
            best_inlier_num = inliers_count
            best_inlier_residuals_sum = residuals_sum
            best_inliers = inliers
            max_trials = min(max_trials, _dynamic_max_trials(best_inlier_num, num_samples, MIN_SAMPLES, 1))
            if best_inlier_residuals_sum <= 0:  # stop_sample_num=inf never stops it
                break
    return best_inliers if any(best_inliers) else None


def _dynamic_max_trials(n_inliers: int, n_samples: int, min_samples: int, probability: float) -> float:
    """port of scikit-image 0.20's skimage.measure.fit._dynamic_max_trials"""
    if probability == 0:
        return 0
    if n_inliers == 0:
        return np.inf
    epsilon = np.spacing(1)
    nom = max(epsilon, 1 - probability)
    denom = max(epsilon, 1 - (n_inliers / n_samples) ** min_samples)
    return float(np.ceil(np.log(nom) / np.log(denom)))


def _update_inliers(ori_inliers: np.ndarray, sub_inliers: np.ndarray) -> np.ndarray:
    """port of cdm_metric.py: CDM.update_inliers"""
    inliers = np.copy(ori_inliers)
    sub_idx = -1
    for idx in range(len(ori_inliers)):
        if not ori_inliers[idx]:
            sub_idx += 1
            if sub_inliers[sub_idx]:
                inliers[idx] = True
    return inliers


def _centre(bbox: list[int]) -> list[float]:
    x_min, y_min, x_max, y_max = bbox
    return [(y_min + y_max) / 2, (x_min + x_max) / 2]


def _match_boxes(
    box_gt: list[dict[str, Any]], box_pred: list[dict[str, Any]], gt_size: tuple[int, int], pred_size: tuple[int, int]
) -> np.ndarray:
    """port of cdm_metric.py: CDM._match_boxes (the inliers: which Hungarian matches count)"""
    if not box_gt or not box_pred:  # the original's matcher raises an IndexError on an empty side
        side = "ground truth" if not box_gt else "prediction"
        raise _Failure(f"the {side} rendered no token")
    matched_idxes, token_cost = _hungarian(box_gt, box_pred, gt_size, pred_size)
    src = np.array([_centre(box_gt[a]["bbox"]) for a, _ in matched_idxes], dtype=float)
    dst = np.array([_centre(box_pred[b]["bbox"]) for _, b in matched_idxes], dtype=float)
    if src.shape[0] <= MIN_SAMPLES:
        inliers = np.array([True for _ in matched_idxes])
    else:
        inliers = np.array([False for _ in matched_idxes])
        for _ in range(MAX_ITER):
            if src[~inliers].shape[0] <= MIN_SAMPLES:
                break
            sub_inliers = ransac_inliers(src[~inliers], dst[~inliers])
            if sub_inliers is not None and sub_inliers.any():
                inliers = _update_inliers(inliers, sub_inliers)
            else:
                break
            if np.count_nonzero(inliers) >= len(matched_idxes):
                break
    for idx, (a, b) in enumerate(matched_idxes):
        if inliers[idx] and token_cost[a, b] == 1:
            inliers[idx] = False
    return inliers
