"""What ``--ocr-baseline-write`` accepts and how few matches ``--ocr-baseline-min-match``
allows by default: apart from run/baseline.py, so that declaring pytest's options (in
every pytest session, OCR or not) imports nothing of the comparison."""

VERBS = ("create", "update", "ratchet")
DEFAULT_MIN_MATCH = 0.5
