"""//tools/assets:assets as a user runs it: plan for every benchmark, fetch through a
loopback hub given by --endpoint, exit codes."""

import hashlib
import os
import subprocess

from metrics.testing import binary_runner
from tools.assets import loopback_hub

ASSETS = binary_runner.Binary("tools/assets", "assets")
CLIP = os.urandom(20_000)


def _run(tmp_path, *args):
    """Caches inside tmp_path; any address but 127.0.0.1 goes to a dead proxy."""
    env = dict(os.environ, HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9",
               NO_PROXY="127.0.0.1,localhost", HF_HUB_DISABLE_TELEMETRY="1")
    env.pop("HF_HUB_OFFLINE", None)
    for name in ("HOME", "TORCH_HOME", "XDG_CACHE_HOME", "HF_HOME"):
        env[name] = str(tmp_path / "env" / name)
    return subprocess.run([str(ASSETS.path), *args], capture_output=True, text=True,
                          check=False, timeout=300, env=env)


def test_plan_for_every_benchmark(tmp_path):
    done = _run(tmp_path, "plan", "--benchmark=all")
    assert done.returncode == 0, done.stderr
    blocks = done.stdout.strip().split("\n\n")  # one plan per benchmark
    assert len(blocks) == 42
    assert [b.split(":")[0] for b in blocks][:3] == ["vbench", "vbench-plus-plus", "vbench-2.0"]
    assert all("\nnext:\n" in b for b in blocks)
    assert done.stdout.count("No runtime profile yet") >= 30


def test_fetch_from_the_endpoint_into_cache_dir(tmp_path):
    """CLIP ViT-B/32 has no pinned digest: its first fetch locks it."""
    with loopback_hub.LoopbackHub() as hub:
        hub.add_repo("openai/clip-vit-base-patch32", "c" * 40,
                     {"model.safetensors": CLIP, "config.json": b"{}\n"})
        cache = tmp_path / "ckpts"
        done = _run(tmp_path, "fetch", "--benchmark=memobench", "--metrics=GTRevisitSim",
                    f"--cache_dir={cache}", f"--endpoint={hub.endpoint}")
        assert done.returncode == 0, done.stdout + done.stderr
        assert (cache / "clip_vit_base_patch32" / "model.safetensors").read_bytes() == CLIP
        assert "2 of 2 files in place" in done.stdout
        assert f"locked in {cache / 'worldeval_checkpoints.lock.json'}" in done.stdout
        assert hashlib.sha256(CLIP).hexdigest() in (
            cache / "worldeval_checkpoints.lock.json").read_text()
        assert (f"next: ./bazelw run //tools:preflight -- --benchmark=memobench "
                f"--checkpoint_dir={cache}") in done.stdout
        again = _run(tmp_path, "fetch", "--benchmark=memobench", "--metrics=GTRevisitSim",
                     f"--cache_dir={cache}", f"--endpoint={hub.endpoint}")
        assert again.returncode == 0 and again.stdout.count("present") == 2
        assert hub.downloads() == 2  # the second run downloaded nothing


def test_fetch_failure_exits_1(tmp_path):
    with loopback_hub.LoopbackHub() as hub:  # serves no repository at all
        done = _run(tmp_path, "fetch", "--benchmark=memobench",
                    "--metrics=ObjIdentityConsistency", f"--cache_dir={tmp_path / 'c'}",
                    f"--endpoint={hub.endpoint}")
    assert done.returncode == 1
    assert ("failed  dinov2_base/model.safetensors  listing facebook/dinov2-base@"
            "f9e44c814b77203eaa57a6bdbbd535f21ede1415 failed") in done.stdout


def test_bad_usage_exits_2_and_lists_the_valid_choices(tmp_path):
    done = _run(tmp_path, "download", "--benchmark=memobench")
    assert done.returncode == 2 and "plan or fetch" in done.stderr
    done = _run(tmp_path, "plan", "--benchmark=nosuchbench")
    assert done.returncode == 2 and "'nosuchbench'" in done.stderr and "vbench" in done.stderr
    done = _run(tmp_path, "fetch", "--benchmark=video-bench")
    assert done.returncode == 2 and "memobench" in done.stderr  # no profile: lists those with one
    done = _run(tmp_path, "fetch", "--benchmark=memobench", "--metrics=Nope")
    assert done.returncode == 2 and "'Nope'" in done.stderr and "GT_ALL_PSNR" in done.stderr
