"""testonly: a scriptable judge server on 127.0.0.1 speaking two wire formats.

Gemini, as google-genai 3.6.1 uses it (read in google/genai/files.py and
_api_client.py of the locked wheel):
    POST /upload/v1/files                    resumable upload, command "start"; the reply's
                                             `x-goog-upload-url` header says where to send bytes
    POST /upload/v1/files?upload_id=N        command "upload, finalize"; reply carries
                                             `x-goog-upload-status: final` and {"file": File}
    GET  /v1/files/{id}                      File JSON (state PROCESSING / ACTIVE / FAILED)
    POST /v1/models/{model}:generateContent  {"candidates": [{"content": {"parts": [...]}}]}
OpenAI-compatible:
    POST /v1/chat/completions                {"choices": [{"message": {"content": ...}}]}

Each route answers from its own script (a queue of `Reply`); an empty queue gives the
route's default. Every request is recorded, so a test can check what reached the server.
"""

import dataclasses
import http.server
import json
import threading
import urllib.parse
from typing import Dict, List, Optional

GENERATE = "generate"   # Gemini generateContent and OpenAI chat completions
UPLOAD = "upload"       # the byte transfer of a Gemini upload
FILE_STATE = "file_state"
_UPLOAD_START = "/upload/v1/files"


@dataclasses.dataclass
class Reply:
    """One scripted answer.

    Attributes:
        text: For GENERATE, the model's text; for FILE_STATE, the file state.
        status: HTTP status; non-200 replies carry a Google-style error body.
        delay_s: Seconds to wait before answering (longer than the client's timeout
            makes the client time out).
        raw_body: Bytes sent as the body instead of a well-formed reply.
    """

    text: str = ""
    status: int = 200
    delay_s: float = 0.0
    raw_body: Optional[bytes] = None


@dataclasses.dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes

    def json(self):
        return json.loads(self.body.decode("utf-8"))


class LoopbackJudgeServer:
    """A threaded HTTP server on 127.0.0.1 (ephemeral port); use as a context manager."""

    def __init__(self, default_text: str = "[]"):
        self.default_text = default_text
        self.requests: List[Recorded] = []
        self._scripts: Dict[str, List[Reply]] = {GENERATE: [], UPLOAD: [], FILE_STATE: []}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._next_file = 0
        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,),
                                        daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, route: str, *replies: Reply) -> None:
        with self._lock:
            self._scripts[route].extend(replies)

    def requests_to(self, fragment: str) -> List[Recorded]:
        return [r for r in self.requests if fragment in r.path]

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    # -- request handling (called from the handler threads) --

    def _pop(self, route: str) -> Optional[Reply]:
        with self._lock:
            return self._scripts[route].pop(0) if self._scripts[route] else None

    def _new_file_name(self) -> str:
        with self._lock:
            self._next_file += 1
            return f"files/loopback-{self._next_file}"

    def _file_json(self, name: str, state: str, mime_type: str = "video/mp4", size=0):
        return {"name": name, "mimeType": mime_type, "sizeBytes": str(size), "state": state,
                "uri": f"{self.base_url}/v1/{name}"}

    def handle(self, method: str, path: str, headers: Dict[str, str], body: bytes):
        """(status, headers, body bytes, delay) for one request."""
        self.requests.append(Recorded(method, path, headers, body))
        parsed = urllib.parse.urlparse(path)
        query = urllib.parse.parse_qs(parsed.query)
        if method == "POST" and parsed.path == _UPLOAD_START and "upload_id" not in query:
            upload_url = f"{self.base_url}{_UPLOAD_START}?upload_id=1&upload_protocol=resumable"
            return 200, {"x-goog-upload-url": upload_url}, b"{}", 0.0
        if method == "POST" and parsed.path == _UPLOAD_START:
            reply = self._pop(UPLOAD) or Reply()
            meta = {"x-goog-upload-status": "final"}
            if reply.status != 200 or reply.raw_body is not None:
                return self._error_or_raw(reply, meta)
            file = self._file_json(self._new_file_name(), "PROCESSING", size=len(body))
            return 200, meta, json.dumps({"file": file}).encode(), reply.delay_s
        if method == "GET" and parsed.path.startswith("/v1/files/"):
            reply = self._pop(FILE_STATE) or Reply(text="ACTIVE")
            if reply.status != 200 or reply.raw_body is not None:
                return self._error_or_raw(reply, {})
            name = parsed.path[len("/v1/"):]
            return 200, {}, json.dumps(self._file_json(name, reply.text)).encode(), reply.delay_s
        if method == "POST" and parsed.path.startswith("/v1/models/") and parsed.path.endswith(
                ":generateContent"):
            return self._generate(_gemini_body)
        if method == "POST" and parsed.path == "/v1/chat/completions":
            return self._generate(_openai_body)
        return 404, {}, json.dumps({"error": {"code": 404, "message": f"no route {path}",
                                              "status": "NOT_FOUND"}}).encode(), 0.0

    def _generate(self, body_fn):
        reply = self._pop(GENERATE) or Reply(text=self.default_text)
        if reply.status != 200 or reply.raw_body is not None:
            return self._error_or_raw(reply, {})
        return 200, {}, json.dumps(body_fn(reply.text)).encode(), reply.delay_s

    @staticmethod
    def _error_or_raw(reply: Reply, headers):
        if reply.raw_body is not None:
            return reply.status, headers, reply.raw_body, reply.delay_s
        status_name = {429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}.get(
            reply.status, "UNKNOWN")
        body = {"error": {"code": reply.status, "message": f"scripted {reply.status}",
                          "status": status_name}}
        return reply.status, headers, json.dumps(body).encode(), reply.delay_s


def _gemini_body(text: str) -> dict:
    return {"candidates": [{"content": {"parts": [{"text": text}], "role": "model"},
                            "finishReason": "STOP", "index": 0}],
            "modelVersion": "loopback"}


def _openai_body(text: str) -> dict:
    return {"id": "chatcmpl-loopback", "object": "chat.completion", "model": "loopback",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}]}


def _make_handler(server: LoopbackJudgeServer):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self, method: str):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, extra, payload, delay = server.handle(method, self.path, headers, body)
            if delay and server._stopping.wait(delay):
                return
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for key, value in extra.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a scripted timeout)

        def do_GET(self):
            self._serve("GET")

        def do_POST(self):
            self._serve("POST")

        def log_message(self, *args):
            del args  # keep test output quiet

    return Handler


_PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY",
               "ALL_PROXY")
_LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")


def guard_loopback(monkeypatch) -> List[str]:
    """Makes a test fail on any connection that is not to 127.0.0.1 / ::1.

    Clears the proxy variables (a proxy would relay loopback requests elsewhere) and
    wraps socket connect/getaddrinfo. Returns the list of refused addresses.
    """
    import socket  # pylint: disable=import-outside-toplevel
    for var in _PROXY_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost,::1")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost,::1")
    refused: List[str] = []
    real_connect = socket.socket.connect
    real_getaddrinfo = socket.getaddrinfo

    def connect(sock, address):
        host = address[0] if isinstance(address, tuple) else address
        if sock.family in (socket.AF_INET, socket.AF_INET6) and host not in _LOOPBACK_HOSTS:
            refused.append(str(address))
            raise OSError(f"test guard: connection to {address} refused (loopback only)")
        return real_connect(sock, address)

    def getaddrinfo(host, *args, **kwargs):
        if host not in _LOOPBACK_HOSTS and host is not None:
            refused.append(str(host))
            raise OSError(f"test guard: lookup of {host} refused (loopback only)")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return refused
