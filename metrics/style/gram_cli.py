"""Prints the VGG19 Gram-matrix style distance of each frame of a clip to a reference.

Each image (the reference, and every frame of a folder of numbered frames or a video)
is opened as RGB, resized with torchvision `Resize(--resize)` on its shorter side
(bilinear) and turned into a [0, 1] tensor; the distance is metrics.style.gram's
style_distance (conv1_1..conv3_1 pre-ReLU Gram matrices, summed MSE). The weights are
torchvision's vgg19 state dict file (vgg19-dcbb9e9d.pth), given by --checkpoint.

Usage:
  bazel run //metrics/style:gram -- --reference=ref.png --frames=frames/ \\
      --checkpoint=~/ckpt/vgg19-dcbb9e9d.pth [--resize=512] [--json]

Exit codes: 0 done; 2 bad input or configuration; 1 internal error.
"""

from absl import app
from absl import flags
from PIL import Image

from metrics import cli_support
from metrics import model_cli
from metrics.style import gram
from metrics.video import frames as frames_lib

_REFERENCE = flags.DEFINE_string("reference", None, "The reference image.")
_FRAMES = flags.DEFINE_string("frames", None, "The clip: a frame folder or a video file.")
_CHECKPOINT = flags.DEFINE_string("checkpoint", None, "torchvision's vgg19 weight file.")
_RESIZE = flags.DEFINE_integer("resize", 512, "Shorter side after resizing.", lower_bound=1)
_DEVICE = flags.DEFINE_string("device", "auto", "auto, cpu, cuda or cuda:N.")
_JSON = flags.DEFINE_boolean("json", False, "Print one JSON object instead of text.")
_WIDTHS = flags.DEFINE_list(
    "vgg_widths", ["64", "128", "256", "512"], "VGG19's four stage widths (the official "
    "ones by default; narrower only for a test checkpoint of the same layer graph).")


def _tensor(image: Image.Image, device):
    from torchvision import transforms  # pylint: disable=import-outside-toplevel
    loader = transforms.Compose([transforms.Resize(_RESIZE.value), transforms.ToTensor()])
    return loader(image.convert("RGB")).unsqueeze(0).to(device)


def _evaluate() -> dict:
    for name, holder in (("--reference", _REFERENCE), ("--frames", _FRAMES),
                         ("--checkpoint", _CHECKPOINT)):
        if not holder.value:
            raise model_cli.ConfigError(f"{name} is required")
    device = model_cli.device(_DEVICE.value)
    checkpoint = cli_support.user_path(_CHECKPOINT.value)
    try:
        features = gram.load_features(checkpoint, device, [int(w) for w in _WIDTHS.value])
    except (ValueError, OSError) as e:
        raise model_cli.ConfigError(f"{checkpoint}: {e}") from e
    try:
        with Image.open(cli_support.user_path(_REFERENCE.value)) as image:
            reference = _tensor(image, device)
    except OSError as e:
        raise model_cli.ConfigError(f"{_REFERENCE.value}: not a readable image ({e})") from e
    clip = frames_lib.load_frames(cli_support.user_path(_FRAMES.value))
    scores = [gram.style_distance(features, reference,
                                  _tensor(Image.fromarray(f[..., ::-1].copy()), device))
              for f in clip]
    return {"frames": len(scores), "resize": _RESIZE.value, "style_distance": scores,
            "mean": sum(scores) / len(scores) if scores else None}


def _text(record: dict) -> str:
    lines = [f"frame {i}: {v:.6g}" for i, v in enumerate(record["style_distance"])]
    return "\n".join(lines + [f"mean over {record['frames']} frames (Resize "
                              f"{record['resize']}): {record['mean']}"])


def main(argv):
    return model_cli.run_main(argv, _JSON, _evaluate, _text)


if __name__ == "__main__":
    app.run(main, flags_parser=cli_support.parse_flags)
