"""Checkpoint resolution: every source in order, digests, and failures that say how to fetch.

No test reaches the network: downloads are only attempted where `offline` is False and
a local source exists first, or against loopback servers on 127.0.0.1 (metrics/testing/
loopback.py) that refuse, stay silent or answer 503.
"""

import collections
import dataclasses
import hashlib
import re
import time

import pytest

from metrics.checkpoints import reachability
from metrics.checkpoints import resolver
from metrics.checkpoints import url_download
from metrics.testing import loopback

FILE_SPEC = resolver.CheckpointSpec(
    name="raft_large", filename="raft_large_C_T_SKHT_V2-ff5fadd5.pth",
    url="https://download.pytorch.org/models/raft_large_C_T_SKHT_V2-ff5fadd5.pth")
HF_SPEC = resolver.CheckpointSpec(
    name="dinov2_base", filename="model.safetensors", hf_repo="facebook/dinov2-base",
    hf_revision="main", snapshot=True)


@pytest.fixture(autouse=True)
def _isolated_caches(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch_home"))
    import huggingface_hub.constants  # pylint: disable=import-outside-toplevel
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hf"))


def _write(path, data=b"weights"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_explicit_path_wins_and_is_digested(tmp_path):
    weight = _write(tmp_path / "mine.pth", b"abc")
    _write(tmp_path / "dir" / FILE_SPEC.filename, b"other")
    got = resolver.resolve(FILE_SPEC, explicit_path=str(weight), checkpoint_dir=str(tmp_path / "dir"))
    assert (got.path, got.source) == (weight, "flag")
    assert got.sha256 == hashlib.sha256(b"abc").hexdigest()


def test_explicit_path_missing_says_how_to_fetch(tmp_path):
    with pytest.raises(resolver.CheckpointUnavailable, match="curl -L .*raft_large_C_T_SKHT"):
        resolver.resolve(FILE_SPEC, explicit_path=str(tmp_path / "nope.pth"))


@pytest.mark.parametrize("relative", ["raft_large_C_T_SKHT_V2-ff5fadd5.pth",
                                      "raft_large/raft_large_C_T_SKHT_V2-ff5fadd5.pth"])
def test_checkpoint_dir(tmp_path, relative):
    weight = _write(tmp_path / "ckpt" / relative)
    got = resolver.resolve(FILE_SPEC, checkpoint_dir=str(tmp_path / "ckpt"), offline=True)
    assert (got.path, got.source) == (weight, "checkpoint_dir")


def test_torch_hub_cache(tmp_path):
    weight = _write(tmp_path / "torch_home" / "hub" / "checkpoints" / FILE_SPEC.filename)
    got = resolver.resolve(FILE_SPEC, offline=True)
    assert (got.path, got.source) == (weight, "torch_cache")


def test_hf_cache_snapshot_records_the_commit(tmp_path):
    repo = tmp_path / "hf" / "models--facebook--dinov2-base"
    commit = "0123456789abcdef0123456789abcdef01234567"
    _write(repo / "refs" / "main", commit.encode())
    _write(repo / "snapshots" / commit / "model.safetensors", b"w")
    _write(repo / "snapshots" / commit / "config.json", b"{}")
    got = resolver.resolve(HF_SPEC, offline=True)
    assert got.source == "hf_cache" and got.revision == commit
    assert got.path == repo / "snapshots" / commit  # a snapshot resolves to its folder


def test_offline_and_missing_is_unavailable_with_the_command(tmp_path):
    with pytest.raises(resolver.CheckpointUnavailable) as err:
        resolver.resolve(HF_SPEC, checkpoint_dir=str(tmp_path / "c"), offline=True)
    message = str(err.value)
    assert "--offline" in message
    assert f"huggingface-cli download facebook/dinov2-base --revision main --local-dir {tmp_path / 'c'}/dinov2_base" in message


def test_digest_mismatch_is_refused(tmp_path):
    _write(tmp_path / FILE_SPEC.filename, b"not the real weights")
    spec = dataclasses.replace(FILE_SPEC, sha256="ff5fadd5")
    with pytest.raises(resolver.CheckpointUnavailable, match="expected sha256 ff5fadd5"):
        resolver.resolve(spec, checkpoint_dir=str(tmp_path), offline=True)


def test_digest_prefix_match_is_accepted(tmp_path):
    data = b"pinned"
    _write(tmp_path / FILE_SPEC.filename, data)
    spec = dataclasses.replace(FILE_SPEC, sha256=hashlib.sha256(data).hexdigest()[:8])
    assert resolver.resolve(spec, checkpoint_dir=str(tmp_path), offline=True).source == "checkpoint_dir"


# Offline without --offline: HF_ENDPOINT and the direct URL point at a loopback address that
# refuses, or accepts and stays silent. One probe per host, no download, seconds in all.

HUB_FILE_SPEC = resolver.CheckpointSpec(
    name="laion_aesthetic_l14", filename="sa_0_4_vit_l_14_linear.pth",
    hf_repo="camenduru/improved-aesthetic-predictor")


def _offline_specs(port):
    url = f"http://127.0.0.1:{port}/models/{FILE_SPEC.filename}"
    return [HUB_FILE_SPEC, HF_SPEC, dataclasses.replace(FILE_SPEC, url=url)]


@pytest.fixture(name="network")
def _network(monkeypatch):
    """Counts socket.create_connection calls per port (the probe's, the hub's, urllib's)."""
    import socket  # pylint: disable=import-outside-toplevel
    import huggingface_hub.constants  # pylint: disable=import-outside-toplevel
    for name in ("WORLDEVAL_OFFLINE", "HF_HUB_OFFLINE", "http_proxy", "https_proxy",
                 "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    # Else its user-agent header asks the endpoint of import time for an agent registry.
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DISABLE_TELEMETRY", True)
    reachability.reset()
    connects = collections.Counter()
    real = socket.create_connection

    def counting(address, *args, **kwargs):
        connects[address[1]] += 1
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", counting)
    yield connects
    reachability.reset()


def _resolve_all(specs, checkpoint_dir):
    messages, start = [], time.monotonic()
    for spec in specs:
        with pytest.raises(resolver.CheckpointUnavailable) as err:
            resolver.resolve(spec, checkpoint_dir=checkpoint_dir)
        messages.append(str(err.value))
    return messages, time.monotonic() - start


def _assert_one_clean_line(message, spec, checkpoint_dir, why_pattern):
    """The whole message: what is missing, why (a regex), the fetch command; one line."""
    assert "\n" not in message
    assert re.fullmatch(
        re.escape(f"checkpoint {spec.name} ({spec.filename}) not found locally and ")
        + why_pattern + re.escape(f"; fetch it with: {spec.fetch_command(checkpoint_dir)}"),
        message), message


def test_a_refused_hub_costs_one_probe_and_no_download(tmp_path, monkeypatch, network):
    port = loopback.closed_port()
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    checkpoint_dir = str(tmp_path / "ckpt")
    specs = _offline_specs(port)
    messages, _ = _resolve_all(specs, checkpoint_dir)  # counts, not seconds (issue 37)
    assert network[port] == 1  # the probe's connect; no download tried to connect
    for spec, message in zip(specs, messages):
        _assert_one_clean_line(message, spec, checkpoint_dir, re.escape(
            f"127.0.0.1:{port} is unreachable (connection refused after ") + r"\d+\.\d s\)")
    assert not (tmp_path / "ckpt").exists() and not (tmp_path / "torch_home").exists()


def test_a_silent_hub_costs_one_probe_timeout(tmp_path, monkeypatch, network):
    monkeypatch.setenv(reachability.TIMEOUT_ENV, "1")
    checkpoint_dir = str(tmp_path / "ckpt")
    with loopback.silent_listener() as (port, accepted):
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
        specs = _offline_specs(port)
        messages, _ = _resolve_all(specs, checkpoint_dir)
        assert len(accepted) == 1
    assert network[port] == 1
    for spec, message in zip(specs, messages):
        _assert_one_clean_line(message, spec, checkpoint_dir, re.escape(
            f"127.0.0.1:{port} is unreachable (no answer after ") + r"[1-9]\d*\.\d s\)")


def test_a_failing_hub_is_asked_once_per_checkpoint_without_retries(tmp_path, monkeypatch,
                                                                   network):
    checkpoint_dir = str(tmp_path / "ckpt")
    with loopback.answering_server() as (port, requests):  # 503 to everything
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
        specs = _offline_specs(port)
        messages, _ = _resolve_all(specs, checkpoint_dir)
    assert requests[0] == ("HEAD", "/") and len(requests) == 1 + len(specs), requests
    for spec, message in zip(specs, messages):
        _assert_one_clean_line(message, spec, checkpoint_dir,
                               r"the download failed \((HfHubHTTPError|HTTPError): [^()]*503[^()]*\)")


@pytest.mark.parametrize("variable", ["WORLDEVAL_OFFLINE", "HF_HUB_OFFLINE"])
def test_offline_environment_forbids_downloading_without_a_probe(tmp_path, monkeypatch,
                                                                  network, variable):
    monkeypatch.setenv(variable, "1")
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{loopback.closed_port()}")
    messages, _ = _resolve_all([HUB_FILE_SPEC], str(tmp_path))
    _assert_one_clean_line(messages[0], HUB_FILE_SPEC, str(tmp_path),
                           re.escape(f"the download failed ({variable}=1 forbids downloading)"))
    assert not network


def test_a_url_that_cannot_be_probed_still_fails_as_unavailable(tmp_path, network):
    spec = dataclasses.replace(FILE_SPEC, url=f"file://{tmp_path}/absent.pth")
    messages, _ = _resolve_all([spec], str(tmp_path / "ckpt"))
    _assert_one_clean_line(messages[0], spec, str(tmp_path / "ckpt"),
                           r"the download failed \(URLError: [^\n]*\)")


def test_a_long_error_message_keeps_its_whole_first_line():
    error = ValueError("An error happened while trying to locate the files on the Hub, and we "
                       "cannot find the appropriate snapshot folder for the specified revision "
                       "on the local disk.\nPlease check your internet connection.")
    assert resolver._first_line(error) == (  # pylint: disable=protected-access
        "ValueError: " + str(error).splitlines()[0])


@pytest.fixture
def file_server(tmp_path):
    """A loopback HTTP server for the files of tmp_path/served (127.0.0.1 only)."""
    import functools  # pylint: disable=import-outside-toplevel
    import http.server  # pylint: disable=import-outside-toplevel
    import threading  # pylint: disable=import-outside-toplevel

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    served = tmp_path / "served"
    served.mkdir()
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(served)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield served, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def test_a_url_download_checks_its_pinned_digest_and_leaves_no_partial_file(tmp_path,
                                                                            file_server):
    served, base = file_server
    data = b"weights" * 1000
    _write(served / "w.pth", data)
    target = tmp_path / "ckpt" / "w.pth"
    target.parent.mkdir()
    url_download.download(f"{base}/w.pth", target, hashlib.sha256(data).hexdigest()[:8])
    assert target.read_bytes() == data
    wrong = tmp_path / "ckpt" / "wrong.pth"
    with pytest.raises(RuntimeError, match="invalid hash value"):
        url_download.download(f"{base}/w.pth", wrong, "0" * 64)
    assert sorted(p.name for p in target.parent.iterdir()) == ["w.pth"]  # no partial
