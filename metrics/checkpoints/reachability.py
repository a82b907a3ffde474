"""Whether the host a checkpoint download would contact answers, asked once per host.

An offline machine should cost a run seconds, not the hub client's retries: before the
first download of a process, `probe(url)` opens a TCP connection to the URL's host (or to
the proxy the environment names for it) and, without a proxy, sends a tiny HTTP HEAD and
waits for the first byte of an answer (after a TLS handshake for https), all within one
deadline (env WORLDEVAL_HUB_PROBE_TIMEOUT_S, default 3 s). Name resolution runs in a
helper thread so that a dead resolver is bounded by the same deadline. Any answer, even
an HTTP error, counts as reachable; a refused or silent host does not. The verdict is
cached per (scheme, host, port) for the life of the process; `reset()` forgets it (tests).
"""

import dataclasses
import os
import queue
import socket
import ssl
import threading
import time
import urllib.parse
import urllib.request
from typing import Dict, List, Optional, Tuple

TIMEOUT_ENV = "WORLDEVAL_HUB_PROBE_TIMEOUT_S"
DEFAULT_TIMEOUT_S = 3.0
DEFAULT_HF_ENDPOINT = "https://huggingface.co"


@dataclasses.dataclass(frozen=True)
class Verdict:
    """What one probe found.

    Attributes:
      host / port: what was contacted (the proxy's, when `via_proxy`).
      reachable: True when the host answered.
      reason: why not, e.g. "connection refused"; empty when reachable.
      seconds: how long the probe took.
      via_proxy: True when the environment routes the URL through a proxy.
    """

    host: str
    port: int
    reachable: bool
    reason: str = ""
    seconds: float = 0.0
    via_proxy: bool = False

    def describe(self) -> str:
        """One line, e.g. "huggingface.co:443 is unreachable (connection refused after 0.0 s)"."""
        where = f"{'the proxy ' if self.via_proxy else ''}{self.host}:{self.port}"
        if self.reachable:
            return f"{where} is reachable"
        return f"{where} is unreachable ({self.reason} after {self.seconds:.1f} s)"


_LOCK = threading.Lock()
_VERDICTS: Dict[Tuple[str, str, int], Verdict] = {}


def reset() -> None:
    """Forgets every cached verdict (the next probe of each host connects again)."""
    with _LOCK:
        _VERDICTS.clear()


def hf_endpoint() -> str:
    """The Hugging Face endpoint downloads go to: env HF_ENDPOINT, else huggingface.co."""
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_HF_ENDPOINT).rstrip("/")


def timeout_s() -> float:
    """The probe's whole deadline in seconds (env WORLDEVAL_HUB_PROBE_TIMEOUT_S)."""
    try:
        value = float(os.environ.get(TIMEOUT_ENV, ""))
    except ValueError:
        return DEFAULT_TIMEOUT_S
    return value if value > 0 else DEFAULT_TIMEOUT_S


def probe(url: str) -> Verdict:
    """The verdict on `url`'s host, probed on the first call for that host, then cached.

    Raises:
      ValueError: `url` has no host or an unknown scheme.
    """
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"cannot probe {url!r}: expected an http(s) URL with a host")
    port = parts.port or (443 if scheme == "https" else 80)
    key = (scheme, parts.hostname, port)
    with _LOCK:  # one probe per host, even when threads resolve checkpoints together
        if key not in _VERDICTS:
            _VERDICTS[key] = _probe(scheme, parts.hostname, port, timeout_s())
        return _VERDICTS[key]


def _proxy_for(scheme: str, host: str) -> Optional[Tuple[str, int]]:
    """(host, port) of the proxy the environment names for `scheme://host`, or None."""
    proxy = urllib.request.getproxies().get(scheme) or urllib.request.getproxies().get("all")
    if not proxy or urllib.request.proxy_bypass(host):
        return None
    parts = urllib.parse.urlsplit(proxy if "://" in proxy else "http://" + proxy)
    if not parts.hostname:
        return None
    return parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)


def _probe(scheme: str, host: str, port: int, budget_s: float) -> Verdict:
    start = time.monotonic()
    deadline = start + budget_s
    proxy = _proxy_for(scheme, host)
    target_host, target_port = proxy or (host, port)

    def verdict(reason: str = "") -> Verdict:
        return Verdict(target_host, target_port, not reason, reason,
                       time.monotonic() - start, proxy is not None)

    addresses, error = _addresses(target_host, target_port, deadline)
    if error:
        return verdict(error)
    sock, error = _connect(addresses, deadline)
    if sock is None:
        return verdict(error)
    with sock:
        if proxy is not None:  # the proxy accepts; what lies behind it is its business
            return verdict()
        return verdict(_ask(sock, scheme, host, deadline))


def _addresses(host: str, port: int, deadline: float) -> Tuple[List[tuple], str]:
    """getaddrinfo bounded by `deadline` (it takes no timeout of its own)."""
    answer: "queue.Queue" = queue.Queue(maxsize=1)

    def lookup():
        try:
            answer.put((socket.getaddrinfo(host, port, type=socket.SOCK_STREAM), ""))
        except OSError as e:
            answer.put(([], _lower(e.strerror) or "name resolution failed"))

    threading.Thread(target=lookup, name="worldeval-hub-probe-dns", daemon=True).start()
    try:
        found, error = answer.get(timeout=max(0.0, deadline - time.monotonic()))
    except queue.Empty:
        return [], "name resolution gave no answer"
    return found, error or ("" if found else "name resolution found no address")


def _connect(addresses, deadline: float) -> Tuple[Optional[socket.socket], str]:
    error = "no connection"
    for _, _, _, _, sockaddr in addresses:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None, "no connection"
        try:
            return socket.create_connection(sockaddr[:2], timeout=remaining), ""
        except ConnectionRefusedError:
            error = "connection refused"
        except socket.timeout:
            return None, "no connection"
        except OSError as e:
            error = _lower(e.strerror) or type(e).__name__
    return None, error


def _ask(sock: socket.socket, scheme: str, host: str, deadline: float) -> str:
    """'' when the server sends anything back to a HEAD /, else why not."""
    tls = None
    try:
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        if scheme == "https":  # liveness only: nothing is trusted from this answer
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            tls = context.wrap_socket(sock, server_hostname=host)
            tls.settimeout(max(0.001, deadline - time.monotonic()))
        channel = tls or sock
        channel.sendall(f"HEAD / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        return "" if channel.recv(1) else "connection closed without an answer"
    except socket.timeout:
        return "no answer"
    except ssl.SSLError as e:
        return f"TLS handshake failed: {e.reason or type(e).__name__}"
    except OSError as e:
        return _lower(e.strerror) or type(e).__name__
    finally:
        if tls is not None:
            tls.close()


def _lower(text: Optional[str]) -> str:
    """"Name or service not known" -> "name or service not known" (it ends a phrase)."""
    return text[:1].lower() + text[1:] if text else ""
