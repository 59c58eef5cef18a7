"""An item's metric counts (what micro averages pool: errors, lengths, hits, ...) as the
history store keeps them: mostly small whole numbers, so each is one varint, a byte or two,
where a double would take eight (ten counts an item are 0.8 MB of a 20,000-item run).

Each count is a LEB128 varint ``code``: even, the whole number ``code // 2``; ``1``, a
little-endian double follows (a fraction: the mean counts of repeats, or a number too
large to be exact); ``3``, no such count for the item.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

_DOUBLE = 1
_ABSENT = 3
_EXACT = 2**53  # whole numbers up to here are exact as doubles: the same number read back


def _varint(code: int) -> bytes:
    out = bytearray()
    while code > 0x7F:
        out.append((code & 0x7F) | 0x80)
        code >>= 7
    out.append(code)
    return bytes(out)


_SMALL = [_varint(n << 1) for n in range(1 << 13)]  # the codes of 0 to 8191, two bytes at most: most counts


def encode(values: Sequence[float | None]) -> bytes:
    parts = []
    for value in values:
        if type(value) is int and 0 <= value < len(_SMALL):
            parts.append(_SMALL[value])
        elif value is None:
            parts.append(b"\x03")
        elif value == value and 0 <= value < _EXACT and value == int(value):  # value == value: not NaN
            parts.append(_varint(int(value) << 1))
        else:
            parts.append(struct.pack("<Bd", _DOUBLE, value))
    return b"".join(parts)


def decode(data: bytes) -> list[float | None]:
    """The counts ``encode`` coded; ValueError for bytes it would not have written (a varint
    cut short or longer than 64 bits, a double cut short)."""
    values: list[float | None] = []
    i, end = 0, len(data)
    while i < end:
        code = shift = 0
        while True:
            if i == end or shift > 63:
                raise ValueError("not coded counts")
            byte = data[i]
            i += 1
            code |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        if code == _ABSENT:
            values.append(None)
        elif code == _DOUBLE:
            if i + 8 > end:
                raise ValueError("not coded counts")
            values.append(struct.unpack_from("<d", data, i)[0])
            i += 8
        else:
            values.append(code >> 1)
    return values
