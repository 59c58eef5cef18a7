"""Images with their texts in plain files: tesstrain's side-car pairs (``pairs``), PaddleOCR label files
(``paddle``), a ground-truth JSON (``ground-truth-json``), one predictions CSV per model (``model-csv``)."""

from __future__ import annotations

import os
from pathlib import Path

from ...media import document as doc
from .common import (
    DEFAULT_IMAGES,
    GT_SUFFIX,
    DatasetError,
    Loaded,
    Skipped,
    case_dict,
    config_directory,
    config_file,
    engine_named,
    ground_truth_problem,
    is_image,
    read_text,
    sanitize,
    stem_path,
    tree_of,
    walk_files,
)

# -- pairs: image + side-car .gt.txt ------------------------------------------------------


def pairs(config: dict, base: Path) -> Loaded:
    """Every image under ``path`` (``include``/``exclude`` globs) with its ``.gt.txt``."""
    root = config_directory(config, "path", base)
    tree = tree_of(config, root)
    loaded = Loaded()
    for relative, image in walk_files(root, config.get("include", DEFAULT_IMAGES), config.get("exclude", [])):
        truth = image.with_name(stem_path(image.name) + GT_SUFFIX)
        problem = tree.outside(image) or tree.outside(truth)
        if problem is None and not os.path.lexists(truth):
            problem = f"no ground truth: {truth.name} not found next to it"
        problem = problem or ground_truth_problem(truth)
        if problem is None:
            loaded.cases.append(case_dict(stem_path(relative), str(image), image, text_file=str(truth)))
        else:
            loaded.skipped.append(Skipped(str(image), None, problem))
    return loaded


# -- paddle: PaddleOCR label files ----------------------------------------------------


def paddle(config: dict, base: Path) -> Loaded:
    """``image_path<TAB>label`` lines. Blank lines are not entries; malformed lines,
    missing images and repeated images are skipped; ``max_images`` stops after that many
    cases. A label that is PaddleOCR's detection format (a JSON list of
    ``{"transcription": ..., "points": ...}``) gives the legible transcriptions, one per line."""
    label_file = config_file(config, "label_file", base)
    images = config_directory(config, "images", base) if "images" in config else label_file.parent
    tree = tree_of(config, images)
    limit = config.get("max_images")
    minimum = config.get("conf_threshold")
    loaded = Loaded()
    first_line: dict[str, int] = {}
    text = read_text(label_file, "label_file", "label file")
    for number, line in enumerate(text.split("\n"), start=1):
        if limit is not None and len(loaded.cases) >= limit:
            break
        line = line.rstrip("\r")
        if not line.strip():
            continue

        def skip(reason: str, number: int = number) -> None:
            loaded.skipped.append(Skipped(str(label_file), number, reason))

        if "\t" not in line:
            skip("no tab between the image path and the label")
            continue
        path, label = line.split("\t", 1)
        path = path.strip()
        if not path:
            skip("empty image path")
            continue
        try:
            label = _detection_label(label)
        except doc.NestingError as exc:
            skip(f"label of {path}: {exc}")
            continue
        if not label.strip():
            skip(f"empty label for {path}")
            continue
        key = Path(path).as_posix()
        if key in first_line:
            skip(f"{path} is already listed on line {first_line[key]}")
            continue
        first_line[key] = number
        image = Path(os.path.normpath(images / path))
        escape = tree.outside(image)
        if escape is not None:
            skip(f"image path {path}: {escape}")
            continue
        if not image.is_file():
            skip(f"image not found: {image}")
            continue
        raw = case_dict(stem_path(key), f"{label_file}:{number}", image, text=label)
        if minimum is not None:
            raw["min_confidence"] = minimum
        loaded.cases.append(raw)
    return loaded


def _detection_label(label: str) -> str:
    if not label.lstrip().startswith("["):
        return label
    try:
        boxes = doc.json_value(label)
    except doc.NestingError:
        raise
    except ValueError:
        return label  # a recognition label that happens to start with "["
    if not (
        isinstance(boxes, list)
        and boxes
        and all(isinstance(b, dict) and isinstance(b.get("transcription"), str) for b in boxes)
    ):
        return label
    # "###" marks an illegible box in PaddleOCR's datasets: not ground truth.
    return "\n".join(b["transcription"] for b in boxes if b["transcription"] != "###")


# -- ground-truth-json: datasets/NAME/{images/, ground_truth.json} ----------------------


def ground_truth_json(config: dict, base: Path) -> Loaded:
    """``ground_truth.json`` maps an image file name (under ``images/``) to
    ``{"full_text": ..., "fields": {...}}``, either or both."""
    root = config_directory(config, "path", base)
    truth_file, images = root / "ground_truth.json", root / "images"
    if not os.path.lexists(truth_file):  # anything else there is read (or refused) as a data file
        raise DatasetError("path", f"no ground_truth.json in {root}")
    if not images.is_dir():
        raise DatasetError("path", f"no images/ directory in {root}")
    tree = tree_of(config, root)
    escape = tree.outside(truth_file)
    if escape is not None:
        raise DatasetError("path", escape)
    try:
        document = doc.load(truth_file, "ground truth file")
    except doc.DocumentError as exc:
        raise DatasetError("path", exc.summary()) from None
    if not isinstance(document.data, dict):
        raise DatasetError("path", f"{truth_file}: expected an object mapping image names to ground truth")
    loaded = Loaded()
    for name, entry in document.data.items():
        line = document.line_of((name,))

        def skip(reason: str, line: int | None = line) -> None:
            loaded.skipped.append(Skipped(str(truth_file), line, reason))

        if not isinstance(entry, dict):
            skip(f"{name}: expected an object with full_text and/or fields")
            continue
        unknown = sorted(set(entry) - {"full_text", "fields"})
        text, fields = entry.get("full_text"), entry.get("fields")
        image = Path(os.path.normpath(images / name))
        if unknown:
            skip(f"{name}: unknown key {unknown[0]!r} (allowed: full_text, fields)")
        elif text is not None and not isinstance(text, str):
            skip(f"{name}: full_text must be a string")
        elif fields is not None and not isinstance(fields, dict):
            skip(f"{name}: fields must be an object")
        elif text is None and not fields:
            skip(f"{name}: no full_text and no fields")
        elif (escape := tree.outside(image)) is not None:
            skip(f"{name}: {escape}")
        elif not image.is_file():
            skip(f"image not found: {image}")
        else:
            expected: dict[str, object] = {"text": text} if text is not None else {}
            if fields:
                expected["fields"] = fields
            loaded.cases.append(case_dict(stem_path(Path(name).as_posix()), f"{truth_file}:{line}", image, **expected))
    return loaded


# -- model-csv: images/{batch_id}/{image_name} + one predictions CSV per model -----------


def model_csv(config: dict, base: Path) -> Loaded:
    """The benchmark's images in batch directories, ground truth as ``{stem}.gt.txt``
    beside each image or ``{ground_truth}/{batch_id}/{stem}.txt``, and every ``*.csv`` in
    ``models`` a ``predictions`` engine named after the file. A case's group is its batch."""
    images = config_directory(config, "images", base)
    models = config_directory(config, "models", base)
    truth_root = config_directory(config, "ground_truth", base) if "ground_truth" in config else None
    tree = tree_of(config, images, models, truth_root)
    loaded = Loaded()
    for csv_file in sorted(p for p in models.iterdir() if p.suffix.lower() == ".csv" and p.is_file()):
        escape = tree.outside(csv_file)
        if escape is not None:
            raise DatasetError("models", escape)
        engine = engine_named("models", csv_file)
        loaded.engines[engine] = {"type": "predictions", "path": os.path.relpath(csv_file, base)}
    if not loaded.engines:
        raise DatasetError("models", f"no .csv files in {models} (one per model: image_name,batch_id,inference)")
    visible = (p for p in images.iterdir() if not p.name.startswith("."))
    for entry in sorted(visible):
        if entry.is_file() and is_image(entry):
            loaded.skipped.append(
                Skipped(str(entry), None, "not in a batch directory (expected images/{batch_id}/{image_name})")
            )
        if not entry.is_dir():
            continue
        batch = entry.name
        for image in sorted(p for p in entry.iterdir() if p.is_file() and is_image(p) and p.name[0] != "."):
            stem = stem_path(image.name)
            truth = (truth_root / batch / f"{stem}.txt") if truth_root else image.with_name(stem + GT_SUFFIX)
            problem = tree.outside(image) or tree.outside(truth) or ground_truth_problem(truth)
            if problem is not None:
                loaded.skipped.append(Skipped(str(image), None, problem))
                continue
            raw = case_dict(f"{batch}/{stem}", str(image), image, text_file=str(truth))
            raw["group"] = sanitize(batch)
            loaded.cases.append(raw)
    return loaded
