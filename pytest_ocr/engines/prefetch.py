"""Recognitions started ahead of the items that need them.

pytest runs items one at a time, but an OCR server batches requests: calling it with
one image at a time leaves it idle. An engine that declares ``concurrency = K`` gets K
threads: when an item needs its output, the recognitions of the next items on the same
engine are started too, so up to K requests are in flight while items still run (and
report) in their usual order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

LOOKAHEAD = 2  # queued recognitions per thread, so a thread finishing one starts the next at once

_T = TypeVar("_T")


class Prefetcher:
    def __init__(self) -> None:
        self._pools: dict[str, ThreadPoolExecutor] = {}
        self._futures: dict[str, Future] = {}  # item id -> its recognition

    def result(
        self, item_id: str, engine_key: str, concurrency: int, upcoming: Iterable[tuple[str, Callable[[], _T]]]
    ) -> _T:
        """The recognition of ``item_id``, after making sure it and the next ones of
        ``upcoming`` ((item id, start function) in run order, this item first, all on
        the same engine) are started. Raises what the recognition raised."""
        pool = self._pools.get(engine_key)
        if pool is None:
            pool = self._pools[engine_key] = ThreadPoolExecutor(concurrency, thread_name_prefix="pytest-ocr")
        for count, (upcoming_id, start) in enumerate(upcoming):
            if count >= concurrency * LOOKAHEAD:
                break
            if upcoming_id not in self._futures:
                self._futures[upcoming_id] = pool.submit(start)
        if item_id not in self._futures:
            raise KeyError(f"{item_id} is not among its own upcoming items")
        return self._futures.pop(item_id).result()

    def close(self) -> None:
        """Stop: recognitions not started yet are cancelled (e.g. after -x)."""
        for pool in self._pools.values():
            pool.shutdown(wait=True, cancel_futures=True)
        self._pools.clear()
        self._futures.clear()
