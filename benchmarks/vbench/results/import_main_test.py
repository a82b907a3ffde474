"""import_main's flags: --eval_results, --model_name's default, --output_dir, extra
arguments refused (main called in-process, flags parsed by absl)."""

import json
import math

import pytest
from absl import flags

from benchmarks.common.errors import InputError
from benchmarks.vbench import import_main
from benchmarks.vbench import metric_specs
from benchmarks.vbench.results import results_testing as rt


def test_import_main_flags(tmp_path, capsys):
    source = rt.write(tmp_path / "mymodel_eval_results.json", rt.official_content(metric_specs.DIMENSIONS))
    assert import_main.default_model_name(source) == "mymodel"
    out = tmp_path / "out"
    flags.FLAGS(["import", f"--eval_results={source}", f"--output_dir={out}"])
    try:
        import_main.main(["import"])
        card = json.loads((out / "scorecard.json").read_text())
        assert card["model_name"] == "mymodel"
        assert (out / "per_sample_scores.jsonl").exists()
        with pytest.raises(InputError, match="extra arguments"):
            import_main.main(["import", "stray"])
    finally:
        flags.FLAGS.unparse_flags()
    assert "total_score" in capsys.readouterr().out
    assert math.isfinite(card["metrics"][0]["value"])


def test_default_model_name(tmp_path):
    zipped = tmp_path / "board.zip"
    zipped.write_bytes(b"PK")
    assert import_main.default_model_name(zipped) == "board"
    assert import_main.default_model_name(tmp_path) == tmp_path.name


def test_no_eval_results_flag():
    flags.FLAGS(["import"])
    try:
        with pytest.raises(InputError, match="--eval_results"):
            import_main.main(["import"])
    finally:
        flags.FLAGS.unparse_flags()
