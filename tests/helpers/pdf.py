"""Hand-built PDF files: the objects given, the cross-reference table computed."""

from __future__ import annotations


def pdf_file(objects: list[bytes], trailer: bytes = b"") -> bytes:
    """A PDF of these objects (numbered from 1, the first the catalog), the cross-reference
    table's offsets computed."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, trailer, xref)
    return bytes(out)
