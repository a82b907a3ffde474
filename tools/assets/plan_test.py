"""`assets plan` for every catalog entry, and the state it reports for checkpoints."""

import hashlib

import pytest

from benchmarks.common import runtime_profiles
from tools.assets import plan
from tools.catalog import catalog_lib

CATALOG = catalog_lib.load_catalog()


@pytest.fixture(autouse=True)
def _empty_caches(tmp_path, monkeypatch):
    from huggingface_hub import constants  # pylint: disable=import-outside-toplevel
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf_cache"))
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch_home"))


@pytest.mark.parametrize("entry", CATALOG.benchmarks, ids=lambda e: e.id)
def test_every_catalog_entry_gets_a_plan(entry):
    text = plan.plan_text(entry.id, entry)
    lines = text.splitlines()
    assert lines[0].startswith(f"{entry.id}: {entry.name} (")
    assert f"  measures: {entry.measures}" in lines
    assert "next:" in lines
    package = catalog_lib.package_of(entry.id)
    if entry.id in runtime_profiles.profile_ids():
        assert f"runtime profile: benchmarks/{package}/runtime_profile.textproto" in text
        assert f"./bazelw run //tools:preflight -- --benchmark={entry.id}" in text
    else:
        assert "No runtime profile yet" in text
        assert f"write benchmarks/{package}/runtime_profile.textproto" in text


def test_memobench_plan_lists_assets_and_what_is_present(tmp_path):
    entry = catalog_lib.get_entry("memobench", CATALOG)
    before = plan.plan_text("memobench", entry)
    assert "  raft_large/raft_large_C_T_SKHT_V2-ff5fadd5.pth: https://download.pytorch.org/" in before
    assert "missing: checkpoint raft_large (raft_large_C_T_SKHT_V2-ff5fadd5.pth) not found" in before
    assert "GEMINI_API_KEY (secret, required, not set)" in before
    assert "  ./bazelw run //tools:assets -- fetch --benchmark=memobench [--cache_dir=DIR]" in before
    assert "  ./bazelw run //benchmarks/memobench:run -- --help" in before

    # A file whose digest does not start with torchvision's ff5fadd5 is found but refused.
    (tmp_path / "c" / "raft_large").mkdir(parents=True)
    weights = tmp_path / "c" / "raft_large" / "raft_large_C_T_SKHT_V2-ff5fadd5.pth"
    weights.write_bytes(b"not raft")
    assert not hashlib.sha256(b"not raft").hexdigest().startswith("ff5fadd5")
    after = plan.plan_text("memobench", entry, str(tmp_path / "c"))
    assert f"missing: {weights}: expected sha256 ff5fadd5..." in after
    # A file with no pinned digest is found and used (the LAION head has none published).
    head = tmp_path / "c" / "laion_aesthetic_l14"
    head.mkdir()
    (head / "sac+logos+ava1-l14-linearMSE.pth").write_bytes(b"unpinned")
    assert (f"present: {head / 'sac+logos+ava1-l14-linearMSE.pth'} (from checkpoint_dir)"
            in plan.plan_text("memobench", entry, str(tmp_path / "c")))
    # The LPIPS lin file is pinned now: a file that is not it is refused.
    lpips = tmp_path / "c" / "lpips_alex_v0.1"
    lpips.mkdir()
    (lpips / "alex.pth").write_bytes(b"not the lin layers")
    assert f"missing: {lpips / 'alex.pth'}: expected sha256 df73285e" in plan.plan_text(
        "memobench", entry, str(tmp_path / "c"))
