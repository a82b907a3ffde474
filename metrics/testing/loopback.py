"""Loopback servers for tests of network failures: nothing leaves 127.0.0.1.

closed_port() refuses connections, silent_listener() accepts them and never answers,
answering_server() answers every HTTP request with 503.
"""

import contextlib
import http.server
import socket
import threading


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def silent_listener():
    """(port, accepted connections): accepts and holds connections, never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted = []

    def accept():
        while True:
            try:
                accepted.append(server.accept()[0])
            except OSError:  # closed
                return

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield server.getsockname()[1], accepted
    finally:
        server.close()
        for conn in accepted:
            conn.close()


class _Answer503(http.server.BaseHTTPRequestHandler):
    requests = []

    def _answer(self):
        type(self).requests.append((self.command, self.path))
        self.send_response(503)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_HEAD = _answer

    def log_message(self, *args):  # keep the test log quiet
        del args


@contextlib.contextmanager
def answering_server():
    """(port, requests seen): an HTTP server that answers 503 to everything."""
    handler = type("Handler", (_Answer503,), {"requests": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1], handler.requests
    finally:
        server.shutdown()
        server.server_close()
