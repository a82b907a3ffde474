"""VBench runner: scores generated videos on VBench's dimensions as the official
`vbench evaluate` does on one GPU; writes {name}_full_info.json and
{name}_eval_results.json beside the scorecard.

    ./bazelw run //benchmarks/vbench:run          # the bundled synthetic sample
    ./bazelw run //benchmarks/vbench:run -- --videos_path=D --output_dir=O \\
        [--dimensions=a,b] [--mode=vbench_standard|custom_input|vbench_category]

vbench_standard looks for {prompt}{special_str}-{i}.mp4, i = 0..4, per prompt of the
official suite (read from the pinned vbench 0.1.5 wheel); missing videos are named in
coverage. Ten dimensions run; the six GRiT/Tag2Text/UMT ones are unavailable ("not in this
version"), and so are the Semantic and Total scores (cal_final_score.py's arithmetic,
absent = 0, is beside them). Flag defaults: WORLDFOUNDRY_VBENCH_<FLAG>; details:
README.md. Exit codes: 0 done, 2 unusable input or configuration, 1 internal error.
"""

import dataclasses
import os

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import flags as common_flags
from benchmarks.common import paths
from benchmarks.common import summary
from benchmarks.vbench import bundled_sample
from benchmarks.vbench import runner

_ENV = "WORLDFOUNDRY_VBENCH_"


def _env(name):
    return os.environ.get(_ENV + name) or None


VIDEOS_PATH = flags.DEFINE_string(
    "videos_path", _env("VIDEOS_PATH"), "The folder of generated videos (custom_input: a "
    "folder or one video). Env: WORLDFOUNDRY_VBENCH_VIDEOS_PATH.")
DIMENSIONS = flags.DEFINE_list(
    "dimensions", None, "Comma-separated dimensions (default: all 16; also 'quality', "
    "'semantic', 'computed'). Same as --metrics.")
MODE = flags.DEFINE_enum(
    "mode", runner.STANDARD, list(runner.MODES),
    "vbench_standard: the official suite's prompts, five videos each named "
    "{prompt}{special_str}-{i}{suffix}; custom_input: prompts from the file names or "
    "--prompt_file (six dimensions need the standard suite and are unavailable); "
    "vbench_category: the videos whose names start with a prompt of --category's list "
    "(upstream cannot run this mode as shipped, see README).")
PROMPT_FILE = flags.DEFINE_string(
    "prompt_file", None, "custom_input: a JSON object {video path: prompt} covering every "
    "video (for prompts that cannot be file names).")
PROMPT = flags.DEFINE_string(
    "prompt", None, "custom_input with a single video: its prompt (default: from the file "
    "name).")
CATEGORY = flags.DEFINE_string(
    "category", None, "vbench_category: the category name; its prompt list is "
    "--category_prompts.")
CATEGORY_PROMPTS = flags.DEFINE_string(
    "category_prompts", None, "vbench_category: the category's prompt file "
    "(VBench's prompts/prompts_per_category/<category>.txt, one prompt per line).")
SPECIAL_STR = flags.DEFINE_string(
    "special_str", "", "vbench_standard: the string between the prompt and -{i} in every "
    "file name (upstream's build_full_info_json argument).")
FULL_INFO_JSON = flags.DEFINE_string(
    "full_info_json", None, "A prompt suite in VBench_full_info.json's shape instead of the "
    "official one (the scorecard then says the suite is not official).")
NAME = flags.DEFINE_string(
    "name", None, "The official files' prefix: {name}_full_info.json, "
    "{name}_eval_results.json (default: the model name).")
MODEL_NAME = flags.DEFINE_string(
    "model_name", _env("MODEL_NAME"), "The model's name (default: --videos_path's folder "
    "name). Env: WORLDFOUNDRY_VBENCH_MODEL_NAME.")

_RECORDED = ("videos_path", "dimensions", "mode", "prompt_file", "prompt", "category",
             "category_prompts", "special_str", "full_info_json", "name",
             "model_name") + common_flags.RECORDED


def _path(value):
    return paths.user_path(value) if value else None


def _config() -> runner.VBenchConfig:
    common = common_flags.common_config()
    if common.checkpoint_dir is None and _env("ASSET_CHECKPOINT_DIR"):
        common = dataclasses.replace(common, checkpoint_dir=_env("ASSET_CHECKPOINT_DIR"))
    if DIMENSIONS.value:
        if common.metrics and tuple(common.metrics) != tuple(DIMENSIONS.value):
            raise errors.InputError("--dimensions", "one of --dimensions and --metrics",
                                    "both, naming different dimensions")
        common = dataclasses.replace(common, metrics=tuple(DIMENSIONS.value))
    bundled = not VIDEOS_PATH.value
    full_info = _path(FULL_INFO_JSON.value)
    if bundled:
        sample = bundled_sample.extract()
        summary.announce("No --videos_path given: evaluating the bundled synthetic sample "
                         f"(three prompts of our own, five videos each, extracted to "
                         f"{sample.root}); not VBench data.")
        videos, full_info, model = sample.videos_path, sample.full_info_json, sample.model_name
    else:
        videos = _path(VIDEOS_PATH.value)
        model = videos.name if videos.is_dir() else videos.stem
    model = MODEL_NAME.value or model
    output = paths.user_path(common.output_dir or f"worldeval_outputs/vbench/{model}")
    return runner.VBenchConfig(
        common=common, videos_path=videos, output_dir=output, model_name=model,
        name=NAME.value or model, mode=MODE.value, prompt_file=_path(PROMPT_FILE.value),
        prompt=PROMPT.value, category=CATEGORY.value,
        category_prompts=_path(CATEGORY_PROMPTS.value), special_str=SPECIAL_STR.value,
        full_info_json=full_info, bundled_sample=bundled,
        recorded_flags=common_flags.flag_values_for_record(_RECORDED))


def main(argv):
    app_main.run_benchmark(argv, _config, runner.run, noun="videos")


if __name__ == "__main__":
    app_main.run(main)
