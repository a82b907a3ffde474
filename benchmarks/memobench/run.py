"""MemoBench runner: scores a model's clips on MemoBench's 14 leaderboard metrics (Step 1
fidelity and consistency, ORS, the VQA judge; --steps) and per-phase diagnostics.

    ./bazelw run //benchmarks/memobench:run          # the bundled sample; downloads nothing
    ./bazelw run //benchmarks/memobench:run -- --generated_dir=output/MyModel \\
        --data_root=/path/to/MemoBench/data --model_name=MyModel

A metric whose weights, judge key or package is missing is reported unavailable, and the
summary gives one fix per cause. Before a run, what it needs:
`./bazelw run //tools:preflight -- --benchmark=memobench`. Details: README.md.
Exit codes: 0 done (some metrics may be unavailable), 2 unusable input or configuration,
1 internal error.
"""

import dataclasses
import os

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import flags as common_flags
from benchmarks.common import paths
from benchmarks.common import summary
from benchmarks.memobench import bundled_sample
from benchmarks.memobench import runner
from benchmarks.memobench.step1 import prepare as step1_prepare
from benchmarks.memobench.vqa import judges as vqa_judges

_ENV = "WORLDFOUNDRY_MEMOBENCH_"


def _env(name: str):
    return os.environ.get(name) or None


GENERATED_DIR = flags.DEFINE_string(
    "generated_dir", _env("WORLDFOUNDRY_GENERATED_ARTIFACT_DIR"),
    "A model's output root holding Synthetic/ and/or Real/ (output/{model}/ in MemoBench's "
    "layout). Env: WORLDFOUNDRY_GENERATED_ARTIFACT_DIR.")
GENERATED_SYNTHETIC_DIR = flags.DEFINE_string(
    "generated_synthetic_dir", _env(_ENV + "GENERATED_SYNTHETIC_DIR"),
    "The synthetic clips' root (overrides <generated_dir>/Synthetic). "
    "Env: WORLDFOUNDRY_MEMOBENCH_GENERATED_SYNTHETIC_DIR.")
GENERATED_REAL_DIR = flags.DEFINE_string(
    "generated_real_dir", _env(_ENV + "GENERATED_REAL_DIR"),
    "The real clips' root (overrides <generated_dir>/Real). "
    "Env: WORLDFOUNDRY_MEMOBENCH_GENERATED_REAL_DIR.")
DATA_ROOT = flags.DEFINE_string(
    "data_root", _env(_ENV + "DATA_ROOT"),
    "MemoBench's data/ folder (or the MemoBench checkout containing it): "
    "Synthetic_processed/, Real_Raw/ and the phase sheets. Env: WORLDFOUNDRY_MEMOBENCH_DATA_ROOT.")
MODEL_NAME = flags.DEFINE_string(
    "model_name", _env(_ENV + "MODEL_NAME"),
    "The model's name in the scorecard. Env: WORLDFOUNDRY_MEMOBENCH_MODEL_NAME.")
MODE = flags.DEFINE_enum(
    "mode", "both", runner.MODES, "Which split to evaluate: synthetic, real or both.")
CLIP = flags.DEFINE_string("clip", None, "Evaluate only this clip id (e.g. Barnyard_001, 001).")
SCENE = flags.DEFINE_string("scene", None, "Evaluate only this scene (e.g. Barnyard; 'real').")
SYNTHETIC_SHEET = flags.DEFINE_string(
    "synthetic_sheet", None, "Synthetic phase sheet (.xlsx/.csv); default "
    "<data_root>/Synthetic_processed/Synthetic_ExitReenter.xlsx.")
REAL_SHEET = flags.DEFINE_string(
    "real_sheet", None, "Real phase sheet (.xlsx/.csv); default "
    "<data_root>/Real_Raw/Real_ExitReenter.xlsx.")

FLOW_BACKEND = flags.DEFINE_enum(
    "flow_backend", "raft", ["raft", "dis"],
    "MotionSmoothness optical flow: raft (official: torchvision RAFT large) or dis (OpenCV "
    "DIS, weight-free, recorded in the scorecard as NOT official).")
CAMERA_BACKEND = flags.DEFINE_enum(
    "camera_backend", "mapanything", ["mapanything", "classical"],
    "CameraControllability pose estimator: mapanything (official; needs the mapanything "
    "package and weights) or classical (feature-match two-view rotation, weight-free, NOT "
    "official).")
LPIPS_BACKEND = flags.DEFINE_enum(
    "lpips_backend", "lpips", ["lpips", "worldeval"],
    "GT_*_LPIPS network: lpips, the lpips package's own LPIPS(net='alex') (official). "
    "worldeval, which chose worldeval's former re-implementation, is retired: still "
    "accepted, it runs the package and prints a warning.")
RAFT_CHECKPOINT = flags.DEFINE_string(
    "raft_checkpoint", None, "RAFT large weights (raft_large_C_T_SKHT_V2-ff5fadd5.pth).")
LPIPS_ALEXNET_CHECKPOINT = flags.DEFINE_string(
    "lpips_alexnet_checkpoint", None, "torchvision AlexNet weights for LPIPS "
    "(alexnet-owt-7be5be79.pth).")
LPIPS_CHECKPOINT = flags.DEFINE_string(
    "lpips_checkpoint", None, "LPIPS v0.1 AlexNet linear-layer weights (alex.pth).")
PROMPT_SRC_SYN = flags.DEFINE_string(
    "prompt_src_syn", None,
    "ImageRewardScore prompts for synthetic clips: a CSV with video_folder and prompt columns "
    "(rows with skip=yes are ignored), as run_eval.py's --prompt_src_syn. A clip it does not "
    "list takes the prompt column of the synthetic phase sheet.")
PROMPT_SRC_REAL = flags.DEFINE_string(
    "prompt_src_real", None,
    "ImageRewardScore prompts for real clips: a CSV with a video_folder or id column (clip "
    "number) and prompt, as run_eval.py's --prompt_src_real. Without it real clips get no "
    "ImageRewardScore. MemoBench's data/sam3_metadata/real_metadata.csv (column video_id) "
    "does not parse as such a CSV, upstream or here, so it yields no prompts.")
STEPS = flags.DEFINE_list(
    "steps", ",".join(runner.STEPS),
    "MemoBench steps to run, comma-separated: step1 (automatic metrics, eval_<mode>.csv), "
    "ors (SAM-3 Object Revisit Score, ors_scores.csv), vqa (the VLM judge, vqa_results/), "
    "leaderboard (leaderboard.csv from those files, as leaderboard.py). A step whose "
    "weights or judge are missing reports its metrics unavailable with the reason.")
SAM3_CHECKPOINT = flags.DEFINE_string(
    "sam3_checkpoint", None, "ORS: a facebook/sam3 snapshot folder (config + model.safetensors).")
SAM3_METADATA_DIR = flags.DEFINE_string(
    "sam3_metadata_dir", _env(_ENV + "SAM3_METADATA_DIR"),
    "ORS: the folder of synthetic_metadata.csv / real_metadata.csv (prompts and subjects). "
    "Default <data_root>/sam3_metadata. Env: WORLDFOUNDRY_MEMOBENCH_SAM3_METADATA_DIR.")
JUDGE = flags.DEFINE_enum(
    "judge", vqa_judges.GEMINI, vqa_judges.KINDS,
    "VQA judge: gemini (official: google-genai Files API, key in GEMINI_API_KEY) or openai "
    "(any OpenAI-compatible endpoint, e.g. a local vLLM server; NOT official).")
JUDGE_MODEL = flags.DEFINE_string(
    "judge_model", None, "VQA judge model id (default for gemini: llm-vqa.py's "
    "gemini-3.1-pro-preview; required for openai: the served model name).")
JUDGE_BASE_URL = flags.DEFINE_string(
    "judge_base_url", None, "VQA judge address: for openai the API root (http://host:port/v1, "
    "required); for gemini an override of Google's address (makes the judge non-official).")
JUDGE_API_KEY_ENV = flags.DEFINE_string(
    "judge_api_key_env", None, "Environment variable holding the judge's API key (default "
    "GEMINI_API_KEY / OPENAI_API_KEY). The key is never printed or recorded.")
JUDGE_TIMEOUT_S = flags.DEFINE_float(
    "judge_timeout_s", 600.0, "Seconds before one judge request times out.", lower_bound=1)
JUDGE_MAX_ATTEMPTS = flags.DEFINE_integer(
    "judge_max_attempts", 4, "Attempts per clip on timeouts, HTTP 408/429/5xx (exponential "
    "backoff); llm-vqa.py makes 1.", lower_bound=1)
VQA_FAILURE_CASES = flags.DEFINE_string(
    "vqa_failure_cases", None, "VQA: failure-cases.csv (default <data_root>/vqa_questions/).")
VQA_QUESTIONS_DIR = flags.DEFINE_string(
    "vqa_questions_dir", None, "VQA: the folder of <scene>-<id>-questions.csv (default "
    "<data_root>/vqa_questions/).")

# --max_side is a common flag (benchmarks/common/flags.py); unset, MemoBench uses
# run_eval.py's 640 (runner.MemobenchConfig.max_side).
SAMPLE_STEP = flags.DEFINE_integer(
    "sample_step", 4, "Frame stride of the temporal and quality metrics (run_eval.py: 4).",
    lower_bound=1)

_RECORDED = ("generated_dir", "generated_synthetic_dir", "generated_real_dir", "data_root",
             "model_name", "mode", "clip", "scene", "synthetic_sheet", "real_sheet",
             "sample_step", "flow_backend", "camera_backend", "lpips_backend",
             "raft_checkpoint",
             "lpips_alexnet_checkpoint", "lpips_checkpoint", "prompt_src_syn", "prompt_src_real",
             "steps", "sam3_checkpoint", "sam3_metadata_dir", "judge", "judge_model",
             "judge_base_url", "judge_api_key_env", "judge_timeout_s", "judge_max_attempts",
             "vqa_failure_cases", "vqa_questions_dir") + common_flags.RECORDED


def _opt_path(value):
    return paths.user_path(value) if value else None


def _config() -> runner.MemobenchConfig:
    common = common_flags.common_config()
    bundled = not (GENERATED_DIR.value or GENERATED_SYNTHETIC_DIR.value
                   or GENERATED_REAL_DIR.value or DATA_ROOT.value)
    if bundled:
        inputs = bundled_sample.extract()
        summary.announce(f"No --generated_dir/--data_root given: evaluating the bundled sample "
                         f"(model {inputs.model_name}, extracted to {inputs.root}).")
        if not flags.FLAGS["offline"].present:
            # A first look should not start several GB of downloads: checkpoints already
            # present (--checkpoint_dir, caches) are used; --nooffline fetches the rest.
            common = dataclasses.replace(common, offline=True)
            summary.announce("Bundled sample: nothing is downloaded (metrics whose weights are not "
                  "found locally are reported unavailable); pass --nooffline to fetch them.")
        gen_root, data_root, model = inputs.generated_dir, inputs.data_root, inputs.model_name
    else:
        gen_root = _opt_path(GENERATED_DIR.value)
        data_root = _opt_path(DATA_ROOT.value)
        model = None
        if data_root is None:
            raise errors.InputError("--data_root", "MemoBench's data folder", "none given")
    model = MODEL_NAME.value or model or (gen_root.name if gen_root else "model")
    syn = _opt_path(GENERATED_SYNTHETIC_DIR.value) or (gen_root / "Synthetic" if gen_root else None)
    real = _opt_path(GENERATED_REAL_DIR.value) or (gen_root / "Real" if gen_root else None)
    output = _opt_path(common.output_dir or f"worldeval_outputs/memobench/{model}")
    return runner.MemobenchConfig(
        common=common, data_root=data_root, output_dir=output, model_name=model,
        mode=MODE.value, generated_synthetic_dir=syn, generated_real_dir=real,
        clip=CLIP.value, scene=SCENE.value, synthetic_sheet=_opt_path(SYNTHETIC_SHEET.value),
        real_sheet=_opt_path(REAL_SHEET.value), bundled_sample=bundled,
        **({"max_side": common.max_side} if common.max_side is not None else {}),
        sample_step=SAMPLE_STEP.value,
        step1=step1_prepare.Step1Settings(
            device=common.device,
            checkpoint_dir=str(_opt_path(common.checkpoint_dir)) if common.checkpoint_dir else None,
            offline=common.offline, flow_backend=FLOW_BACKEND.value,
            camera_backend=CAMERA_BACKEND.value, lpips_backend=LPIPS_BACKEND.value,
            checkpoints={name: str(_opt_path(value)) for name, value in (
                ("raft_large", RAFT_CHECKPOINT.value), ("alexnet", LPIPS_ALEXNET_CHECKPOINT.value),
                ("lpips_alex_v0.1", LPIPS_CHECKPOINT.value),
                ("sam3", SAM3_CHECKPOINT.value)) if value},
            prompt_src_syn=str(_opt_path(PROMPT_SRC_SYN.value)) if PROMPT_SRC_SYN.value else None,
            prompt_src_real=(str(_opt_path(PROMPT_SRC_REAL.value)) if PROMPT_SRC_REAL.value
                             else None)),
        steps=tuple(STEPS.value), sam3_metadata_dir=_opt_path(SAM3_METADATA_DIR.value),
        judge=vqa_judges.JudgeSettings(
            kind=JUDGE.value, model_id=JUDGE_MODEL.value, base_url=JUDGE_BASE_URL.value,
            api_key_env=JUDGE_API_KEY_ENV.value, timeout_s=JUDGE_TIMEOUT_S.value,
            max_attempts=JUDGE_MAX_ATTEMPTS.value),
        vqa_failure_cases=_opt_path(VQA_FAILURE_CASES.value),
        vqa_questions_dir=_opt_path(VQA_QUESTIONS_DIR.value),
        # max_side as before the flag became common: recorded even when unset (640).
        recorded_flags={**common_flags.flag_values_for_record(_RECORDED),
                        "max_side": str(common.max_side or runner.MemobenchConfig.max_side)})


def main(argv):
    app_main.run_benchmark(argv, _config, runner.run, noun="samples")


if __name__ == "__main__":
    app_main.run(main)
