"""Test helper: an HTTP server on 127.0.0.1 that answers like the Hugging Face hub.

It serves the requests huggingface_hub 2.4 makes (read in the locked wheel):
- `GET /api/models/{repo}/revision/{rev}?blobs=true` (HfApi.model_info with
  files_metadata): `sha` and `siblings` with `rfilename`, `size`, `blobId`, `lfs`.
- `HEAD /{repo}/resolve/{rev}/{file}` (get_hf_file_metadata): `X-Repo-Commit`, `ETag`
  (the git blob sha1 of a regular file), and for an LFS file `X-Linked-Etag` (its
  sha256) and `X-Linked-Size`, which the client prefers.
- `GET` of the same path, with `Range: bytes=N-` answered by 206 and `Content-Range`
  (file_download.http_get resumes with it).
plus plain files at `/files/{name}` for direct-URL checkpoints. Faults: a file can be
served corrupted (its metadata announces the true digest, the body differs), or cut off
after some bytes, on its first few GETs (the connection closes mid-body).
"""

import dataclasses
import hashlib
import http.server
import json
import re
import socket
import threading
from typing import Dict, List, Optional, Tuple

_RESOLVE = re.compile(r"^/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<path>.+)$")
_API = re.compile(r"^/api/models/(?P<repo>[^/]+/[^/]+)/revision/(?P<rev>[^/?]+)")
_LFS_SUFFIXES = (".safetensors", ".bin", ".pth", ".pt")


@dataclasses.dataclass
class ServedFile:
    data: bytes
    sha256: Optional[str] = None  # set for an LFS file (announced as X-Linked-Etag)
    corrupt: bool = False         # serve different bytes than the metadata announces
    cut_after: int = 0            # close the connection after this many body bytes ...
    cuts_left: int = 0            # ... on this many GETs

    @property
    def lfs(self) -> bool:
        return self.sha256 is not None

    def body(self) -> bytes:
        return self.data[:-1] + bytes([self.data[-1] ^ 0xFF]) if self.corrupt else self.data


def git_blob_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class LoopbackHub:
    """Start with `with LoopbackHub() as hub:`; `hub.endpoint` is its base URL."""

    def __init__(self):
        self.repos: Dict[str, Tuple[str, Dict[str, ServedFile]]] = {}
        self.files: Dict[str, ServedFile] = {}
        self.requests: List[Tuple[str, str, str]] = []  # (method, path, Range header)
        hub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_HEAD(self):  # noqa: N802 (http.server's names)
                hub.answer(self, head=True)

            def do_GET(self):  # noqa: N802
                hub.answer(self, head=False)

            def log_message(self, *args):
                del args

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self):
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()

    def add_repo(self, repo: str, commit: str, files: Dict[str, bytes]) -> Dict[str, ServedFile]:
        served = {}
        for path, data in files.items():
            lfs = path.endswith(_LFS_SUFFIXES)
            served[path] = ServedFile(data, sha256=hashlib.sha256(data).hexdigest() if lfs else None)
        self.repos[repo] = (commit, served)
        return served

    def add_file(self, name: str, data: bytes) -> ServedFile:
        self.files[name] = ServedFile(data)
        return self.files[name]

    def url(self, name: str) -> str:
        return f"{self.endpoint}/files/{name}"

    def ranges(self, path_suffix: str) -> List[str]:
        """The Range headers of the GETs whose path ends with `path_suffix`."""
        return [r for m, p, r in self.requests if m == "GET" and p.endswith(path_suffix)]

    def downloads(self) -> int:
        """How many file bodies were asked for (API calls and HEADs not counted)."""
        return sum(m == "GET" and not p.startswith("/api/") for m, p, _ in self.requests)

    # --- serving ---------------------------------------------------------------------

    def answer(self, handler, head: bool):
        path = handler.path.split("?")[0]
        self.requests.append(("HEAD" if head else "GET", path, handler.headers.get("Range", "")))
        api, resolve = _API.match(path), _RESOLVE.match(path)
        if api and api["repo"] in self.repos:
            return self._json(handler, self._model_info(api["repo"]))
        if resolve and resolve["repo"] in self.repos:
            commit, files = self.repos[resolve["repo"]]
            served = files.get(resolve["path"])
            if served is None:
                return self._error(handler, 404, "EntryNotFound", commit)
            headers = {"X-Repo-Commit": commit, "ETag": f'"{git_blob_sha1(served.data)}"'}
            if served.lfs:
                headers.update({"X-Linked-Etag": f'"{served.sha256}"',
                                "X-Linked-Size": str(len(served.data))})
            return self._file(handler, served, headers, head)
        if path.startswith("/files/") and path[len("/files/"):] in self.files:
            return self._file(handler, self.files[path[len("/files/"):]], {}, head)
        return self._error(handler, 404, "RepoNotFound", "")

    def _model_info(self, repo: str) -> dict:
        commit, files = self.repos[repo]
        siblings = []
        for path, served in files.items():
            sibling = {"rfilename": path, "size": len(served.data),
                       "blobId": git_blob_sha1(served.data)}
            if served.lfs:
                sibling["lfs"] = {"sha256": served.sha256, "size": len(served.data),
                                  "pointerSize": 134}
            siblings.append(sibling)
        return {"id": repo, "modelId": repo, "sha": commit, "private": False,
                "siblings": siblings}

    @staticmethod
    def _json(handler, payload: dict):
        body = json.dumps(payload).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    @staticmethod
    def _error(handler, status: int, code: str, commit: str):
        handler.send_response(status)
        handler.send_header("X-Error-Code", code)
        if commit:
            handler.send_header("X-Repo-Commit", commit)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    @staticmethod
    def _file(handler, served: ServedFile, headers: dict, head: bool):
        body = served.body()
        start = 0
        match = re.match(r"bytes=(\d+)-$", handler.headers.get("Range", ""))
        if match and not head:
            start = int(match.group(1))
            if start >= len(body):
                handler.send_response(416)
                handler.send_header("Content-Range", f"bytes */{len(body)}")
                handler.send_header("Content-Length", "0")
                handler.end_headers()
                return
        handler.send_response(206 if start else 200)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.send_header("Accept-Ranges", "bytes")
        handler.send_header("Content-Length", str(len(body) - start))
        if start:
            handler.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        handler.end_headers()
        if head:
            return
        if served.cuts_left > 0:
            served.cuts_left -= 1
            handler.wfile.write(body[start:start + served.cut_after])
            handler.wfile.flush()
            handler.close_connection = True
            handler.connection.shutdown(socket.SHUT_RDWR)
            return
        handler.wfile.write(body[start:])
