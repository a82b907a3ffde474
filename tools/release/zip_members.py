"""Zip members written the way Bazel's zipper writes a py_binary's python_zip_file.

Bazel 4.2.3 makes `<runner>.zip` with `@bazel_tools//tools/zip:zipper cC` (third_party/ijar):
members in the order of its argument list, no data descriptors and no extra fields,
"version needed" 10, DOS time 2010-01-01 00:00, the Unix mode in the upper 16 bits of the
external attributes (0o666, no type bits, for an empty `name=` entry), made by Unix; each file
deflated (raw, zlib's default level and memory) unless that is not smaller than the file,
then stored. A member written here has the same bytes as the zipper's, so a release file
made from these members is the zip Bazel would make (pinned by zip_members_test against
the zipper itself).

The point of writing them ourselves: the five runners' zips share ~6.6 GB of wheels, and
the zipper compresses every file again for every runner (5 x ~2 min). `compress` runs once
per distinct file; a member's compressed bytes are copied into every zip that lists it.
"""

import dataclasses
import os
import stat
import struct
import zlib

# 2010-01-01 00:00:00 as DOS date and time (ijar's default timestamp).
DOS_DATE = ((2010 - 1980) << 9) | (1 << 5) | 1
DOS_TIME = 0
VERSION = 10  # "version needed to extract" the zipper writes for stored and deflated alike
MADE_BY_UNIX = 3 << 8
EMPTY_MODE = 0o666  # a `name=` entry (no file): mode 0666 and no file-type bits
STORED, DEFLATED = 0, 8
# Python 3.11's zipimport (which runs __main__.py out of the release file) reads neither
# ZIP64 offsets nor counts: a zip past these is refused rather than written unreadable.
MAX_OFFSET = 0xFFFFFFFF
MAX_MEMBERS = 0xFFFF


@dataclasses.dataclass(frozen=True)
class Compressed:
    """One file's member data: its bytes as stored in the zip and what the headers say."""

    method: int
    crc: int
    size: int  # uncompressed
    compressed_size: int
    mode: int
    data: bytes = b""  # empty once the member is written (the headers need only the rest)


def compress(path: str) -> Compressed:
    """Reads `path` ("" for an empty `name=` entry) and compresses it as the zipper does."""
    if not path:
        return Compressed(STORED, 0, 0, 0, EMPTY_MODE)
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{path}: a zip member must be a regular file (or a link to one)")
    with open(path, "rb") as f:
        raw = f.read()
    crc = zlib.crc32(raw)
    packer = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -zlib.MAX_WBITS)
    deflated = packer.compress(raw) + packer.flush()
    if len(deflated) < len(raw):
        return Compressed(DEFLATED, crc, len(raw), len(deflated), info.st_mode, deflated)
    return Compressed(STORED, crc, len(raw), len(raw), info.st_mode, raw)


def local_header(name: bytes, c: Compressed) -> bytes:
    return struct.pack("<IHHHHHIIIHH", 0x04034B50, VERSION, 0, c.method, DOS_TIME, DOS_DATE,
                       c.crc, c.compressed_size, c.size, len(name), 0) + name


def central_header(name: bytes, c: Compressed, offset: int) -> bytes:
    return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, MADE_BY_UNIX, VERSION, 0, c.method,
                       DOS_TIME, DOS_DATE, c.crc, c.compressed_size, c.size, len(name), 0, 0, 0, 0,
                       (c.mode & 0xFFFF) << 16, offset) + name


def end_record(count: int, directory_size: int, directory_offset: int) -> bytes:
    return struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, directory_size,
                       directory_offset, 0)


def check_limits(zip_name: str, count: int, end_offset: int) -> None:
    """Refuses a zip that would need ZIP64, which Python 3.11's zipimport cannot read."""
    if count > MAX_MEMBERS or end_offset > MAX_OFFSET:
        raise ValueError(
            f"{zip_name}: {count} members, {end_offset} bytes: past the classic zip limits "
            f"({MAX_MEMBERS} members, 4 GiB); Python 3.11's zipimport cannot run a ZIP64 "
            "release file, so this runner cannot be released as one zip")
