"""Paths that leave their tree (issue 27): data files naming files outside their dataset
(``../../../../etc/passwd`` in a METS ``xlink:href``, a label file, a PAGE
``imageFilename``, a ground_truth.json key) and symbolic links in a dataset's folders (or
a stored-outputs engine's) leading out of them. Each is skipped or is its item's error,
with the file and line that named the path or the link's path; nothing outside is read, so
an outside file's text reaches no output; every other entry still runs and passes; and
``follow_symlinks: true`` lets links lead out.

Every test runs a real pytest session (``run_bounded``: a memory limit and a timeout) over a
project of generated datasets beside a folder ``outside`` that holds what must not be read.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import DATA, REPO, Bounded, run_bounded

from pytest_ocr.files import Tree

pytestmark = pytest.mark.slow

TIMEOUT = 90  # seconds; the sessions must end in well under half of it
MEMORY_MB = 800
SECRET = "SECRET-TEXT-OUTSIDE"  # in every file outside the project: no output may hold it
TOP = "../" * 40  # enough ../ to climb to / from any folder
OUTPUTS = ("--ocr-report", "report.json", "--ocr-html", "report.html")

ENGINE = """
from pathlib import Path

def read(image_path):
    return Path(image_path).with_suffix(".ocr.txt").read_text(encoding="utf-8")
"""
CONFIG = "engines:\n  fake: {type: python, function: 'sidecar_engine:read'}\ndefaults:\n  engine: fake\n"
IMAGE = DATA / "lines" / "rapidocr_en_rec.jpg"
WORKSPACE = DATA / "ocrd" / "kant_aufklaerung_1784"
PAGE = DATA / "pages" / "dinglehopper_462875_0008.page.xml"
PDF = REPO / "tests" / "data" / "olmocr-bench-sample" / "pdfs" / "blank_book_pg1.pdf"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def image(path: Path, text: str = "hello") -> Path:
    """A real image whose side-car says what the engine reads from it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(IMAGE, path)
    write(path.with_suffix(".ocr.txt"), text)
    return path


def link(path: Path, target: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    return path


def secret_page() -> str:
    """A PAGE file whose every line reads SECRET, naming the image a.jpg."""
    text = PAGE.read_text(encoding="utf-8").replace('imageFilename="462875_0008.jpg"', 'imageFilename="a.jpg"')
    return text.replace("<Unicode>", f"<Unicode>{SECRET} ")


def outside(root: Path) -> Path:
    """What must not be read: text files, an image and a PAGE file, each holding SECRET."""
    out = root / "outside"
    write(out / "secret.txt", SECRET)
    image(out / "secret.jpg", SECRET)
    write(out / "secret.page.xml", secret_page())
    write(out / "secret.md", f"hello {SECRET}")
    shutil.copy(PDF, out / "secret.pdf")
    return out


def project(root: Path) -> Path:
    """The good part of every session: the side-car engine and a case that passes."""
    write(root / "pytest.ini", "[pytest]\npythonpath = .\nocr_config = ocr-config.yaml\n")
    write(root / "sidecar_engine.py", ENGINE)
    write(root / "ocr-config.yaml", CONFIG)
    image(root / "good.jpg")
    write(root / "good.ocr.yaml", "cases:\n  - {id: good, image: good.jpg, expected: {text: hello}}\n")
    return root


def run(root: Path, *args: str) -> Bounded:
    result = run_bounded(root, *OUTPUTS, *args, memory_mb=MEMORY_MB, timeout=TIMEOUT)
    out = result.output
    for crash in ("Traceback", "INTERNALERROR", "MemoryError"):
        assert crash not in out, out[-4000:]
    assert result.seconds < TIMEOUT / 2, f"took {result.seconds:.1f} s"
    assert result.max_rss_mb < MEMORY_MB / 2, f"peak memory {result.max_rss_mb:.0f} MB"
    return result


def nothing_outside_read(root: Path, result: Bounded) -> None:
    for name, text in (
        ("terminal", result.output),
        ("JSON report", (root / "report.json").read_text(encoding="utf-8")),
        ("HTML report", (root / "report.html").read_text(encoding="utf-8")),
    ):
        assert SECRET not in text, f"the outside file's text is in the {name}"


def skipped(report: dict) -> dict[str, list[tuple[str, int | None, str]]]:
    """Each dataset file's skipped entries, as (file, line, reason)."""
    return {d["file"]: [(e["file"], e["line"], e["reason"]) for e in d["skipped_entries"]] for d in report["datasets"]}


def outcomes(report: dict) -> dict[str, str]:
    return {r["key"]: r["outcome"] for r in report["results"]}


def errors(report: dict, root: Path) -> dict[str, str]:
    return {r["key"]: relative(r["error"], root) for r in report["results"] if r["outcome"] == "error"}


def relative(text: str, root: Path) -> str:
    """``text`` with paths in ``root`` relative to it (as messages name them, or will)."""
    return text.replace(f"{root}/", "")


def links_out(link: str, target: Path, folder: str) -> str:
    """The reason a link out is refused; ``folder``: "folder ROOT" or "folders ROOT, ROOT"."""
    return (
        f"{link} is a symbolic link to {target}, outside the dataset's {folder}; "
        "`follow_symlinks: true` in its dataset: block lets links lead out"
    )


def mets(ws: Path, out: Path) -> dict[str, int]:
    """The real workspace's METS with four more pages, whose ground truth is /etc/passwd,
    a PAGE file outside (by a relative path, by a file: URL) and a link to it; the line
    of each one's FLocat."""
    hrefs = {
        "UP": f"{TOP}etc/passwd",
        "OUT": "../../outside/secret.page.xml",
        "URL": f"file://{out}/secret.page.xml",
        "LINK": "OCR-D-GT-PAGE/linked.xml",
    }
    text = (ws / "mets.xml").read_text(encoding="utf-8")
    files = "".join(
        f'      <mets:file ID="GT_{k}" MIMETYPE="application/vnd.prima.page+xml">\n'
        f'        <mets:FLocat LOCTYPE="OTHER" OTHERLOCTYPE="FILE" xlink:href="{href}"/>\n'
        "      </mets:file>\n"
        for k, href in hrefs.items()
    )
    pages = "".join(
        f'      <mets:div TYPE="page" ID="PHYS_{k}">\n'
        '        <mets:fptr FILEID="INPUT_0017"/>\n'
        f'        <mets:fptr FILEID="GT_{k}"/>\n'
        "      </mets:div>\n"
        for k in hrefs
    )
    group = '    <mets:fileGrp USE="OCR-D-GT-PAGE">\n'
    text = text.replace(group, group + files).replace(
        "    </mets:div>\n  </mets:structMap>", pages + "    </mets:div>\n  </mets:structMap>"
    )
    write(ws / "mets.xml", text)
    lines = text.splitlines()
    return {
        k: next(n for n, line in enumerate(lines, 1) if f'xlink:href="{href}"' in line) for k, href in hrefs.items()
    }


def datasets(p: Path, out: Path, follow: bool = False) -> dict[str, int]:
    """A dataset of every layout in ``p``, each with a good entry, entries naming a path
    outside it and entries reaching outside through a link; the METS lines (mets())."""
    extra = ", follow_symlinks: true" if follow else ""
    # paddle: a label file naming images
    image(p / "paddle/a.jpg")
    link(p / "paddle/linked.jpg", out / "secret.jpg")
    write(p / "paddle/linked.ocr.txt", "hello")  # what the engine reads, when the link is followed
    write(p / "paddle/labels.txt", f"a.jpg\thello\n{TOP}etc/passwd\tx\n../../outside/secret.jpg\tx\nlinked.jpg\tx\n")
    write(p / "paddle.ocr.yaml", f"dataset: {{type: paddle, label_file: paddle/labels.txt{extra}}}\n")
    # pairs: images and their ground truth beside them
    image(p / "pairs/a.jpg")
    write(p / "pairs/a.gt.txt", "hello")
    image(p / "pairs/b.jpg")
    link(p / "pairs/b.gt.txt", out / "secret.txt")
    link(p / "pairs/c.jpg", out / "secret.jpg")
    write(p / "pairs/c.ocr.txt", "hello")
    write(p / "pairs/c.gt.txt", "hello")
    write(p / "pairs.ocr.yaml", f"dataset: {{type: pairs, path: pairs{extra}}}\n")
    # page-xml: layout files naming their images
    page = PAGE.read_text(encoding="utf-8")
    image(p / "page/a.jpg")
    write(p / "page/a.xml", page.replace('imageFilename="462875_0008.jpg"', 'imageFilename="a.jpg"'))
    write(p / "page/b.xml", page.replace('imageFilename="462875_0008.jpg"', f'imageFilename="{TOP}etc/passwd"'))
    link(p / "page/c.xml", out / "secret.page.xml")
    write(p / "page.ocr.yaml", f"dataset: {{type: page-xml, path: page{extra}}}\n")
    # ground-truth-json: image names as keys, one a line
    image(p / "gtjson/images/a.jpg")
    link(p / "gtjson/images/linked.jpg", out / "secret.jpg")
    write(p / "gtjson/images/linked.ocr.txt", "hello")
    names = ["a.jpg", "../../../outside/secret.jpg", "linked.jpg"]
    write(
        p / "gtjson/ground_truth.json", "{\n" + ",\n".join(f'"{n}": {{"full_text": "hello"}}' for n in names) + "\n}\n"
    )
    write(p / "gtjson.ocr.yaml", f"dataset: {{type: ground-truth-json, path: gtjson{extra}}}\n")
    # model-csv: batches of images, ground truth beside them, a CSV of predictions per model
    image(p / "mc/images/b1/a.jpg")
    write(p / "mc/images/b1/a.gt.txt", "hello")
    link(p / "mc/images/b1/b.jpg", out / "secret.jpg")
    write(p / "mc/images/b1/b.gt.txt", "hello")
    image(p / "mc/images/b1/c.jpg")
    link(p / "mc/images/b1/c.gt.txt", out / "secret.txt")
    write(p / "mc/models/m1.csv", "image_name,batch_id,inference\na.jpg,b1,hello\nb.jpg,b1,hello\nc.jpg,b1,hello\n")
    write(p / "mc.ocr.yaml", f"dataset: {{type: model-csv, images: mc/images, models: mc/models{extra}}}\n")
    # ocrd-workspace: the real workspace, its METS given pages outside it
    ws = p / "ws"
    shutil.copytree(WORKSPACE, ws)
    write(ws / "OCR-D-IMG/INPUT_0017.ocr.txt", "hello")
    link(ws / "OCR-D-GT-PAGE/linked.xml", out / "secret.page.xml")
    write(p / "ws.ocr.yaml", f"dataset: {{type: ocrd-workspace, path: ws{extra}}}\n")
    return mets(ws, out)


def test_paths_data_files_name_outside_their_dataset_and_links_out_are_skipped_where_named(tmp_path: Path) -> None:
    out = outside(tmp_path)
    p = project(tmp_path / "project")
    lines = datasets(p, out)
    # model-csv: a predictions file that is a link out is the dataset's located error
    image(p / "mc2/images/b1/a.jpg")
    write(p / "mc2/images/b1/a.gt.txt", "hello")
    write(out / "secret.csv", f"image_name,batch_id,inference\na.jpg,b1,{SECRET}\n")
    link(p / "mc2/models/evil.csv", out / "secret.csv")
    write(p / "mc2.ocr.yaml", "dataset: {type: model-csv, images: mc2/images, models: mc2/models}\n")

    result = run(p)
    assert result.returncode == 1, result.output[-4000:]  # mc2.ocr.yaml is invalid
    report = result.report(p)
    passed = {k for k, v in outcomes(report).items() if v == "passed"}
    assert passed == {
        "good.ocr.yaml::good[fake]",
        "paddle.ocr.yaml::a[fake]",
        "pairs.ocr.yaml::a[fake]",
        "page.ocr.yaml::a[fake]",
        "gtjson.ocr.yaml::a[fake]",
        "mc.ocr.yaml::b1.a[m1]",
        "ws.ocr.yaml::PHYS_0017[fake]",
    }
    assert outcomes(report)["mc2.ocr.yaml::invalid-case-file"] == "invalid"
    assert (
        "mc2.ocr.yaml:1: dataset.models: "
        + links_out("mc2/models/evil.csv", out / "secret.csv", "folders mc2/images, mc2/models")
    ) in relative(result.output, p)
    up = f"{TOP}etc/passwd"
    assert skipped(report) == {
        "paddle.ocr.yaml": [
            ("paddle/labels.txt", 2, f"image path {up}: /etc/passwd is outside the dataset's folder paddle"),
            (
                "paddle/labels.txt",
                3,
                f"image path ../../outside/secret.jpg: {out / 'secret.jpg'} is outside the dataset's folder paddle",
            ),
            (
                "paddle/labels.txt",
                4,
                "image path linked.jpg: " + links_out("paddle/linked.jpg", out / "secret.jpg", "folder paddle"),
            ),
        ],
        "pairs.ocr.yaml": [
            ("pairs/b.jpg", None, links_out("pairs/b.gt.txt", out / "secret.txt", "folder pairs")),
            ("pairs/c.jpg", None, links_out("pairs/c.jpg", out / "secret.jpg", "folder pairs")),
        ],
        "page.ocr.yaml": [
            (
                "page/b.xml",
                9,
                f"Page/@imageFilename {up!r}: /etc/passwd is outside the dataset's folder page; a `path` that "
                "holds the images too, or image_dir, takes images from elsewhere",
            ),
            ("page/c.xml", None, links_out("page/c.xml", out / "secret.page.xml", "folder page")),
        ],
        "gtjson.ocr.yaml": [
            (
                "gtjson/ground_truth.json",
                3,
                f"../../../outside/secret.jpg: {out / 'secret.jpg'} is outside the dataset's folder gtjson",
            ),
            (
                "gtjson/ground_truth.json",
                4,
                "linked.jpg: " + links_out("gtjson/images/linked.jpg", out / "secret.jpg", "folder gtjson"),
            ),
        ],
        "mc.ocr.yaml": [
            (
                "mc/images/b1/b.jpg",
                None,
                links_out("mc/images/b1/b.jpg", out / "secret.jpg", "folders mc/images, mc/models"),
            ),
            (
                "mc/images/b1/c.jpg",
                None,
                links_out("mc/images/b1/c.gt.txt", out / "secret.txt", "folders mc/images, mc/models"),
            ),
        ],
        "ws.ocr.yaml": [
            (
                "ws/mets.xml",
                lines["UP"],
                f"page PHYS_UP: file 'GT_UP': xlink:href {up!r}: /etc/passwd is outside the dataset's folder ws",
            ),
            (
                "ws/mets.xml",
                lines["OUT"],
                "page PHYS_OUT: file 'GT_OUT': xlink:href '../../outside/secret.page.xml': "
                f"{out / 'secret.page.xml'} is outside the dataset's folder ws",
            ),
            (
                "ws/mets.xml",
                lines["URL"],
                f"page PHYS_URL: file 'GT_URL': xlink:href 'file://{out}/secret.page.xml': "
                f"{out / 'secret.page.xml'} is outside the dataset's folder ws",
            ),
            (
                "ws/mets.xml",
                lines["LINK"],
                "page PHYS_LINK: file 'GT_LINK': xlink:href 'OCR-D-GT-PAGE/linked.xml': "
                + links_out("ws/OCR-D-GT-PAGE/linked.xml", out / "secret.page.xml", "folder ws"),
            ),
        ],
    }
    nothing_outside_read(p, result)


def test_follow_symlinks_lets_links_lead_out_but_never_a_path_named_outside(tmp_path: Path) -> None:
    out = outside(tmp_path)
    p = project(tmp_path / "project")
    lines = datasets(p, out, follow=True)
    result = run(p)
    assert result.returncode == 0, result.output[-4000:]
    report = result.report(p)
    assert set(outcomes(report).values()) == {"passed"}
    assert {k for k in outcomes(report)} == {
        "good.ocr.yaml::good[fake]",
        "paddle.ocr.yaml::a[fake]",
        "paddle.ocr.yaml::linked[fake]",  # the links, followed
        "pairs.ocr.yaml::a[fake]",
        "pairs.ocr.yaml::b[fake]",
        "pairs.ocr.yaml::c[fake]",
        "page.ocr.yaml::a[fake]",
        "page.ocr.yaml::c[fake]",
        "gtjson.ocr.yaml::a[fake]",
        "gtjson.ocr.yaml::linked[fake]",
        "mc.ocr.yaml::b1.a[m1]",
        "mc.ocr.yaml::b1.b[m1]",
        "mc.ocr.yaml::b1.c[m1]",
        "ws.ocr.yaml::PHYS_0017[fake]",
        "ws.ocr.yaml::PHYS_LINK[fake]",
    }
    assert SECRET in (p / "report.json").read_text(encoding="utf-8")  # what the links lead to was read
    named = {(file, line) for entries in skipped(report).values() for file, line, _ in entries}
    assert named == {  # paths named outside the dataset stay refused
        ("paddle/labels.txt", 2),
        ("paddle/labels.txt", 3),
        ("page/b.xml", 9),
        ("gtjson/ground_truth.json", 3),
        *(("ws/mets.xml", lines[k]) for k in ("UP", "OUT", "URL")),
    }


def stored_outputs(p: Path, out: Path, follow: bool = False) -> None:
    """An olmOCR-Bench folder whose outputs folder holds a link out, a PDF that is a link
    out and a fact naming a PDF outside; a predictions folder holding a link out."""
    bench = p / "bench"
    (bench / "pdfs").mkdir(parents=True)
    for name in ("a", "b"):
        shutil.copy(PDF, bench / "pdfs" / f"{name}.pdf")
    link(bench / "pdfs/c.pdf", out / "secret.pdf")
    facts = [
        {"pdf": f"{name}.pdf", "page": 1, "id": f"{name}_00", "type": "present", "text": "hello"} for name in "abc"
    ]
    facts.append({"pdf": "../../outside/secret.pdf", "page": 1, "id": "up_00", "type": "present", "text": "hello"})
    write(bench / "facts.jsonl", "".join(json.dumps(f) + "\n" for f in facts))
    write(bench / "sys/a_pg1_repeat1.md", "hello")
    write(bench / "sys/c_pg1_repeat1.md", "hello")  # read when the link to c.pdf is followed
    link(bench / "sys/b_pg1_repeat1.md", out / "secret.md")
    extra = ", follow_symlinks: true" if follow else ""
    write(p / "bench.ocr.yaml", f"dataset: {{type: olmocr-bench, path: bench, baseline: false{extra}}}\n")
    # predictions: a folder of <image stem>.txt
    image(p / "pred/a.jpg")
    image(p / "pred/b.jpg")
    write(p / "pred/out/a.txt", "hello")
    link(p / "pred/out/b.txt", out / "secret.txt")
    option = ", follow_symlinks: true" if follow else ""
    write(
        p / "pred.ocr.yaml",
        f"engines: {{pred: {{type: predictions, path: pred/out{option}}}}}\n"
        "defaults: {engine: pred}\n"
        "cases:\n  - {id: a, image: pred/a.jpg, expected: {text: hello}}\n"
        "  - {id: b, image: pred/b.jpg, expected: {text: hello}}\n",
    )


def test_a_link_out_of_stored_outputs_is_its_items_error_and_is_not_read(tmp_path: Path) -> None:
    out = outside(tmp_path)
    p = project(tmp_path / "project")
    stored_outputs(p, out)
    result = run(p)
    assert result.returncode == 1, result.output[-4000:]
    report = result.report(p)
    assert outcomes(report) == {
        "good.ocr.yaml::good[fake]": "passed",
        "bench.ocr.yaml::a_pg1[sys]": "passed",
        "bench.ocr.yaml::b_pg1[sys]": "error",
        "pred.ocr.yaml::a[pred]": "passed",
        "pred.ocr.yaml::b[pred]": "error",
    }
    assert errors(report, p) == {
        "bench.ocr.yaml::b_pg1[sys]": f"page output bench/sys/b_pg1_repeat1.md is a symbolic link to "
        f"{out / 'secret.md'}, outside the engine's folder bench/sys; the option follow_symlinks: true "
        "lets links lead out",
        "pred.ocr.yaml::b[pred]": f"prediction pred/out/b.txt is a symbolic link to {out / 'secret.txt'}, "
        "outside the predictions folder pred/out; the option follow_symlinks: true lets links lead out",
    }
    assert skipped(report)["bench.ocr.yaml"] == [
        (
            "bench/facts.jsonl",
            3,
            "the document c.pdf: " + links_out("bench/pdfs/c.pdf", out / "secret.pdf", "folder bench"),
        ),
        ("bench/facts.jsonl", 4, "the document ../../outside/secret.pdf is not in pdfs/"),
        ("bench/pdfs/c.pdf", None, links_out("bench/pdfs/c.pdf", out / "secret.pdf", "folder bench")),
    ]
    nothing_outside_read(p, result)

    follow = project(tmp_path / "follow")
    stored_outputs(follow, out, follow=True)
    result = run(follow)
    assert result.returncode == 0, result.output[-4000:]
    report = result.report(follow)
    assert set(outcomes(report).values()) == {"passed"} and len(outcomes(report)) == 6  # c.pdf's page too
    assert SECRET in (follow / "report.json").read_text(encoding="utf-8")


def test_links_that_stay_in_the_folders_are_followed_and_the_one_leading_out_is_named(tmp_path: Path) -> None:
    """The rule itself (files.Tree), on the cases the sessions above do not make."""
    data, other, out = tmp_path / "data", tmp_path / "other", tmp_path / "out"
    write(data / "a.txt", "a")
    write(other / "b.txt", "b")
    write(out / "c.txt", SECRET)
    link(data / "inner.txt", data / "a.txt")  # a link within the folder
    link(data / "to-other", other)  # a link into the other folder of the same tree
    link(data / "sub", out)  # a folder on the way that leads out
    link(tmp_path / "given", data)  # a folder given through a link: whoever names it is trusted
    tree = Tree([data, other], "the dataset's folder", "ALLOW")
    assert tree.outside(data / "a.txt") is None and tree.outside(data) is None
    assert tree.outside(data / "inner.txt") is None
    assert tree.outside(data / "to-other" / "b.txt") is None
    assert tree.outside(data / "missing.txt") is None  # inside: where it would be
    assert tree.outside(data / "sub" / "c.txt") == (
        f"{data / 'sub'} is a symbolic link to {out}, outside the dataset's folders {data}, {other}; ALLOW lets "
        "links lead out"
    )
    assert (
        tree.outside(data / ".." / "out" / "c.txt")
        == f"{out / 'c.txt'} is outside the dataset's folders {data}, {other}"
    )
    assert tree.outside(Path("/")) == f"/ is outside the dataset's folders {data}, {other}"
    assert Tree([tmp_path / "given"], "the folder", "ALLOW").outside(tmp_path / "given" / "a.txt") is None
    assert Tree([Path("/")], "the folder", "ALLOW").outside(out / "c.txt") is None
    assert Tree([data], "the folder", "ALLOW", follow_symlinks=True).outside(data / "sub" / "c.txt") is None
    assert Tree([data], "the folder", "ALLOW", follow_symlinks=True).outside(out / "c.txt") is not None
