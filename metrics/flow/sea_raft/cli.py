"""Prints SEA-RAFT's flow statistics of one clip: round-trip EPE and median flow magnitude.

The clip (a folder of numbered PNG/JPEG frames, or a video) is read at its native
resolution (no resize: the statistics are in native pixels). For each consecutive pair
the flow runs the official SEA-RAFT path (metrics.flow.sea_raft.flow) both ways;
printed are per pair and over the clip the forward-backward end-point error
(metrics.flow.consistency, 15-px crop) and the lower-median flow magnitude
(metrics.flow.motion_stats). The object-vs-background motion needs tracked object
masks and is not computed here.

Usage:
  bazel run //metrics/flow/sea_raft:flow_stats -- --frames=clip.mp4 \\
      --checkpoint=/ckpt/Tartan-C-T-TSKH-spring540x960-M.pth [--json]

--config_json reads an official `config/eval/*.json` (default: spring-M built in).
Exit codes: 0 done; 2 bad input or configuration (unreadable clip or checkpoint, bad
flag); 1 internal error.
"""

from typing import Optional, Sequence

from absl import app
from absl import flags

from metrics import cli_support
from metrics import model_cli
from metrics.flow import consistency
from metrics.flow import motion_stats
from metrics.flow.sea_raft import config as config_lib
from metrics.flow.sea_raft import flow as flow_lib
from metrics.flow.sea_raft import loader
from metrics.video import frames as frames_lib

_FRAMES = flags.DEFINE_string("frames", None, "Frame folder or video file.")
_CHECKPOINT = flags.DEFINE_string(
    "checkpoint", None, "The official SEA-RAFT .pth or model.safetensors "
    "(e.g. Tartan-C-T-TSKH-spring540x960-M.pth for spring-M).")
_CONFIG_JSON = flags.DEFINE_string(
    "config_json", None, "An official config/eval/*.json; default: spring-M.")
_AUTOCAST = flags.DEFINE_boolean(
    "autocast", True, "CUDA float16 autocast around the network, as the official call "
    "(no effect on a CPU).")
_DEVICE = flags.DEFINE_string("device", "auto", "auto, cpu, cuda or cuda:N.")
_JSON = flags.DEFINE_boolean("json", False, "Print one JSON object instead of text.")


def _evaluate() -> dict:
    device = model_cli.device(_DEVICE.value)
    try:
        config = (config_lib.from_official_json(cli_support.user_path(_CONFIG_JSON.value))
                  if _CONFIG_JSON.value else config_lib.SPRING_M)
        model = loader.load_sea_raft(cli_support.user_path(_CHECKPOINT.value), device, config)
    except (FileNotFoundError, ValueError) as error:
        raise model_cli.ConfigError(str(error)) from error
    clip = frames_lib.load_frames(cli_support.user_path(_FRAMES.value))
    if len(clip) < 2:
        raise model_cli.ConfigError(f"{_FRAMES.value}: {len(clip)} frame(s); need at least 2")
    flow = flow_lib.SeaRaftFlow(model, autocast=_AUTOCAST.value)
    pairs = []
    for a, b in zip(clip[:-1], clip[1:]):
        try:
            forward, backward = flow(a, b), flow(b, a)
        except ValueError as error:
            raise model_cli.ConfigError(f"{_FRAMES.value}: {error}") from error
        pairs.append({"aepe": consistency.forward_backward_epe(forward, backward),
                      "median_magnitude": motion_stats.median_magnitude(forward)})
    return {
        "frames": _FRAMES.value, "num_frames": len(clip),
        "frame_size": [int(clip.shape[2]), int(clip.shape[1])],
        "flow_size": list(flow_lib.output_size(clip.shape[1], clip.shape[2], config.scale))[::-1],
        "backend": flow.name, "official": flow.official, "device": str(device),
        "autocast": bool(_AUTOCAST.value and device.type == "cuda"),
        "checkpoint": _CHECKPOINT.value, "config": repr(config), "pairs": pairs,
        "aepe": sum(p["aepe"] for p in pairs) / len(pairs),
        "median_magnitude": sum(p["median_magnitude"] for p in pairs) / len(pairs),
    }


def format_text(record: dict) -> str:
    width, height = record["frame_size"]
    lines = [f"frames:           {record['frames']} ({record['num_frames']} frames, "
             f"{width}x{height}; flow {record['flow_size'][0]}x{record['flow_size'][1]})",
             f"backend:          {record['backend']} on {record['device']} "
             f"(autocast {'on' if record['autocast'] else 'off'})",
             f"checkpoint:       {record['checkpoint']}"]
    for i, pair in enumerate(record["pairs"]):
        lines.append(f"pair {i}->{i + 1}:        aepe {pair['aepe']!r}, median magnitude "
                     f"{pair['median_magnitude']!r}")
    lines.append(f"aepe:             {record['aepe']!r}")
    lines.append(f"median_magnitude: {record['median_magnitude']!r}")
    return "\n".join(lines)


def main(argv: Sequence[str]) -> Optional[int]:
    return model_cli.run_main(argv, _JSON, _evaluate, format_text)


if __name__ == "__main__":
    flags.mark_flags_as_required(["frames", "checkpoint"])
    app.run(main, flags_parser=cli_support.parse_flags)
