"""Verified downloads of plain URLs: resumable across runs, atomic, never overwriting.

Bytes go to `<dest>.partial`; an interrupted transfer keeps it, and the next attempt (in
this run or a later one) asks for the rest with `Range: bytes=<size>-`. Only a complete
file whose sha256 matches is moved to `dest`, by a hard link that fails if `dest`
appeared meanwhile: a half or wrong file never carries the final name, and nothing is
overwritten. (The same ideas as huggingface_hub's http_get resume and torch.hub's
download_url_to_file temp file; neither is used here because the first only serves hub
files and the second restarts from zero.)
"""

import http.client
import os
import pathlib
import socket
import time
import urllib.error
import urllib.request
from typing import Callable, Dict, Optional, Tuple

from tqdm import tqdm

from metrics.checkpoints import resolver

PARTIAL_SUFFIX = ".partial"
CHUNK = 1 << 20
_TRANSIENT = (urllib.error.URLError, http.client.HTTPException, ConnectionError,
              socket.timeout, TimeoutError)


class TransferError(Exception):
    """The download did not complete; the message says what is kept for a rerun."""


class DigestMismatch(TransferError):
    """The bytes received are not the pinned file; nothing was kept."""


def digest_matches(actual: str, expected: str) -> bool:
    """`expected` is a full hex digest or a prefix (torchvision's 8 digits); empty: any."""
    return not expected or actual.startswith(expected.lower())


def partial_path(dest: pathlib.Path) -> pathlib.Path:
    return dest.with_name(dest.name + PARTIAL_SUFFIX)


def _get(url: str, partial: pathlib.Path, headers: Dict[str, str], timeout_s: float,
         label: str) -> None:
    """Appends the rest of `url` to `partial`; raises on a short or failed transfer."""
    have = partial.stat().st_size if partial.exists() else 0
    request = urllib.request.Request(
        url, headers={**headers, **({"Range": f"bytes={have}-"} if have else {})})
    try:
        response = urllib.request.urlopen(request, timeout=timeout_s)
    except urllib.error.HTTPError as e:
        if e.code == 416 and have:  # nothing left to send: the partial file is complete
            return
        raise
    with response:
        if have and response.status != 206:  # the server ignored Range: start over
            have = 0
        length = response.headers.get("Content-Length")
        total = have + int(length) if length is not None else None
        received = 0
        with open(partial, "ab" if have else "wb") as out, tqdm(
                total=total, initial=have, unit="B", unit_scale=True, desc=label,
                disable=None, leave=False) as bar:
            while True:
                chunk = response.read(CHUNK)
                if not chunk:
                    break
                out.write(chunk)
                received += len(chunk)
                bar.update(len(chunk))
        if length is not None and received < int(length):
            raise http.client.IncompleteRead(b"", int(length) - received)


def sha256_check(expected: str) -> Callable[[pathlib.Path], Tuple[str, str]]:
    """A `check` for `download`: the sha256 (or a prefix of it) must match, if given."""
    def check(path: pathlib.Path) -> Tuple[str, str]:
        digest = resolver.sha256_of(path)
        if digest_matches(digest, expected):
            return digest, ""
        return digest, f"sha256 {digest}, expected {expected}"
    return check


def download(url: str, dest: pathlib.Path,
             check: Callable[[pathlib.Path], Tuple[str, str]] = sha256_check(""),
             headers: Optional[Dict[str, str]] = None, retries: int = 3,
             timeout_s: float = 60.0) -> str:
    """Downloads `url` to `dest` and returns its sha256.

    Args:
      check: path -> (sha256, why it is wrong or ""), run on the complete file before it
        takes the final name.
      headers: sent with every request (e.g. the hub's authorization).

    Raises:
      FileExistsError: `dest` exists (this never overwrites; the caller checks first).
      DigestMismatch: the complete file fails `check` (removed).
      TransferError: still incomplete after `retries` resumed attempts (kept as .partial).
    """
    if dest.exists():
        raise FileExistsError(f"{dest} exists; not overwritten")
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = partial_path(dest)
    for attempt in range(retries + 1):
        try:
            _get(url, partial, headers or {}, timeout_s, dest.name)
            break
        except _TRANSIENT as e:
            kept = partial.stat().st_size if partial.exists() else 0
            if attempt == retries:
                raise TransferError(
                    f"{url}: interrupted ({type(e).__name__}: {e}) after {attempt + 1} "
                    f"attempts; {kept} bytes kept in {partial}, a rerun resumes") from e
            print(f"{dest.name}: interrupted at {kept} bytes ({type(e).__name__}), resuming",
                  flush=True)
            time.sleep(min(2 ** attempt, 8) * 0.25)
    digest, wrong = check(partial)
    if wrong:
        partial.unlink()
        raise DigestMismatch(f"{url}: the file received has {wrong}; not kept")
    try:
        os.link(partial, dest)  # fails if dest appeared meanwhile: never overwrite
    except FileExistsError:
        partial.unlink()
        raise
    partial.unlink()
    return digest
