"""VBench's static filter for temporal_flickering (`vbench static_filter`, spec §5.3).

    bazel run //benchmarks/vbench/motion:static_filter -- --videos_path=/path/videos \\
        --result_path=/path/filter_results [--prompts=/path/prompts.txt] \\
        [--checkpoint=/path/raft-things.pth | --checkpoint_dir=DIR] [--device=cuda]

Scores the '*.mp4' files of --videos_path in sorted (lexicographic) order with RAFT
(raft-things.pth), keeps at most 5 static videos per temporal_flickering prompt (the
official suite's, read out of the pinned vbench wheel, in its order; or --prompts, one
per line), and writes, as upstream does,
{result_path}/filtered_static_video.json and the copies
{result_path}/filtered_videos/{prompt}-{i}.mp4, i from 0. Upstream's other scopes
('all', a JSON file) are not offered.
Exit codes: 0 done, 2 unusable input (a video that does not decode or is under 128 px,
missing weights), 1 internal error. Upstream stops on a video that does not decode too.
"""

import json
import pathlib

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.vbench.motion import static_filter
from benchmarks.vbench.motion import static_scores
from benchmarks.vbench.suite import prompt_suite
from metrics import cli_support
from metrics import model_cli
from metrics.checkpoints import resolver
from metrics.flow import pins
from metrics.flow import raft_things
from metrics.video import frames as frames_lib

VIDEOS_PATH = flags.DEFINE_string("videos_path", None, "The folder of generated '*.mp4' videos.")
PROMPTS = flags.DEFINE_string(
    "prompts", None, "A text file of prompts, one per line (default: the official suite's "
    "temporal_flickering prompts).")
RESULT_PATH = flags.DEFINE_string("result_path", "./filter_results", "Where to write.")
STORE_NAME = flags.DEFINE_string("store_name", static_filter.INFO_FILE,
                                 "The info file's name under --result_path.")
CHECKPOINT = flags.DEFINE_string("checkpoint", None, "raft-things.pth (princeton-vl RAFT).")
MODEL_FLAGS = model_cli.define_model_flags("A folder holding raft-things.pth.")


def read_prompts(path: pathlib.Path) -> list:
    """The non-empty lines of a prompt file, in order (trailing whitespace stripped)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise errors.InputError(path, "a UTF-8 text file of prompts, one per line",
                                type(e).__name__) from e
    prompts = [line.rstrip() for line in lines if line.strip()]
    if not prompts:
        raise errors.InputError(path, "a UTF-8 text file of prompts, one per line", "no prompt")
    return prompts


def suite_prompts() -> list:
    """The official suite's temporal_flickering prompts, in its order."""
    return [e.prompt_en for e in prompt_suite.load().entries
            if "temporal_flickering" in e.dimension]


def _load_model():
    try:
        model, _, checkpoint = model_cli.load_model(pins.RAFT_THINGS, CHECKPOINT.value,
                                                    MODEL_FLAGS, raft_things.load_raft_things)
    except (model_cli.ConfigError, resolver.CheckpointUnavailable) as e:
        raise errors.InputError("--checkpoint/--device", "usable RAFT weights and device",
                                str(e)) from e
    return model, checkpoint


def main(argv):
    if len(argv) > 1:
        raise errors.InputError(" ".join(argv[1:]), "flags only (--name=value)", "extra arguments")
    if not VIDEOS_PATH.value:
        raise errors.InputError("--videos_path", "a folder of '*.mp4' videos", "none given")
    videos = cli_support.user_path(VIDEOS_PATH.value)
    if not videos.is_dir():
        raise errors.InputError(videos, "a folder of '*.mp4' videos")
    prompts = (read_prompts(cli_support.user_path(PROMPTS.value)) if PROMPTS.value
               else suite_prompts())
    model, checkpoint = _load_model()

    def static(path: str) -> bool:
        rgb = frames_lib.load_frames(path)[..., ::-1]
        try:
            return static_scores.is_static_video(rgb, model)
        except ValueError as e:
            raise errors.InputError(path, "a video RAFT can score", str(e)) from e

    chosen = static_filter.select(static_filter.video_paths(videos), prompts, static)
    result_path = cli_support.user_path(RESULT_PATH.value)
    target = static_filter.write_outputs(chosen, result_path, STORE_NAME.value)
    record = {"result_path": str(result_path), "filtered_videos": str(target),
              "static_videos": sum(len(v) for v in chosen.values()),
              "prompts": len(chosen), "checkpoint": checkpoint}
    if MODEL_FLAGS.json.value:
        print(json.dumps(record))
    else:
        print(f"{record['static_videos']} static video(s) for {record['prompts']} prompt(s) "
              f"copied to {target}")


if __name__ == "__main__":
    app_main.run(main)
