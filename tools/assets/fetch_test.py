"""`assets fetch` against a loopback hub on 127.0.0.1: where files land (the resolver and
preflight find them), verification, corrupted files, interrupted transfers, no overwrite."""

import hashlib
import os
import socket

import pytest
from google.protobuf import text_format

from benchmarks.common import preflight
from metrics.checkpoints import lock
from metrics.checkpoints import resolver
from proto import runtime_profile_pb2
from tools.assets import fetch
from tools.assets import loopback_hub
from tools.assets import transfer

COMMIT = "0123456789abcdef0123456789abcdef01234567"
WEIGHTS = os.urandom(300_000)
CONFIG = b'{"model_type": "tiny"}\n'
HEAD = os.urandom(50_000)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch, tmp_path):
    """Every connection this test makes goes to 127.0.0.1; every cache is the test's."""
    connect = socket.socket.connect

    def guarded(sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in (
                "127.0.0.1", "::1", "localhost"):
            raise AssertionError(f"the test tried to reach {address}")
        return connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    from huggingface_hub import constants  # pylint: disable=import-outside-toplevel
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf_cache"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch_home"))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(name="hub")
def _hub():
    with loopback_hub.LoopbackHub() as server:
        server.add_repo("org/tiny", COMMIT, {
            "model.safetensors": WEIGHTS, "config.json": CONFIG,
            "pytorch_model.bin": os.urandom(1000), "README.md": b"# tiny\n"})
        server.add_file("head.pth", HEAD)
        yield server


def _profile(hub, weights_sha=_sha(WEIGHTS), head_sha=_sha(HEAD)[:8]):
    return text_format.Parse(f"""
        benchmark_id: "toybench" environment: UNIFIED
        metrics {{ metric_id: "Hub" device: CPU_OK checkpoints {{
            name: "tiny" id: "org/tiny" revision: "main" file: "model.safetensors"
            snapshot: true sha256: "{weights_sha}" }} }}
        metrics {{ metric_id: "Url" device: CPU_OK checkpoints {{
            name: "head" file: "head.pth" url: "{hub.url('head.pth')}" sha256: "{head_sha}" }} }}
        metrics {{ metric_id: "Later" pending: "not yet" device: CPU_OK checkpoints {{
            name: "big" file: "big.pth" url: "{hub.url('big.pth')}" }} }}
    """, runtime_profile_pb2.RuntimeProfile())


def _statuses(results):
    return {(r.checkpoint, r.file): r.status for r in results}


def test_default_destinations_are_the_caches_the_resolver_reads(hub, tmp_path):
    profile = _profile(hub)
    assert not preflight.run_preflight(profile, ["Hub", "Url"]).ready
    results = fetch.fetch(profile, None, None, hub.endpoint)
    assert _statuses(results) == {  # the other weight format and the pending metric: skipped
        ("tiny", "model.safetensors"): "fetched", ("tiny", "README.md"): "fetched",
        ("tiny", "config.json"): "fetched", ("head", "head.pth"): "fetched"}
    snapshot = tmp_path / "hf_cache" / "models--org--tiny" / "snapshots" / COMMIT
    assert (snapshot / "model.safetensors").read_bytes() == WEIGHTS
    assert (tmp_path / "torch_home/hub/checkpoints/head.pth").read_bytes() == HEAD
    report = preflight.run_preflight(profile, ["Hub", "Url"])
    assert report.ready, report
    details = [v.checks[0].detail for v in report.metrics]
    assert "(from hf_cache)" in details[0] and "(from torch_cache)" in details[1]

    downloads = hub.downloads()
    again = fetch.fetch(profile, None, None, hub.endpoint)
    assert {r.status for r in again} == {"present"} and hub.downloads() == downloads


def test_cache_dir_is_the_checkpoint_dir_layout(hub, tmp_path):
    profile = _profile(hub)
    cache = tmp_path / "ckpts"
    results = fetch.fetch(profile, ["Hub", "Url"], cache, hub.endpoint)
    assert all(r.ok for r in results)
    assert (cache / "tiny" / "model.safetensors").read_bytes() == WEIGHTS
    assert (cache / "tiny" / "config.json").read_bytes() == CONFIG
    assert not (cache / "tiny" / "pytorch_model.bin").exists()
    assert (cache / "head" / "head.pth").read_bytes() == HEAD
    assert not (tmp_path / "hf_cache" / "models--org--tiny" / "snapshots").exists()
    report = preflight.run_preflight(profile, ["Hub", "Url"],
                                     preflight.Options(checkpoint_dir=str(cache)))
    assert report.ready and all("(from checkpoint_dir)" in v.checks[0].detail
                                for v in report.metrics)


def test_corrupted_hub_file_is_removed(hub, tmp_path):
    hub.repos["org/tiny"][1]["model.safetensors"].corrupt = True
    results = fetch.fetch(_profile(hub), ["Hub"], None, hub.endpoint)
    bad = [r for r in results if r.file == "model.safetensors"][0]
    assert bad.status == "failed" and "not kept" in bad.detail
    assert f"the profile pins {_sha(WEIGHTS)}" in bad.detail
    repo = tmp_path / "hf_cache" / "models--org--tiny"
    assert not (repo / "snapshots" / COMMIT / "model.safetensors").exists()
    assert not any(p.name.startswith(_sha(WEIGHTS)) for p in (repo / "blobs").iterdir())
    assert not preflight.run_preflight(_profile(hub), ["Hub"]).ready


def test_corrupted_url_file_is_not_kept(hub, tmp_path):
    hub.files["head.pth"].corrupt = True
    cache = tmp_path / "ckpts"
    [result] = fetch.fetch(_profile(hub), ["Url"], cache, hub.endpoint)
    assert result.status == "failed" and "not kept" in result.detail
    assert list((cache / "head").iterdir()) == []  # neither head.pth nor head.pth.partial


def test_interrupted_hub_transfer_resumes_with_a_range_request(hub, tmp_path):
    served = hub.repos["org/tiny"][1]["model.safetensors"]
    served.cut_after, served.cuts_left = 100_000, 1
    results = fetch.fetch(_profile(hub), ["Hub"], tmp_path / "ckpts", hub.endpoint)
    assert all(r.ok for r in results)
    assert (tmp_path / "ckpts/tiny/model.safetensors").read_bytes() == WEIGHTS
    assert hub.ranges("/model.safetensors") == ["", "bytes=100000-"]


def test_interrupted_hub_transfer_resumes_in_a_rerun(hub, tmp_path):
    served = hub.repos["org/tiny"][1]["model.safetensors"]
    served.cut_after, served.cuts_left = 30_000, 4  # one more cut than the run's retries
    blobs = tmp_path / "hf_cache" / "models--org--tiny" / "blobs"
    first = [r for r in fetch.fetch(_profile(hub), ["Hub"], None, hub.endpoint)
             if r.file == "model.safetensors"][0]
    assert first.status == "failed" and "a rerun resumes" in first.detail
    assert (blobs / (_sha(WEIGHTS) + ".partial")).stat().st_size == 120_000
    assert not (blobs / _sha(WEIGHTS)).exists()
    results = fetch.fetch(_profile(hub), ["Hub"], None, hub.endpoint)
    assert {r.status for r in results} == {"fetched", "present"}
    assert (blobs / _sha(WEIGHTS)).read_bytes() == WEIGHTS
    assert hub.ranges("/model.safetensors")[-1] == "bytes=120000-"
    assert preflight.run_preflight(_profile(hub), ["Hub"]).ready


def test_interrupted_url_transfer_resumes_in_a_rerun(hub, tmp_path):
    served = hub.files["head.pth"]
    served.cut_after, served.cuts_left = 5_000, 4  # one more cut than the run's retries
    cache = tmp_path / "ckpts"
    [first] = fetch.fetch(_profile(hub), ["Url"], cache, hub.endpoint)
    assert first.status == "failed" and "a rerun resumes" in first.detail
    assert not (cache / "head" / "head.pth").exists()
    assert (cache / "head" / "head.pth.partial").stat().st_size == 20_000
    [second] = fetch.fetch(_profile(hub), ["Url"], cache, hub.endpoint)
    assert second.status == "fetched" and second.sha256 == _sha(HEAD)
    assert (cache / "head" / "head.pth").read_bytes() == HEAD
    assert not (cache / "head" / "head.pth.partial").exists()
    assert hub.ranges("/head.pth") == ["", "bytes=5000-", "bytes=10000-", "bytes=15000-",
                                       "bytes=20000-"]


def test_an_existing_file_that_differs_is_refused_and_left_alone(hub, tmp_path):
    cache = tmp_path / "ckpts"
    (cache / "tiny").mkdir(parents=True)
    (cache / "tiny" / "model.safetensors").write_bytes(b"someone else's weights")
    (cache / "head").mkdir()
    (cache / "head" / "head.pth").write_bytes(b"not the head")
    results = fetch.fetch(_profile(hub), ["Hub", "Url"], cache, hub.endpoint)
    statuses = _statuses(results)
    assert statuses[("tiny", "model.safetensors")] == "refused"
    assert statuses[("head", "head.pth")] == "refused"
    assert (cache / "tiny" / "model.safetensors").read_bytes() == b"someone else's weights"
    assert (cache / "head" / "head.pth").read_bytes() == b"not the head"
    assert hub.ranges("/model.safetensors") == [] and hub.ranges("/head.pth") == []


def test_a_pin_the_hub_disagrees_with_is_not_downloaded(hub, tmp_path):
    results = fetch.fetch(_profile(hub, weights_sha="ab" * 32), ["Hub"], tmp_path / "c",
                          hub.endpoint)
    bad = [r for r in results if r.file == "model.safetensors"][0]
    assert bad.status == "failed" and "not the pinned file" in bad.detail
    assert hub.ranges("/model.safetensors") == []


def test_unknown_repo_fails_with_the_hub_error(hub, tmp_path):
    profile = _profile(hub)
    profile.metrics[0].checkpoints[0].id = "org/missing"
    [result] = fetch.fetch(profile, ["Hub"], tmp_path / "c", hub.endpoint)
    assert result.status == "failed" and "listing org/missing@main failed" in result.detail


def test_transfer_never_overwrites(tmp_path):
    dest = tmp_path / "x.bin"
    dest.write_bytes(b"x")
    with pytest.raises(FileExistsError):
        transfer.download("http://127.0.0.1:9/unused", dest)


def test_corrupted_regular_file_fails_its_git_blob_id(hub, tmp_path):
    hub.repos["org/tiny"][1]["config.json"].corrupt = True
    results = fetch.fetch(_profile(hub), ["Hub"], tmp_path / "c", hub.endpoint)
    assert _statuses(results)[("tiny", "config.json")] == "failed"
    assert "git blob id" in [r for r in results if r.file == "config.json"][0].detail
    assert not (tmp_path / "c" / "tiny" / "config.json").exists()


def test_a_complete_partial_file_is_checked_and_published(hub, tmp_path):
    """A run that died between the last byte and the rename: the server answers 416."""
    cache = tmp_path / "ckpts"
    (cache / "head").mkdir(parents=True)
    (cache / "head" / "head.pth.partial").write_bytes(HEAD)
    [result] = fetch.fetch(_profile(hub), ["Url"], cache, hub.endpoint)
    assert result.status == "fetched" and (cache / "head" / "head.pth").read_bytes() == HEAD
    assert hub.ranges("/head.pth") == [f"bytes={len(HEAD)}-"]


def test_an_unpinned_checkpoint_is_locked_and_a_changed_file_is_a_clear_error(hub, tmp_path):
    """fetch -> lock -> a run verifies it -> the file is swapped -> the run refuses, naming
    it; a new upload on the hub is refused by the next fetch too."""
    profile = _profile(hub, weights_sha="", head_sha="")
    cache = tmp_path / "ckpts"
    results = fetch.fetch(profile, ["Hub", "Url"], cache, hub.endpoint)
    assert all(r.ok for r in results)
    saved = lock.read(cache)
    by_name = {e.name: e for e in saved.entries}
    assert sorted(by_name) == ["head", "tiny"]  # the weight files only, not config.json
    tiny = by_name["tiny"]
    assert (tiny.id, tiny.file, tiny.revision, tiny.sha256, tiny.size_bytes, tiny.verified_by) \
        == ("org/tiny", "model.safetensors", COMMIT, _sha(WEIGHTS), len(WEIGHTS), "hub")
    assert (by_name["head"].sha256, by_name["head"].verified_by) == (_sha(HEAD), "none")
    weights = [r for r in results if r.file == "model.safetensors"][0]
    assert f"locked in {cache / lock.LOCK_NAME}" in weights.detail

    spec = preflight.checkpoint_spec(profile.metrics[0].checkpoints[0])
    found = resolver.resolve(spec, checkpoint_dir=str(cache), offline=True)
    assert (found.pin, found.revision, found.sha256) == ("lock", COMMIT, _sha(WEIGHTS))
    assert found.lock_file == str(cache / lock.LOCK_NAME)

    swapped = cache / "tiny" / "model.safetensors"
    swapped.write_bytes(b"weights uploaded later")
    with pytest.raises(resolver.CheckpointUnavailable) as err:
        resolver.resolve(spec, checkpoint_dir=str(cache), offline=True)
    assert str(err.value).startswith(
        f"{swapped}: sha256 {_sha(b'weights uploaded later')}, but the checkpoint lock "
        f"{cache / lock.LOCK_NAME} recorded {_sha(WEIGHTS)}")
    assert not preflight.run_preflight(profile, ["Hub"], preflight.Options(
        checkpoint_dir=str(cache))).ready

    swapped.unlink()  # the hub's main now serves another upload: the next fetch refuses it
    hub.add_repo("org/tiny", "f" * 40, {"model.safetensors": b"another upload",
                                        "config.json": CONFIG})
    again = fetch.fetch(profile, ["Hub"], cache, hub.endpoint)
    refused = [r for r in again if r.file == "model.safetensors"][0]
    assert refused.status == "refused" and f"recorded {_sha(WEIGHTS)}" in refused.detail
    assert lock.read(cache) == saved  # the entry is never replaced
