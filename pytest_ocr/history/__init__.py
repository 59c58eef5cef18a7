"""Memory across runs: each run recorded in a store (SQLite in the project, or a team's
PostgreSQL server) with where it came from, for trends, step detection and baselines from
history. Imported only when a run or a command uses history: never by a session without
--ocr-history (nor PYTEST_OCR_HISTORY_URL, nor the ocr_history ini key)."""
