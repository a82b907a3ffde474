"""MemoBench's leaderboard from official per-step outputs, as leaderboard/leaderboard.py builds it.

    bazel run //benchmarks/memobench:leaderboard -- --eval_dir=/path/outputs \\
        --ors_dir=/path/ors_results --vqa_dir=/path/vqa_results --output_dir=/path/out

Reads --eval_dir/{model}/eval_*.csv (the newest per model), --ors_dir/{model}/ors_scores.csv
and --vqa_dir/{model}/*.csv, any of them. Writes leaderboard.csv (leaderboard.py's
columns and number format) and, per model, <output_dir>/<model key>/ with scorecard.json
(scope IMPORTED_OFFICIAL_RESULTS), per_sample_scores.jsonl and raw_metric_table.jsonl.
Exit codes: 0 done, 2 unusable input, 1 internal error.
"""

import os

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import paths
from benchmarks.memobench import importer
from benchmarks.memobench import leaderboard
from benchmarks.memobench import leaderboard_files as files_lib
from proto import scorecard_pb2

EVAL_DIR = flags.DEFINE_string(
    "eval_dir", os.environ.get("WORLDFOUNDRY_MEMOBENCH_EVAL_DIR"),
    "Folder of per-model folders of run_eval.py eval_*.csv (env "
    "WORLDFOUNDRY_MEMOBENCH_EVAL_DIR).")
ORS_DIR = flags.DEFINE_string(
    "ors_dir", os.environ.get("WORLDFOUNDRY_MEMOBENCH_ORS_DIR"),
    "Folder of per-model folders holding compute_ors.py's ors_scores.csv (env "
    "WORLDFOUNDRY_MEMOBENCH_ORS_DIR).")
VQA_DIR = flags.DEFINE_string(
    "vqa_dir", os.environ.get("WORLDFOUNDRY_MEMOBENCH_VQA_DIR"),
    "Folder of per-model folders of llm-vqa.py per-clip CSVs (env "
    "WORLDFOUNDRY_MEMOBENCH_VQA_DIR).")
OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", None, "Where to write; default worldeval_outputs/memobench/leaderboard.")


def main(argv):
    if len(argv) > 1:
        raise errors.InputError(" ".join(argv[1:]), "flags only (--name=value)", "extra arguments")
    roots = {k: paths.user_path(v.value) if v.value else None
             for k, v in (("eval_dir", EVAL_DIR), ("ors_dir", ORS_DIR), ("vqa_dir", VQA_DIR))}
    if not any(roots.values()):
        raise errors.InputError("--eval_dir/--ors_dir/--vqa_dir", "at least one of them",
                                "none given")
    models = files_lib.load_all(**roots)
    table = leaderboard.build_table(models)
    out_dir = paths.user_path(OUTPUT_DIR.value or "worldeval_outputs/memobench/leaderboard")
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = leaderboard.write_csv(table, out_dir / leaderboard.CSV_NAME)
    lines = []
    for key, results in models.items():
        card, samples = importer.build(results, files_lib.display_name(key))
        card.output_files["leaderboard_csv"] = str(csv_path)
        importer.write_outputs(out_dir / key, card, samples, roots)
        cov = card.coverage
        lines.append(f"  {card.model_name}: {cov.evaluated} of {cov.expected} official clips "
                     f"with results, scope "
                     f"{scorecard_pb2.VerificationScope.Name(card.verification.scope)}: "
                     f"{out_dir / key / 'scorecard.json'}")
    print(csv_path.read_text(), end="")
    print(f"wrote {csv_path} ({len(models)} models; no overall score: leaderboard.py has none)")
    print("\n".join(lines))


if __name__ == "__main__":
    app_main.run(main)
