"""Unavailable metrics grouped by cause: missing weights as one line with one fetch
command, other causes by their identical reason; the scorecard keeps every reason."""

from benchmarks.common import summary
from benchmarks.common import unavailable
from proto import scorecard_pb2


def _missing(name: str, file: str, cmd: str) -> str:
    return (f"{name} weights unavailable: checkpoint {name} ({file}) not found locally and "
            f"--offline forbids downloading; fetch it with: {cmd}")


JUDGE = "judge: no API key; set the GEMINI_API_KEY environment variable"
REASONS = {
    "LPIPS_A": _missing("alexnet", "alexnet.pth", "curl -L https://x/alexnet.pth -o a"),
    "LPIPS_B": _missing("alexnet", "alexnet.pth", "curl -L https://x/alexnet.pth -o a"),
    "Smooth": _missing("raft_large", "raft.pth", "curl -L https://x/raft.pth -o r"),
    "Judge1": JUDGE,
    "Camera": "import mapanything failed: No module named 'mapanything'",
    "Judge2": JUDGE,
    "Quality": "preflight: checkpoint clip_l (model.safetensors) not found (1.7 GB, licence mit)",
}


def _card(checkpoint_dir: str = "") -> scorecard_pb2.Scorecard:
    card = scorecard_pb2.Scorecard(benchmark_id="toybench", model_name="M")
    card.metrics.add(id="PSNR", available=True, value=20.0, sample_count=3, unit="dB")
    for metric_id, reason in REASONS.items():
        card.metrics.add(id=metric_id, available=False, unavailable_reason=reason, unit="0-1")
    card.metrics.add(id="LPIPS_A", split="other", available=False,
                     unavailable_reason=REASONS["LPIPS_A"])  # a second split counts once
    if checkpoint_dir:
        card.run.flags["checkpoint_dir"] = checkpoint_dir
    return card


def test_missing_weights_are_one_group_with_one_fetch_command():
    groups = unavailable.grouped(_card())
    assert [g.cause for g in groups] == [unavailable.WEIGHTS, JUDGE, REASONS["Camera"]]
    weights, judge, camera = groups
    assert weights.metric_ids == ("LPIPS_A", "LPIPS_B", "Smooth", "Quality")
    assert weights.checkpoints == ("alexnet", "raft_large", "clip_l")
    assert weights.fix == ("./bazelw run //tools:assets -- fetch --benchmark=toybench "
                           "--metrics=LPIPS_A,LPIPS_B,Smooth,Quality")
    assert judge.metric_ids == ("Judge1", "Judge2") and not judge.fix
    assert camera.metric_ids == ("Camera",)
    with_dir = unavailable.grouped(_card("/ckpt"))[0]
    assert with_dir.fix.endswith("--metrics=LPIPS_A,LPIPS_B,Smooth,Quality --cache_dir=/ckpt")


def test_the_terminal_summary_has_one_line_per_cause_and_one_command():
    text = summary.format_summary(_card())
    assert text.count("//tools:assets -- fetch") == 1
    assert "curl" not in text  # the per-metric fetch commands stay in the scorecard
    assert text.count(JUDGE) == 1 and text.count(REASONS["Camera"]) == 1
    lines = text.splitlines()
    assert "  [1] 4 metrics: missing weights (3 checkpoints: alexnet, raft_large, clip_l)" \
        in lines
    assert f"  [2] 2 metrics: {JUDGE}" in lines
    assert f"  [3] Camera: {REASONS['Camera']}" in lines
    judge_row = next(line for line in lines if line.split()[:1] == ["Judge2"])
    assert judge_row.endswith("unavailable [2]")


def test_nothing_unavailable_means_no_groups():
    card = scorecard_pb2.Scorecard(benchmark_id="toybench")
    card.metrics.add(id="PSNR", available=True, value=1.0)
    assert unavailable.grouped(card) == []
    assert "by cause" not in summary.format_summary(card)
    assert unavailable.missing_checkpoints(JUDGE) == []


def test_the_long_form_names_every_metric():
    weights, judge, _ = unavailable.grouped(_card())
    assert unavailable.describe(judge) == f"2 metrics: Judge1, Judge2: {JUDGE}"
    assert unavailable.describe(weights).startswith(
        "4 metrics: LPIPS_A, LPIPS_B, Smooth, Quality: missing weights (3 checkpoints")
