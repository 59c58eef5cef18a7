"""What ``--ocr-baseline-write`` accepts, how few matches ``--ocr-baseline-min-match``
allows by default, and how a baseline from the history store is named: apart from
run/baseline.py, so that declaring pytest's options (in every pytest session, OCR or not)
imports nothing of the comparison."""

VERBS = ("create", "update", "ratchet")
DEFAULT_MIN_MATCH = 0.5
HISTORY = "history:"  # --ocr-baseline history:main: a run from the history store (history/baseline.py), never a file


def from_history(given: str | None) -> bool:
    """Whether a baseline given so is a run from the history store."""
    return given is not None and given.startswith(HISTORY)
