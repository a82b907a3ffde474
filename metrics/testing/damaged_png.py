"""Damaged images for bad-input tests."""

import struct
import zlib


def png_claiming(width: int, height: int) -> bytes:
    """A well-formed PNG (valid chunk CRCs) whose IHDR claims width x height pixels; its
    one IDAT row is far too short, but OpenCV checks the size before decoding rows (and
    refuses one over CV_IO_MAX_IMAGE_PIXELS)."""
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(b"\x00" * 4)) + chunk(b"IEND", b""))
