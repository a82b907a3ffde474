"""Writes what the scripts in official_runs/ read: each check's checkpoints and inputs.

    bazel run //tools/calibration:official_run_inputs -- --output_dir=/tmp/parity_in \\
        [--only=cotracker3,sam2,...]

One writer per parity check (the names of --only; default: all): depth_anything
(depth_anything_v2_small/), clipiqa (RN50.pt, CLIP-IQA+_learned_prompts.pth), dinov2
(dinov2_base/, dinov2_hub_layout.pth), grounding_dino (groundingdino_tiny.pth,
bert-base-uncased/, grounding_dino_arch.json), sam_v1 (sam_tiny.pth, sam_v1_inputs.json),
imagereward (imagereward/, imagereward_prompts.json), sam3 (sam3/, sam3_official.pt,
sam3_bpe.txt.gz, sam3_prompts.json), frames (frames.npy: tools.calibration.frames), and
the VMBench and camera checks' own inputs: sam2, cotracker3 (a ~100 MB full-size
checkpoint), videomae, qalign, mapanything, sea_raft, ois, gram, clip_score (see each *_parity.write_inputs).
"""

import pathlib

from absl import app
from absl import flags
import numpy as np

from tools.calibration import clip_score_parity
from tools.calibration import clipiqa_parity
from tools.calibration import cotracker3_parity
from tools.calibration import depth_anything_parity
from tools.calibration import dinov2_parity
from tools.calibration import frames as frames_lib
from tools.calibration import gram_parity
from tools.calibration import grounding_dino_parity
from tools.calibration import imagereward_parity
from tools.calibration import mapanything_parity
from tools.calibration import ois_parity
from tools.calibration import qalign_parity
from tools.calibration import sam2_motion_parity
from tools.calibration import sam2_parity
from tools.calibration import sam3_parity
from tools.calibration import sam_v1_parity
from tools.calibration import sea_raft_parity
from tools.calibration import videomae_parity
from tools.calibration import vfimamba_parity


def _frames(out: pathlib.Path) -> pathlib.Path:
    np.save(out / "frames.npy", np.array(frames_lib.all_frames(), dtype=object),
            allow_pickle=True)
    return out / "frames.npy"


WRITERS = {
    "depth_anything": depth_anything_parity.write_checkpoint,
    "clipiqa": clipiqa_parity.write_checkpoints,
    "dinov2": dinov2_parity.write_checkpoints,
    "grounding_dino": grounding_dino_parity.write_inputs,
    "sam_v1": sam_v1_parity.write_inputs,
    "imagereward": imagereward_parity.write_inputs,
    "sam3": sam3_parity.write_inputs,
    "frames": _frames,
    "sam2": sam2_parity.write_inputs,
    "sam2_motion": sam2_motion_parity.write_inputs,
    "cotracker3": cotracker3_parity.write_inputs,
    "videomae": videomae_parity.write_inputs,
    "qalign": qalign_parity.write_inputs,
    "mapanything": mapanything_parity.write_inputs,
    "sea_raft": sea_raft_parity.write_inputs,
    "ois": ois_parity.write_inputs,
    "gram": gram_parity.write_inputs,
    "clip_score": clip_score_parity.write_inputs,
    "vfimamba": vfimamba_parity.write_inputs,
}

_OUTPUT_DIR = flags.DEFINE_string("output_dir", None, "Folder to write into (absolute).")
_ONLY = flags.DEFINE_list("only", None, "Writers to run (default: all): " + ", ".join(WRITERS))


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    unknown = sorted(set(_ONLY.value or ()) - set(WRITERS))
    if unknown:
        raise app.UsageError(f"--only: unknown {unknown}; known: {', '.join(WRITERS)}")
    out = pathlib.Path(_OUTPUT_DIR.value)
    out.mkdir(parents=True, exist_ok=True)
    for name in _ONLY.value or WRITERS:
        print(f"{name}: {WRITERS[name](out)}")


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
