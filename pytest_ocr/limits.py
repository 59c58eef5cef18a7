"""The bounds on what pytest-ocr reads and computes, so that hostile input costs an item,
never the run: each has a default, a command-line option and a line in docs/reference/limits.md.

They are process-wide, like Pillow's ``Image.MAX_IMAGE_PIXELS``: the plugin sets them
once per process from its options (``use``), and the code that reads a file, an image
or an engine's output asks ``active()``. Library users get the defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from .errors import shortened

MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    max_file_mb: float = 100.0  # a case, data, ground-truth, label or predictions file
    max_nesting: int = 100  # levels of nested mappings and lists in a YAML or JSON file
    max_yaml_nodes: int = 1_000_000  # nodes a YAML document may expand to through aliases
    max_image_mb: float = 200.0  # an image or PDF file
    max_image_pixels: int = 250_000_000  # width × height of a decoded image or a rasterised PDF page
    # The process that rasterises PDF pages (media/rasteriser.py): its address space, and one page's time.
    max_rasterise_mb: float = 1024.0
    max_rasterise_s: float = 60.0
    # for another process's lock on a baseline file, a page being rasterised or the history store
    # (history/store.py: SQLite's busy timeout, PostgreSQL's lock and connect timeouts)
    max_lock_wait_s: float = 120.0
    max_output_mb: float = 10.0  # the text of one recognition, UTF-8
    max_align_chars: int = 200_000  # longer texts are aligned by a cheaper, documented path
    max_render_s: float = 30.0  # one equation rendered by KaTeX in the browser (math checks)
    max_math_equations: int = 1_000  # distinct equations of an output one math fact renders and compares
    max_math_s: float = 60.0  # rendering and comparing equations for one output's math facts
    # A table's tree beyond this is not compared by teds (APTED is cubic: 2,000 nodes take ~50 s).
    max_table_nodes: int = 2_000
    # Work of OmniDocBench's quick match of one page (edit distances, weighted by their size;
    # metrics/omnidocbench/page.py's MAX_MATCH_WORK): past it the page is matched by its simple method.
    max_match_work: int = 10_000_000
    # OmniDocBench's CDM of one page's display formulas (xelatex, Ghostscript and Node.js, about 1.5 s a formula;
    # each tool also has CDM's own 30 s): past it the item is an error, as a page scored on some formulas is no score
    max_cdm_s: float = 300.0

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * MB)

    @property
    def max_image_bytes(self) -> int:
        return int(self.max_image_mb * MB)

    @property
    def max_output_bytes(self) -> int:
        return int(self.max_output_mb * MB)


DEFAULT = Limits()
NAMES = tuple(f.name for f in fields(Limits))
OPTIONS = {name: "--ocr-" + name.replace("_", "-") for name in NAMES}  # max_file_mb -> --ocr-max-file-mb


# The sane range of a limit: above 0, finite, and at most this; beyond it a number of MB or
# seconds (a terabyte, eleven days) or of items no longer bounds anything, and inf or 1e400
# would overflow where the limit is used, failing every item.
MOST = {int: 10**12, float: 10**6}


def out_of_range(name: str, value: float) -> str | None:
    """Why ``value`` cannot be limit ``name`` (a line naming its option), or None."""
    most = MOST[type(getattr(DEFAULT, name))]
    if 0 < value <= most:  # NaN is not
        return None
    return f"{OPTIONS[name]}: expected a number above 0 and at most {most:,}, not {shortened(value)}"


def exceeded(what: str, size: float, name: str, unit: str = "") -> str:
    """The message for ``what`` beyond a limit: ``image is 312 MB; the limit is 200 MB (--ocr-max-image-mb)``."""
    limit = getattr(active(), name)
    return f"{what} is {size:g}{unit}; the limit is {limit:g}{unit} ({OPTIONS[name]})"


_active = DEFAULT


def use(limits: Limits) -> None:
    """Make ``limits`` the ones this process applies."""
    global _active
    _active = limits


def active() -> Limits:
    return _active
