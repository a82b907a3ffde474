"""VMBench runner: scores a flat folder of <index>.mp4 videos on VMBench's five motion
metrics (PAS, OIS, TCS, CAS, MSS) with the official models, and its two Totals.

    ./bazelw run //benchmarks/vmbench:run          # the bundled sample
    ./bazelw run //benchmarks/vmbench:run -- --video_dir=D --output_dir=O \\
        --prompt_manifest=VMBench/prompts/prompts.json [--metrics=pas,ois,tcs,cas,mss]

The bundled sample runs PAS on the weight-free opencv-lk-grid backend (NOT official).
Checkpoints come from --checkpoint_dir or the Hugging Face cache; a missing one makes
its metrics unavailable, and the summary gives one fetch command for all of them.
Details: README.md ("VMBench"). Exit codes: 0 done (some metrics may be unavailable),
2 unusable input or configuration, 1 internal error.
"""

import dataclasses
import os

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import flags as common_flags
from benchmarks.common import paths
from benchmarks.common import summary
from benchmarks.vmbench import bundled_sample
from benchmarks.vmbench import cas
from benchmarks.vmbench import official_models
from benchmarks.vmbench import pas_boxes
from benchmarks.vmbench import runner
from benchmarks.vmbench import tcs

_ENV = "WORLDFOUNDRY_VMBENCH_"
_FETCH_PROMPTS = ("git clone https://github.com/AMAP-ML/VMBench && git -C VMBench checkout "
                  "c278a73984b45983666e7979a85fe262a1e929c6 (prompts/prompts.json), or "
                  "./bazelw run //tools:assets -- plan --benchmark=vmbench")


def _env(name: str):
    return os.environ.get(_ENV + name) or None


VIDEO_DIR = flags.DEFINE_string(
    "video_dir", _env("VIDEO_DIR") or os.environ.get("WORLDFOUNDRY_GENERATED_ARTIFACT_DIR"),
    "A flat folder of <index>.mp4 (0001.mp4 ... 1050.mp4). Env: WORLDFOUNDRY_VMBENCH_VIDEO_DIR "
    "or WORLDFOUNDRY_GENERATED_ARTIFACT_DIR.")
PROMPT_MANIFEST = flags.DEFINE_string(
    "prompt_manifest", _env("PROMPT_MANIFEST"),
    "VMBench's prompts/prompts.json (1,050 entries). Env: WORLDFOUNDRY_VMBENCH_PROMPT_MANIFEST.")
MODEL_NAME = flags.DEFINE_string(
    "model_name", _env("MODEL_NAME"),
    "The model's name in the scorecard (default: the video folder's name). "
    "Env: WORLDFOUNDRY_VMBENCH_MODEL_NAME.")
PAS_BACKEND = flags.DEFINE_enum(
    "pas_backend", None, runner.PAS_BACKENDS,
    "PAS backend: official (GroundingDINO Swin-B + SAM ViT-H + CoTracker3, the official "
    "checkpoints; unavailable with their fetch commands when missing) or lk (OpenCV "
    "Lucas-Kanade grid, weight-free, no detector: NOT official, recorded as such). "
    "Default: official, except lk for the bundled sample.")
SAM_BOXES = flags.DEFINE_enum(
    "sam_boxes", pas_boxes.SAM_BOXES_FAITHFUL, pas_boxes.SAM_BOXES_MODES,
    "PAS's SAM box scaling: faithful (the official bug: boxes scaled for a (3, H') image, "
    "the official numbers) or corrected (scaled for the frame: NOT the official values).")
TCS_QUERY_FRAME = flags.DEFINE_enum(
    "tcs_query_frame", tcs.QUERY_FAITHFUL, tcs.QUERY_MODES,
    "TCS's CoTracker query frame: faithful (the official bug: the keyframe index used as a "
    "frame index, the official numbers) or corrected (keyframe index x step: NOT the "
    "official values).")
GRID_SIZE = flags.DEFINE_integer(
    "grid_size", 30, "PAS tracking grid per side (evaluate.sh: 30).", lower_bound=1)

CAS_RANDOM_INIT = flags.DEFINE_bool(
    "cas_faithful_random_init", False,
    "CAS as the shipped commonsense_adherence_score.py runs it: the model's random "
    "initialisation, no checkpoint (it never loads vit_g_vmbench.pt). Only to show that "
    "behaviour: named, NOT official, never leaderboard-eligible. Default: load "
    "vit_g_vmbench.pt as run_class_finetuning.py does (the official intent).")
CAS_BATCH_SIZE = flags.DEFINE_integer(
    "cas_batch_size", 10, "CAS views per forward pass (the official --batch_size 10; 30 "
    "views per video). Lower it when memory is short; values do not change.", lower_bound=1)

MSS_BATCH_FRAMES = flags.DEFINE_integer(
    "mss_batch_frames", 48, "MSS: frames per Q-Align forward pass (windows of 3; the "
    "official code sends all of a video's windows at once, so its memory grows with the "
    "clip). Values do not change.", lower_bound=3)
MSS_DTYPE = flags.DEFINE_enum(
    "mss_dtype", None, ["float16", "bfloat16", "float32"],
    "MSS: Q-Align's dtype. Default: float16 on CUDA (the official), float32 on CPU "
    "(32.8 GB of weights; bfloat16 halves it). Recorded in the backend note.")

_RECORDED = ("video_dir", "prompt_manifest", "model_name", "pas_backend", "grid_size",
             "sam_boxes", "tcs_query_frame", "cas_faithful_random_init", "cas_batch_size",
             "mss_batch_frames", "mss_dtype") + common_flags.RECORDED


def _config() -> runner.VmbenchConfig:
    common = common_flags.common_config()
    bundled = not VIDEO_DIR.value
    if bundled:
        inputs = bundled_sample.extract()
        summary.announce("No --video_dir given: evaluating the bundled synthetic sample (3 clips "
                         f"of a textured square, extracted to {inputs.video_dir.parent}); not "
                         "VMBench data.")
        video_dir, manifest, model = inputs.video_dir, inputs.prompt_manifest, inputs.model_name
        if not flags.FLAGS["offline"].present:
            # A first look should not start GBs of downloads (TCS's models): checkpoints
            # already present (--checkpoint_dir, caches) are used; --nooffline fetches.
            common = dataclasses.replace(common, offline=True)
            summary.announce("Bundled sample: nothing is downloaded (metrics whose weights are not "
                  "found locally are reported unavailable); pass --nooffline to fetch them.")
    else:
        video_dir = paths.user_path(VIDEO_DIR.value)
        if not PROMPT_MANIFEST.value:
            raise errors.InputError("--prompt_manifest", "VMBench's prompts.json (fetch: "
                                    f"{_FETCH_PROMPTS})", "none given")
        manifest, model = paths.user_path(PROMPT_MANIFEST.value), video_dir.name
    model = MODEL_NAME.value or model
    output = paths.user_path(common.output_dir or f"worldeval_outputs/vmbench/{model}")
    return runner.VmbenchConfig(
        common=common, video_dir=video_dir, prompt_manifest=manifest, output_dir=output,
        model_name=model, pas_backend=PAS_BACKEND.value or ("lk" if bundled else "official"),
        grid_size=GRID_SIZE.value,
        quirks=official_models.Quirks(SAM_BOXES.value, TCS_QUERY_FRAME.value),
        cas_init=cas.AS_SHIPPED if CAS_RANDOM_INIT.value else cas.OFFICIAL_INTENT,
        cas_batch_size=CAS_BATCH_SIZE.value,
        mss_batch_frames=MSS_BATCH_FRAMES.value, mss_dtype=MSS_DTYPE.value,
        bundled_sample=bundled,
        recorded_flags=common_flags.flag_values_for_record(_RECORDED))


def main(argv):
    app_main.run_benchmark(argv, _config, runner.run, noun="videos")


if __name__ == "__main__":
    app_main.run(main)
