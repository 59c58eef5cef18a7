"""RapidOCR (PyPI ``rapidocr`` 3.x with its bundled ONNX models) as an engine.

Loading the models is the expensive part, so one ``RapidOCR`` object per distinct
``params`` is kept for the whole process and shared by every engine configured alike.
"""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path
from typing import Any

from ..imports import load_failure
from ..media.images import use_pixel_limit
from . import _options
from .base import EngineBase, EngineError, EngineSpec, Recognition

SCHEMA: dict[str, tuple[Any, Any]] = {"params": (dict[str, Any], {}), "threads": (int, None)}

# onnxruntime's threads within one operator and across operators (rapidocr's config.yaml)
INTRA_OP = "EngineConfig.onnxruntime.intra_op_num_threads"
INTER_OP = "EngineConfig.onnxruntime.inter_op_num_threads"

INSTALL_HINT = 'install it with `pip install "pytest-ocr[rapidocr]"`'

# RapidOCR only accepts Enum members for these keys; config files can only hold strings.
ENUM_KEYS = {"engine_type": "EngineType", "model_type": "ModelType", "ocr_version": "OCRVersion"}

_MODELS: dict[str, Any] = {}


def _model(params: dict[str, Any]) -> Any:
    key = json.dumps(params, sort_keys=True, default=str)
    if key not in _MODELS:
        import rapidocr

        converted = {}
        for name, value in params.items():
            enum_name = ENUM_KEYS.get(name.rpartition(".")[2])
            if enum_name and isinstance(value, str):
                enum = getattr(rapidocr, enum_name)
                try:
                    value = enum(value)
                except ValueError:
                    valid = ", ".join(member.value for member in enum)
                    raise ValueError(f"{name} must be one of {valid}, got {value!r}") from None
            converted[name] = value
        _MODELS[key] = rapidocr.RapidOCR(params=converted)
    return _MODELS[key]


def _versions() -> str:
    found = [f"rapidocr {version('rapidocr')}"]
    try:
        import onnxruntime  # the default backend; others are named in params

        found.append(f"onnxruntime {onnxruntime.__version__}")
    except ImportError:
        pass
    return "; ".join(found)


class RapidOCREngine(EngineBase):
    def __init__(self, spec: EngineSpec) -> None:
        options = _options.check_options(spec, SCHEMA)
        # Its default log level prints a line per model load and per warning.
        self.params = {"Global.log_level": "error", **options["params"]}
        budget = _options.threads(spec, options["threads"])
        # The thread budget, unless params set onnxruntime's threads themselves; never in the fingerprint.
        self.threads = {INTRA_OP: budget, INTER_OP: 1} if budget is not None else {}
        try:
            self.ocr = _model({**self.threads, **self.params})
        except ModuleNotFoundError as exc:
            raise _options.error(spec, f"RapidOCR is not available ({exc}); {INSTALL_HINT}") from exc
        except ImportError as exc:  # installed, but it or its backend could not be loaded: no package to install
            raise _options.error(spec, load_failure("RapidOCR", exc)) from exc
        except (ValueError, TypeError, KeyError) as exc:
            raise _options.error(spec, f"invalid option 'params': {exc}") from exc
        self.version = _versions()

    def recognize(self, image: Path) -> Recognition:
        use_pixel_limit()  # RapidOCR decodes with Pillow: never beyond --ocr-max-image-pixels
        try:
            result = self.ocr(str(image))
        except ModuleNotFoundError as exc:
            raise EngineError(f"RapidOCR could not load its inference backend ({exc}); {INSTALL_HINT}") from exc
        except ImportError as exc:
            raise EngineError(load_failure("RapidOCR's inference backend", exc)) from exc
        except Exception as exc:
            raise EngineError(f"rapidocr failed on {image}: {type(exc).__name__}: {exc}") from exc
        # Nothing detected: RapidOCR leaves txts, scores and boxes as None.
        lines = list(result.txts or ())
        scores = [float(score) for score in result.scores or ()]
        boxes = [] if result.boxes is None else [[round(float(v), 1) for v in box.flatten()] for box in result.boxes]
        return Recognition(
            text="\n".join(lines),
            lines=lines,
            confidence=sum(scores) / len(scores) if scores else None,
            raw={"boxes": boxes, "scores": scores},
        )

    def fingerprint(self) -> dict:
        config = {key: value for key, value in self.params.items() if key != "Global.log_level"}
        return {"type": "rapidocr", "version": self.version, "config": config}
