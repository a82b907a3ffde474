"""//benchmarks/memobench:leaderboard and :import run as users run them (subprocesses).

Both binaries come from the test's runfiles, so these tests run under `bazel test`.
"""

import os
import pathlib
import subprocess

import pandas as pd
import pytest

from benchmarks.memobench import leaderboard
from benchmarks.memobench import leaderboard_files as files_lib
from benchmarks.memobench import leaderboard_fixture as fixture
from proto import schema
from proto import scorecard_pb2

_PACKAGE = pathlib.Path(os.environ.get("TEST_SRCDIR", "")) / "worldeval" / "benchmarks" / "memobench"
pytestmark = pytest.mark.skipif(not os.environ.get("TEST_SRCDIR"),
                                reason="the binaries come from Bazel runfiles")


def _run(binary, args, cwd, **env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WORLDFOUNDRY_")}
    return subprocess.run([str(_PACKAGE / binary)] + args, cwd=cwd, env={**clean, **env},
                          capture_output=True, text=True, timeout=300, check=False)


def test_leaderboard_binary_writes_the_csv_and_one_scorecard_per_model(tmp_path):
    roots = fixture.build_tree(tmp_path / "in")
    done = _run("leaderboard", ["--output_dir=out"], tmp_path,
                WORLDFOUNDRY_MEMOBENCH_EVAL_DIR=str(roots["eval_dir"]),
                WORLDFOUNDRY_MEMOBENCH_ORS_DIR=str(roots["ors_dir"]),
                WORLDFOUNDRY_MEMOBENCH_VQA_DIR=str(roots["vqa_dir"]))
    assert done.returncode == 0, done.stderr
    expected = leaderboard.write_csv(leaderboard.build_table(files_lib.load_all(**roots)),
                                     tmp_path / "expected.csv").read_text()
    assert (tmp_path / "out" / "leaderboard.csv").read_text() == expected
    assert "no overall score" in done.stdout
    table = pd.read_csv(tmp_path / "out" / "leaderboard.csv").set_index("Model")
    for key in ("lingbot-world", "mymodel", "stable-virtual-camera", "wan2.2"):
        card = schema.read_json(tmp_path / "out" / key / "scorecard.json", scorecard_pb2.Scorecard)
        assert card.verification.scope == scorecard_pb2.IMPORTED_OFFICIAL_RESULTS
        row = table.loc[card.model_name]
        for metric in card.metrics:
            if metric.id in row and pd.notna(row[metric.id]):
                assert f"{metric.value:.4f}" == f"{row[metric.id]:.4f}", (key, metric.id)
        assert (tmp_path / "out" / key / "per_sample_scores.jsonl").is_file()


def test_leaderboard_binary_without_inputs_exits_2(tmp_path):
    done = _run("leaderboard", [f"--eval_dir={tmp_path / 'absent'}"], tmp_path)
    assert done.returncode == 2 and "no such folder" in done.stderr
    done = _run("leaderboard", [], tmp_path)
    assert done.returncode == 2 and "at least one of them" in done.stderr


def test_import_binary_combines_steps_from_roots(tmp_path):
    roots = fixture.build_tree(tmp_path / "in")
    done = _run("import", [f"--eval_dir={roots['eval_dir']}", f"--vqa_dir={roots['vqa_dir']}",
                           "--model_name=LingBot-World", "--output_dir=out"], tmp_path,
                WORLDFOUNDRY_MEMOBENCH_ORS_DIR=str(roots["ors_dir"]))
    assert done.returncode == 0, done.stderr
    card = schema.read_json(tmp_path / "out" / "scorecard.json", scorecard_pb2.Scorecard)
    models = files_lib.load_all(**roots)
    row = leaderboard.aggregate_model(models["lingbot-world"])
    values = {m.id: m.value for m in card.metrics if m.available}
    assert {k: values[k] for k in leaderboard.DISPLAY_ORDER} == {
        k: row[k] for k in leaderboard.DISPLAY_ORDER}
    assert card.provenance.inputs["ors_dir"] == str(roots["ors_dir"])
    assert "VQA: 3 of the 45 VQA clips" in done.stdout


def test_import_binary_leaderboard_csv_alone_and_bad_flags(tmp_path):
    roots = fixture.build_tree(tmp_path / "in")
    path = leaderboard.write_csv(leaderboard.build_table(files_lib.load_all(**roots)),
                                 tmp_path / "leaderboard.csv")
    done = _run("import", [f"--leaderboard_csv={path}", "--model_name=SVC", "--output_dir=out"],
                tmp_path)
    assert done.returncode == 0, done.stderr
    card = schema.read_json(tmp_path / "out" / "scorecard.json", scorecard_pb2.Scorecard)
    assert card.model_name == "SVC" and card.coverage.evaluated == 0
    done = _run("import", [f"--eval_dir={roots['eval_dir']}", "--output_dir=out"], tmp_path,
                WORLDFOUNDRY_MEMOBENCH_RESULTS_PATH=str(tmp_path / "x.csv"))
    assert done.returncode == 2 and "both" in done.stderr
    done = _run("import", ["--output_dir=out"], tmp_path)
    assert done.returncode == 2 and "at least one source" in done.stderr


def test_import_binary_refuses_a_header_only_eval_csv_and_names_a_bad_cell(tmp_path):
    """Nothing to import is exit 2 naming the file (not "0 of 0 expected", exit 0); a cell
    that is not a number is named with its row and clip (not pandas' whole column)."""
    roots = fixture.build_tree(tmp_path / "in")
    model_dir, source = next((d, files_lib.latest_eval_csv(d))
                             for d in sorted(pathlib.Path(roots["eval_dir"]).iterdir())
                             if d.is_dir() and files_lib.latest_eval_csv(d))
    frame = pd.read_csv(source, dtype={"id": str})
    frame.iloc[:0].to_csv(tmp_path / "eval_header.csv", index=False)
    done = _run("import", [f"--eval_csv={tmp_path / 'eval_header.csv'}", "--output_dir=out"],
                tmp_path)
    assert done.returncode == 2, done.stderr
    assert "eval_header.csv: expected at least one clip row" in done.stderr
    assert not (tmp_path / "out" / "scorecard.json").exists()
    header_dir = tmp_path / "header_dir" / model_dir.name
    header_dir.mkdir(parents=True)
    frame.iloc[:0].to_csv(header_dir / "eval_both.csv", index=False)
    done = _run("import", [f"--eval_dir={header_dir}", "--output_dir=out2"], tmp_path)
    assert done.returncode == 2 and "a header and no rows" in done.stderr, done.stderr
    bad = frame.astype({"VisualQuality": object})
    bad.loc[1, "VisualQuality"] = "high"
    bad.to_csv(tmp_path / "eval_bad.csv", index=False)
    done = _run("import", [f"--eval_csv={tmp_path / 'eval_bad.csv'}", "--output_dir=out3"],
                tmp_path)
    assert done.returncode == 2, done.stderr
    assert (f"eval_bad.csv: expected numbers in column VisualQuality, found 'high' on row 3 "
            f"(the header is row 1; clip {frame['id'][1]})") in done.stderr
