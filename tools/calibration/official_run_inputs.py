"""Writes what the scripts in official_runs/ read: the checks' checkpoints and frames.

    bazel run //tools/calibration:official_run_inputs -- --output_dir=/tmp/parity_in

Layout: depth_anything_v2_small/ (Depth Anything snapshot), RN50.pt and
CLIP-IQA+_learned_prompts.pth (CLIP-IQA+), dinov2_base/ and
dinov2_hub_layout.pth (DINOv2), groundingdino_tiny.pth, bert-base-uncased/ and
grounding_dino_arch.json (GroundingDINO), sam_tiny.pth and sam_v1_inputs.json
(SAM v1), imagereward/ and imagereward_prompts.json (ImageReward), sam3/,
sam3_official.pt, sam3_bpe.txt.gz and sam3_prompts.json (SAM-3), frames.npy
(tools.calibration.frames).
"""

import pathlib

from absl import app
from absl import flags
import numpy as np

from tools.calibration import clipiqa_parity
from tools.calibration import depth_anything_parity
from tools.calibration import dinov2_parity
from tools.calibration import frames as frames_lib
from tools.calibration import grounding_dino_parity
from tools.calibration import imagereward_parity
from tools.calibration import sam3_parity
from tools.calibration import sam_v1_parity

_OUTPUT_DIR = flags.DEFINE_string("output_dir", None, "Folder to write into (absolute).")


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    out = pathlib.Path(_OUTPUT_DIR.value)
    out.mkdir(parents=True, exist_ok=True)
    print(f"depth anything: {depth_anything_parity.write_checkpoint(out)}")
    print(f"clip-iqa+: {clipiqa_parity.write_checkpoints(out)}")
    print(f"dinov2: {dinov2_parity.write_checkpoints(out)} + {dinov2_parity.HUB_FILE}")
    print(f"grounding dino: {grounding_dino_parity.write_inputs(out)}")
    print(f"sam v1: {sam_v1_parity.write_inputs(out)}")
    print(f"imagereward: {imagereward_parity.write_inputs(out)} + "
          f"{imagereward_parity.PROMPTS_FILE}")
    print(f"sam3: {sam3_parity.write_inputs(out)} + sam3_official.pt, sam3_bpe.txt.gz")
    np.save(out / "frames.npy", np.array(frames_lib.all_frames(), dtype=object),
            allow_pickle=True)
    print(f"frames: {out / 'frames.npy'}")


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
