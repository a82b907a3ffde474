"""Prints the MUSIQ score of every frame of one clip, and their mean.

The clip (a folder of numbered PNG/JPEG frames, or a video) is decoded at its own size;
each frame is shrunk so its longer side is at most --max_side (torchvision Resize's
rule: int() sizes, bilinear, antialias only with --antialias; 0: never shrunk), divided by
255 and scored by metrics.iqa.musiq. The weights are a pyiqa MUSIQ file given by
--checkpoint (e.g. musiq_spaq_ckpt-358bb6af.pth); the network sizes are read from its
tensors, except --num_heads and --longer_sides, which a file does not record.

Usage:
  bazel run //metrics/iqa:musiq -- --frames=clip.mp4 \\
      --checkpoint=~/ckpt/musiq_spaq/musiq_spaq_ckpt-358bb6af.pth [--json]

Exit codes: 0 done; 2 bad input or configuration; 1 internal error.
"""

import dataclasses

from absl import app
from absl import flags
import numpy as np

from metrics import cli_support
from metrics import model_cli
from metrics.checkpoints import state_dict
from metrics.iqa import musiq
from metrics.video import frames as frames_lib

_FRAMES = flags.DEFINE_string("frames", None, "The clip: a frame folder or a video file.")
_CHECKPOINT = flags.DEFINE_string("checkpoint", None, "A pyiqa MUSIQ weight file.")
_MAX_SIDE = flags.DEFINE_integer(
    "max_side", 512, "Longer side above which a frame is shrunk first (0: never).",
    lower_bound=0)
_ANTIALIAS = flags.DEFINE_boolean(
    "antialias", False, "Shrink with antialias (torchvision >= 0.17's Resize default) "
    "instead of without (torchvision <= 0.16).")
_NUM_HEADS = flags.DEFINE_integer("num_heads", musiq.SPAQ.num_heads, "Attention heads.",
                                  lower_bound=1)
_LONGER_SIDES = flags.DEFINE_list(
    "longer_sides", [str(s) for s in musiq.SPAQ.longer_sides],
    "Longer sides of MUSIQ's resized scales.")
_BATCH_SIZE = flags.DEFINE_integer("batch_size", 4, "Frames per network call.", lower_bound=1)
_DEVICE = flags.DEFINE_string("device", "auto", "auto, cpu, cuda or cuda:N.")
_JSON = flags.DEFINE_boolean("json", False, "Print one JSON object instead of text.")


def _evaluate() -> dict:
    for name, holder in (("--frames", _FRAMES), ("--checkpoint", _CHECKPOINT)):
        if not holder.value:
            raise model_cli.ConfigError(f"{name} is required")
    try:
        longer_sides = [int(s) for s in _LONGER_SIDES.value]
    except ValueError as e:
        raise model_cli.ConfigError(f"--longer_sides: {e}") from e
    device = model_cli.device(_DEVICE.value)
    checkpoint = cli_support.user_path(_CHECKPOINT.value)
    try:
        config = musiq.config_of(state_dict.read_state_dict(checkpoint), _NUM_HEADS.value,
                                 longer_sides)
        model = musiq.load_musiq(checkpoint, device, config)
    except (ValueError, OSError) as e:
        raise model_cli.ConfigError(f"{checkpoint}: {e}") from e
    clip = frames_lib.load_frames(cli_support.user_path(_FRAMES.value))
    rgb = np.ascontiguousarray(clip[..., ::-1])
    scores = musiq.frame_scores(model, rgb, _MAX_SIDE.value or None, _ANTIALIAS.value,
                                _BATCH_SIZE.value).tolist()
    return {"frames": _FRAMES.value, "num_frames": len(scores),
            "frame_size": [int(clip.shape[2]), int(clip.shape[1])],
            "max_side": _MAX_SIDE.value, "antialias": _ANTIALIAS.value,
            "config": dataclasses.asdict(config), "device": str(device),
            "frame_scores": scores, "mean_score": float(np.mean(scores)) if scores else None}


def _text(record: dict) -> str:
    width, height = record["frame_size"]
    lines = [f"frames:       {record['frames']} ({record['num_frames']} frames, {width}x{height})",
             f"shrink:       longer side > {record['max_side'] or 'never'}, antialias "
             f"{record['antialias']}",
             f"frame scores: {record['frame_scores']}",
             f"mean score:   {record['mean_score']!r}"]
    return "\n".join(lines)


def main(argv):
    return model_cli.run_main(argv, _JSON, _evaluate, _text)


if __name__ == "__main__":
    app.run(main, flags_parser=cli_support.parse_flags)
