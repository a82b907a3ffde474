"""app_main's exit codes: bad input 2, a full disk (the environment) 2 naming the file, a
bug 1 with its traceback; and a run through the engine on a disk that fills up at each
of its writes in turn (full_disk.py): exit 2 naming the file, no .tmp left, and
`--resume` from what is left equals a clean run."""

import errno
import json
import pathlib
import types

import pytest

from benchmarks.common import app_main
from benchmarks.common import engine
from benchmarks.common import full_disk
from benchmarks.common import gate
from benchmarks.common import outputs
from benchmarks.common import sample_loop
from benchmarks.common import scorecard as card_lib
from benchmarks.common.errors import InputError
from benchmarks.common.flags import CommonConfig
from proto import scorecard_pb2


def _exit(main, capsys):
    with pytest.raises(SystemExit) as raised:
        app_main.guard(main)(["prog"])
    return raised.value.code, capsys.readouterr().err


def _raising(e):
    def main(argv):
        raise e
    return main


@pytest.mark.parametrize("code,what", [(errno.ENOSPC, "no space left on device (ENOSPC)"),
                                       (errno.EDQUOT, "disk quota exceeded (EDQUOT)"),
                                       (errno.EROFS, "read-only file system (EROFS)")])
def test_the_environment_is_one_line_and_exit_2(capsys, code, what):
    e = OSError(code, "strerror", "/out/per_sample_scores.jsonl")
    status, err = _exit(_raising(e), capsys)
    assert status == 2
    assert err.startswith(f"error: /out/per_sample_scores.jsonl: could not be written: {what}")
    assert err.count("\n") == 1 and "not a worldeval bug" in err and "--resume" in err


def test_a_full_disk_that_names_no_file_names_what_it_can(capsys):
    status, err = _exit(_raising(full_disk.enospc()), capsys)
    assert status == 2 and err.startswith("error: a file being written: could not be written")


def test_bad_input_is_2_and_a_bug_is_1_with_its_traceback(capsys):
    assert _exit(_raising(InputError("/x", "a clip", "nothing")), capsys) == (
        2, "error: /x: expected a clip, found nothing\n")
    status, err = _exit(_raising(FileNotFoundError(errno.ENOENT, "gone", "/y")), capsys)
    assert status == 1 and "Traceback" in err and "worldeval bug" in err


# A toy benchmark through the engine: six samples, one metric, no model.
IDS = [f"s{i}" for i in range(6)]
SPEC = card_lib.MetricSpec("m", "M", "0-1", higher_is_better=True)


def _score(item, loaded):
    return scorecard_pb2.SampleScore(sample_id=item, split="toy", metrics={"m": loaded / 10})


def _evaluate(ctx, config):
    items = ctx.select(IDS, lambda i: ("toy", i))
    outcome = ctx.evaluate(engine.Pass(
        label="toy", items=items, ref=lambda i: sample_loop.SampleRef(i, "toy"),
        load=lambda i: int(i[1:]), score=_score, settings={"toy": 1}, prefetch=False))
    return engine.Evaluation(
        metrics=[card_lib.aggregate(SPEC, outcome.samples, scorecard_pb2.Backend(name="toy"))],
        samples=list(outcome.samples), expected=items, found=items, expected_source="toy",
        facts=gate.Facts(not_official_data=["toy samples"]), inputs={},
        raw_table_metrics=["m"])


TOY = engine.Benchmark("toy", "toy/1", _evaluate, table=None)


def _run(out: pathlib.Path, resume: bool = False):
    config = types.SimpleNamespace(
        common=CommonConfig(output_dir=str(out), resume=resume), output_dir=str(out),
        model_name="toy-model", recorded_flags={}, bundled_sample=False)

    def main(argv):
        engine.run(TOY, config)
        return 0

    return main


def _untimed(out: pathlib.Path, name: str):
    rows = [json.loads(line) for line in (out / name).read_text().splitlines()]
    for row in rows:
        row.pop("seconds", None)
    return rows


def _results(out: pathlib.Path):
    card = json.loads((out / outputs.SCORECARD).read_text())
    return ([(m["id"], m.get("value"), m.get("sample_count")) for m in card["metrics"]],
            card["coverage"], card["verification"], _untimed(out, outputs.PER_SAMPLE),
            (out / outputs.RAW_TABLE).read_text())


def test_a_full_disk_at_each_write_is_exit_2_and_resume_equals_a_clean_run(
        tmp_path, capsys):
    clean = tmp_path / "clean"
    with pytest.MonkeyPatch.context() as mp:
        counted = full_disk.install(mp)
        assert app_main.guard(_run(clean))(["prog"]) == 0
    clean_results = _results(clean)
    assert len(clean_results[3]) == len(IDS)
    # 6 store lines, their in-order rewrite (6), per_sample_scores.jsonl (6),
    # raw_metric_table.jsonl (6), scorecard.json (1)
    assert counted.writes == 25, counted.writes
    named = set()
    for fail_at in range(1, counted.writes + 1):
        out = tmp_path / f"full_at_{fail_at}"
        capsys.readouterr()
        with pytest.MonkeyPatch.context() as mp:
            full_disk.install(mp, fail_at)
            status, err = _exit(_run(out), capsys)
        assert status == 2, (fail_at, err)
        assert err.startswith(f"error: {out}/") and err.count("\n") == 1, (fail_at, err)
        named.add(err[len(f"error: {out}/"):].split(":")[0])  # the file it was writing
        assert not [p for p in out.rglob("*.tmp")], fail_at
        assert not (out / outputs.SCORECARD).exists(), fail_at
        assert app_main.guard(_run(out, resume=True))(["prog"]) == 0, fail_at
        assert _results(out) == clean_results, fail_at
    assert named == {outputs.PER_SAMPLE, outputs.RAW_TABLE, outputs.SCORECARD}
