"""A checkpoint's direct-URL download (the resolver's last source for a URL spec)."""

import hashlib
import os
import pathlib
import urllib.request


def download(url: str, target: pathlib.Path, sha256: str) -> None:
    """torch.hub.download_url_to_file's contract, without torch (a weight-free runner's
    release need not carry it): the file streamed to `<target>.partial` in the same folder,
    its sha256 checked where one is pinned (RuntimeError, the partial file removed), then
    renamed into place."""
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    request = urllib.request.Request(url, headers={"User-Agent": "worldeval"})
    try:
        with urllib.request.urlopen(request) as response, open(partial, "wb") as out:
            while chunk := response.read(1 << 20):
                out.write(chunk)
                digest.update(chunk)
        if sha256 and not digest.hexdigest().startswith(sha256):
            raise RuntimeError(f'invalid hash value (expected "{sha256}", got '
                               f'"{digest.hexdigest()}")')
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
