"""The Tesseract 5 command-line program as an engine.

One ``tesseract IMAGE OUT [options] txt tsv`` run per image gives the text and the word
confidences together; running it twice would double the cost. The environment is
inherited, with ``OMP_THREAD_LIMIT`` set to the engine's thread budget (the ``threads``
option, else one) unless the environment sets it already. Tesseract's OpenMP threads buy
no speed: on 20 pages a second thread took 18.5 s instead of 18.7 s while keeping half a
core more busy, and two pytest-xdist workers with two threads each took 170 s instead of
12 s (benchmarks/bench_xdist_engines.py; tesseract-ocr/tesseract#3109).
"""

from __future__ import annotations

import csv
import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from ..errors import did_you_mean
from . import _options
from ._options import Scalar
from .base import EngineBase, EngineError, EngineSpec, Recognition

SCHEMA: dict[str, tuple[Any, Any]] = {
    "lang": (str, "eng"),
    "psm": (int, None),
    "oem": (int, None),
    "config": (dict[str, Scalar], {}),
    "binary": (str, "tesseract"),
    "threads": (int, None),
    "timeout": (float, 300),
    "tessdata_dir": (str, None),
}

INSTALL_HINT = (
    "install it with `apt-get install tesseract-ocr` (Debian/Ubuntu) or `brew install tesseract` (macOS), "
    "or point the engine's `binary` option at it"
)

# Debian packages script models as tesseract-ocr-script-<ISO 15924 code>; the code is
# not derivable from the model name (Latin -> latn, Greek -> grek).
SCRIPT_CODES = {
    "Arabic": "arab", "Armenian": "armn", "Bengali": "beng", "Canadian_Aboriginal": "cans",
    "Cherokee": "cher", "Cyrillic": "cyrl", "Devanagari": "deva", "Ethiopic": "ethi",
    "Fraktur": "frak", "Georgian": "geor", "Greek": "grek", "Gujarati": "gujr", "Gurmukhi": "guru",
    "Hangul": "hang", "HanS": "hans", "HanT": "hant", "Hebrew": "hebr", "Japanese": "jpan",
    "Kannada": "knda", "Khmer": "khmr", "Lao": "laoo", "Latin": "latn", "Malayalam": "mlym",
    "Myanmar": "mymr", "Oriya": "orya", "Sinhala": "sinh", "Syriac": "syrc", "Tamil": "taml",
    "Telugu": "telu", "Thaana": "thaa", "Thai": "thai", "Tibetan": "tibt", "Vietnamese": "viet",
}  # fmt: skip


def debian_package(lang: str) -> str:
    """The Debian/Ubuntu package that installs one Tesseract model (``deu``, ``script/Fraktur``)."""
    name = lang.removeprefix("script/")
    base = name.removesuffix("_vert")
    vert = "-vert" if base != name else ""
    if lang.startswith("script/") or base in SCRIPT_CODES:
        return f"tesseract-ocr-script-{SCRIPT_CODES.get(base, base.lower())}{vert}"
    return f"tesseract-ocr-{name.lower().replace('_', '-')}"


def missing_languages(missing: list[str], installed: list[str], model_dir: Path | None) -> str:
    """What to do about models ``tesseract --list-langs`` does not list: the ones it does,
    the closest to each missing one, and the package to install.

    Where a model lives differs: the tessdata repositories (and Homebrew's
    tesseract-lang) keep script models under ``script/`` (``script/Fraktur``), Debian
    and Ubuntu install them at the top (``Fraktur``). A name that is installed under the
    other spelling is named as the one to use, not as a package to install.
    """
    hints, to_install = [], []
    for lang in missing:
        base = lang.removeprefix("script/")
        other = base if lang.startswith("script/") else f"script/{lang}"
        if other in installed:
            hints.append(f"{lang!r} is installed here as {other!r}: use lang {other!r}")
        else:
            to_install.append(lang)
            closest = did_you_mean(lang, installed).removeprefix("; ")
            if closest:
                hints.append(f"for {lang!r}, {closest}")
    where = f" in {model_dir}" if model_dir else ""
    message = (
        f"Tesseract language(s) {', '.join(missing)} not installed{where} (installed: {', '.join(installed) or 'none'})"
    )
    if hints:
        message += "; " + "; ".join(hints)
    if to_install:
        packages = " ".join(debian_package(lang) for lang in to_install)
        message += (
            f"; on Debian/Ubuntu: apt-get install {packages}; on macOS: brew install tesseract-lang; "
            f"or put {to_install[0]}.traineddata into a directory given as the "
            "`tessdata_dir` option"
        )
    return message


def _query(binary: str, *args: str) -> str:
    try:
        proc = subprocess.run(
            [binary, *args], capture_output=True, text=True, errors="replace", stdin=subprocess.DEVNULL, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EngineError(f"could not run `{binary} {' '.join(args)}`: {exc}") from exc
    if proc.returncode != 0:
        raise EngineError(f"`{binary} {' '.join(args)}` failed (exit code {proc.returncode}): {proc.stderr.strip()}")
    # Some builds print to stderr.
    return proc.stdout.strip() or proc.stderr.strip()


@functools.cache
def _version(binary: str) -> str:
    return _query(binary, "--version").splitlines()[0].strip()


@functools.cache
def _installed_languages(binary: str, tessdata_dir: str | None) -> tuple[list[str], Path | None]:
    """The installed models and the directory they are in (when Tesseract says so)."""
    args = ["--tessdata-dir", tessdata_dir] if tessdata_dir else []
    header, *langs = _query(binary, *args, "--list-langs").splitlines()
    # 'List of available languages in "/usr/share/tesseract-ocr/5/tessdata/" (5):'
    found = re.search(r'"(.*)"', header)
    return [lang.strip() for lang in langs if lang.strip()], Path(found[1]) if found else None


@functools.cache
def _file_digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError:
        return None


class TesseractEngine(EngineBase):
    def __init__(self, spec: EngineSpec) -> None:
        options = _options.check_options(spec, SCHEMA)
        self.timeout = _options.check_timeout(spec, options["timeout"])
        if options["psm"] is not None and not 0 <= options["psm"] <= 13:
            raise _options.error(spec, f"option 'psm' must be between 0 and 13, got {options['psm']}")
        if options["oem"] is not None and not 0 <= options["oem"] <= 3:
            raise _options.error(spec, f"option 'oem' must be between 0 and 3, got {options['oem']}")

        binary = options["binary"]
        # A path with a directory part is relative to the declaring file, a bare name is looked up on PATH.
        found = shutil.which(str(_options.resolve(spec, binary)) if Path(binary).name != binary else binary)
        if found is None:
            raise _options.error(spec, f"Tesseract executable {binary!r} not found; {INSTALL_HINT}")
        self.binary = found
        self.version = _version(found)

        tessdata_dir = options["tessdata_dir"]
        if tessdata_dir is not None:
            tessdata_dir = str(_options.resolve(spec, tessdata_dir))
        installed, model_dir = _installed_languages(found, tessdata_dir)
        langs = options["lang"].split("+")
        missing = [lang for lang in langs if lang not in installed]
        if missing:
            raise _options.error(spec, missing_languages(missing, installed, model_dir))

        self.args = ["-l", options["lang"]]
        for flag in ("psm", "oem"):
            if options[flag] is not None:
                self.args += [f"--{flag}", str(options[flag])]
        if tessdata_dir:
            self.args += ["--tessdata-dir", tessdata_dir]
        for key, value in options["config"].items():
            self.args += ["-c", f"{key}={value}"]

        # One thread unless asked for more, under pytest-xdist or not (see the module's docstring).
        budget = 1 if options["threads"] is None else _options.threads(spec, options["threads"])
        self.env = None
        if "OMP_THREAD_LIMIT" not in os.environ:
            self.env = {**os.environ, "OMP_THREAD_LIMIT": str(budget)}

        self.config = {key: options[key] for key in ("lang", "psm", "oem", "config")}
        # The same Tesseract version reads differently with other models (fast vs best).
        if model_dir is not None:
            self.config["traineddata"] = {lang: _file_digest(model_dir / f"{lang}.traineddata") for lang in langs}

    def recognize(self, image: Path) -> Recognition:
        # Absolute, so a name like "-x.png" or "stdin" is not taken for an option or stdin.
        image = Path(image).absolute()
        with tempfile.TemporaryDirectory(prefix="pytest-ocr-tesseract-") as tmp:
            out = Path(tmp, "out")
            try:
                proc = subprocess.run(
                    [self.binary, str(image), str(out), *self.args, "txt", "tsv"],
                    capture_output=True,
                    stdin=subprocess.DEVNULL,
                    timeout=self.timeout,
                    env=self.env,
                )
            except subprocess.TimeoutExpired:
                raise EngineError(f"tesseract timed out after {self.timeout:g} s on {image}") from None
            except OSError as exc:
                raise EngineError(f"could not run {self.binary}: {exc}; {INSTALL_HINT}") from exc
            stderr = proc.stderr.decode(errors="replace").strip()
            if proc.returncode != 0:
                raise EngineError(f"tesseract failed on {image} (exit code {proc.returncode}):\n{stderr}")
            try:
                text = out.with_suffix(".txt").read_text(encoding="utf-8").removesuffix("\f")
                with out.with_suffix(".tsv").open(encoding="utf-8", newline="") as tsv:
                    words = list(csv.DictReader(tsv, delimiter="\t", quoting=csv.QUOTE_NONE))
            except (OSError, UnicodeDecodeError) as exc:
                raise EngineError(f"tesseract gave no usable output for {image}: {exc}\n{stderr}") from exc

        confidences = [float(w["conf"]) / 100 for w in words if w["level"] == "5" and float(w["conf"]) >= 0]
        return Recognition(
            text=text,
            lines=[line for line in text.splitlines() if line.strip()],
            confidence=sum(confidences) / len(confidences) if confidences else None,
        )

    def fingerprint(self) -> dict:
        return {"type": "tesseract", "version": self.version, "config": self.config}
