"""run_vqa end to end over fixture clips with the loopback judge: scores, files, resume,
and failing closed."""

import collections
import csv
import json
import os
import types

import numpy as np
import pytest

from benchmarks.common import shards
from benchmarks.common.flags import CommonConfig
from benchmarks.memobench.vqa import judges
from benchmarks.memobench.vqa import step
from metrics.judges import loopback_server as ls
from metrics.judges.loopback_server import GENERATE, Reply
from tools.fixtures import fixture_io
from tools.fixtures import memobench_vqa_bank as fixture

KEY = "vqa-e2e-key-41b2"
CASES = [fixture.Case("Barnyard", "1", "Barnyard_001"),
         fixture.Case("Zen_Garden", "2", "ZenGarden_002"),
         fixture.Case("Havana", "3", "Havana_003"),       # no generated clip
         fixture.Case("CityPark", "6", "CityPark_006")]
DIMS = {"Instruction Following": "InstructionFollowing",
        "Object and Background": "ObjectBackground",
        "Continuity of Memory": "ContinuityOfMemory", "Physics Adherence": "PhysicsAdherence"}


def _write_clip(folder, n):
    for i in range(n):
        fixture_io.write_png(folder / f"{i:05d}.png", np.full((24, 32, 3), 9 * i, np.uint8))


@pytest.fixture
def world(tmp_path, monkeypatch):
    refused = ls.guard_loopback(monkeypatch)
    qdir = tmp_path / "MemoBench" / "data" / "vqa_questions"
    banks = fixture.write_vqa_inputs(qdir, CASES, seed=11)
    gen = tmp_path / "output" / "model" / "Synthetic"
    _write_clip(gen / "Barnyard" / "Barnyard_001" / "frames", 6)
    _write_clip(gen / "ZenGarden" / "ZenGarden_002" / "frames", 5)
    _write_clip(gen / "CityPark_006" / "frames", 4)  # the flat layout
    return types.SimpleNamespace(banks=banks, gen=gen, data=tmp_path / "MemoBench",
                                 out=tmp_path / "results", refused=refused)


def _settings(server, **kwargs):
    return judges.JudgeSettings(base_url=server.base_url, max_attempts=2,
                                initial_backoff_s=0.0, poll_interval_s=0.0, **kwargs)


def _run(world, server, resume=False, **kwargs):
    return step.run_vqa(world.gen, world.out, "MyModel", _settings(server, **kwargs),
                        data_root=world.data, resume=resume, env={"GEMINI_API_KEY": KEY},
                        sleep=lambda s: None)


def _all_yes_scores(bank):
    """Every answer "Yes": a question passes iff it is Positive."""
    counts = collections.Counter(q["Dimension"] for q in bank)
    positives = collections.Counter(q["Dimension"] for q in bank
                                    if q["Dimension Polarity"] == "Positive")
    return {dim: round(positives[dim] / counts[dim], 4) for dim in counts}


def _script_first_run(server, world):
    barnyard = world.banks["Barnyard-1"]
    right = {q["ID"]: "Yes" if q["Dimension Polarity"] == "Positive" else "no"
             for q in barnyard}
    server.script(GENERATE,
                  Reply(text=fixture.judge_answer(barnyard, right, drop={barnyard[0]["ID"]})),
                  Reply(text=fixture.judge_answer(
                      world.banks["Zen_Garden-2"],
                      {q["ID"]: "Yes" for q in world.banks["Zen_Garden-2"]},
                      fenced=False, verdict_from_polarity=False)),
                  Reply(text="I am sorry, I cannot evaluate this video."))


def test_end_to_end_scores_files_and_resume(world):
    with ls.LoopbackJudgeServer() as server:
        _script_first_run(server, world)
        result = _run(world, server)
        prompts = [r.json()["contents"][0]["parts"][1]["text"]
                   for r in server.requests_to(":generateContent")]
    assert world.refused == []
    assert len(prompts) == 3 and json.dumps(world.banks["Barnyard-1"]) in prompts[0]
    assert result.expected_ids == ["Barnyard_001", "ZenGarden_002", "Havana_003",
                                   "CityPark_006"]
    assert result.found_ids == ["Barnyard_001", "ZenGarden_002", "CityPark_006"]
    barnyard, zen, citypark = result.samples
    # Right answers everywhere, one question dropped: 1.0 in every dimension.
    assert dict(barnyard.metrics) == {m: 1.0 for m in DIMS.values()}
    assert barnyard.diagnostics["vqa_dropped"] == "1"
    assert barnyard.diagnostics["vqa_fps"] == "16" and barnyard.diagnostics["vqa_frames"] == "6"
    # All "Yes" with flipped Verdicts: the pass rate is the share of Positive questions.
    zen_expected = _all_yes_scores(world.banks["Zen_Garden-2"])
    assert dict(zen.metrics) == {DIMS[d]: v for d, v in zen_expected.items()}
    assert (zen.sample_id, zen.scene, zen.diagnostics["vqa_clip_id"]) == (
        "ZenGarden_002", "ZenGarden", "Zen_Garden-2")
    assert "cannot be scored" in citypark.error and not citypark.metrics
    assert "cannot evaluate" in citypark.diagnostics["vqa_raw_answer"]

    results = world.out / "vqa_results" / "MyModel"
    assert sorted(p.name for p in results.iterdir()) == [
        "Barnyard-1.csv", "Zen_Garden-2.csv", "overall.csv"]
    with open(results / "Zen_Garden-2.csv", newline="") as f:
        (row,) = list(csv.DictReader(f))
    assert (row["scene"], row["video_id"], row["folder"]) == ("Zen_Garden", "2", "ZenGarden_002")
    assert json.loads(row["score"]) == zen_expected
    with open(results / "overall.csv", newline="") as f:
        overall = list(csv.DictReader(f))
    assert [(r["scene"], r["video_id"]) for r in overall] == [("Barnyard", "1"),
                                                              ("Zen_Garden", "2")]

    by_id = {m.id: m for m in result.metrics}
    for dim, metric in DIMS.items():
        assert by_id[metric].available and by_id[metric].sample_count == 2
        assert by_id[metric].value == pytest.approx((1.0 + zen_expected[dim]) / 2 * 100)
        assert by_id[metric].backend.name == "gemini-files-api@loopback"
        assert not by_id[metric].backend.official
    assert result.deviations and "not the official" in result.deviations[0]
    assert any("Havana-3" in n for n in result.notes)
    store_text = (world.out / step.PER_SAMPLE).read_text()
    assert len(store_text.splitlines()) == 3 and KEY not in store_text

    # Resume: the two scored clips are reused, only the failed one is asked again.
    (results / "Barnyard-1.csv").unlink()
    with ls.LoopbackJudgeServer() as server:
        bank = world.banks["CityPark-6"]
        server.script(GENERATE, Reply(text=fixture.judge_answer(bank, {})))
        resumed = _run(world, server, resume=True)
        assert len(server.requests_to(":generateContent")) == 1
    assert [s.error for s in resumed.samples] == ["", "", ""]
    assert dict(resumed.samples[0].metrics) == dict(barnyard.metrics)
    assert (results / "Barnyard-1.csv").is_file()  # rewritten from the stored sample
    assert any("resumed: 2" in n for n in resumed.notes)
    assert len(list(csv.DictReader(open(results / "overall.csv", newline="")))) == 3

    # Other settings (another model id): nothing is reused.
    with ls.LoopbackJudgeServer(default_text="not json") as server:
        again = _run(world, server, resume=True, model_id="gemini-3-flash-preview")
        assert len(server.requests_to(":generateContent")) == 3
    assert all(s.error for s in again.samples)
    # A clip that fails now leaves no score file from the earlier run behind.
    assert sorted(p.name for p in results.iterdir()) == []
    assert all(not m.available and m.unavailable_reason.startswith(
        "no VQA clip was scored: 3 of 4 failed (first: VQA Barnyard-1: the judge's answer "
        "cannot be scored") and m.unavailable_reason.endswith("no generated clip for 1")
        for m in again.metrics)


def test_resume_reasks_exactly_the_clips_whose_inputs_changed(world):
    with ls.LoopbackJudgeServer() as server:
        _script_first_run(server, world)
        first = _run(world, server)
    assert [bool(s.error) for s in first.samples] == [False, False, True]
    bank = next((world.data / "data" / "vqa_questions").rglob("Barnyard-1*"))
    stat = bank.stat()
    os.utime(bank, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # the bank rewritten
    with ls.LoopbackJudgeServer(default_text="not json") as server:
        again = _run(world, server, resume=True)
        # Barnyard (its bank changed) and CityPark (it failed) are asked; ZenGarden is not.
        assert len(server.requests_to(":generateContent")) == 2
    assert dict(again.samples[1].metrics) == dict(first.samples[1].metrics)
    assert again.samples[0].error and again.samples[2].error
    frame = world.gen / "ZenGarden" / "ZenGarden_002" / "frames" / "00000.png"
    fixture_io.write_png(frame, np.full((24, 32, 3), 200, np.uint8))  # a generated frame
    with ls.LoopbackJudgeServer(default_text="not json") as server:
        _run(world, server, resume=True)
        assert len(server.requests_to(":generateContent")) == 3


def test_shards_judge_disjoint_clips_that_together_are_all(world):
    """--num_shards: each shard asks the judge about its own clips only (a merge of
    shards that each judged every clip would refuse the duplicated samples)."""
    judged, expected = [], []
    for i in range(2):
        common = CommonConfig(num_shards=2, shard_index=i)
        with ls.LoopbackJudgeServer(default_text="not json") as server:
            result = step.run_vqa(
                world.gen, world.out / str(i), "MyModel", _settings(server),
                data_root=world.data, env={"GEMINI_API_KEY": KEY}, sleep=lambda s: None,
                select=lambda cases, key, c=common: shards.select(cases, key, c))
            asked = len(server.requests_to(":generateContent"))
        ids = [s.sample_id for s in result.samples]
        assert asked == len(ids)   # one request per clip of this shard
        judged += ids
        expected += result.expected_ids
    assert sorted(judged) == ["Barnyard_001", "CityPark_006", "ZenGarden_002"]
    assert sorted(expected) == ["Barnyard_001", "CityPark_006", "Havana_003", "ZenGarden_002"]


def test_dimension_without_answers_is_unavailable_for_the_clip(world):
    bank = world.banks["Barnyard-1"]
    no_physics = {q["ID"] for q in bank if q["Dimension"] == "Physics Adherence"}
    with ls.LoopbackJudgeServer(default_text="[]") as server:
        server.script(GENERATE, Reply(text=fixture.judge_answer(bank, {}, drop=no_physics)))
        result = _run(world, server)
    barnyard = result.samples[0]
    assert "PhysicsAdherence" not in barnyard.metrics
    assert "Physics Adherence" in barnyard.unavailable["PhysicsAdherence"]
    assert set(barnyard.metrics) == {"InstructionFollowing", "ObjectBackground",
                                     "ContinuityOfMemory"}


def test_judge_errors_after_retries_are_error_rows(world):
    with ls.LoopbackJudgeServer(default_text="[]") as server:
        server.script(GENERATE, Reply(status=500), Reply(status=503))
        result = _run(world, server)
    assert "JudgeHttpError" in result.samples[0].error
    assert result.samples[0].diagnostics["vqa_attempts"] == "2"
    assert not (world.out / "vqa_results" / "MyModel" / "Barnyard-1.csv").exists()


def test_openai_compatible_judge_end_to_end(world):
    yes = {q["ID"]: "Yes" for bank in world.banks.values() for q in bank}
    with ls.LoopbackJudgeServer() as server:
        for clip_id in ("Barnyard-1", "Zen_Garden-2", "CityPark-6"):
            server.script(GENERATE, Reply(text=fixture.judge_answer(world.banks[clip_id], yes)))
        result = step.run_vqa(world.gen, world.out, "MyModel",
                              judges.JudgeSettings(kind="openai", model_id="local-vlm",
                                                   base_url=server.base_url + "/v1"),
                              data_root=world.data, env={}, sleep=lambda s: None)
    assert [s.error for s in result.samples] == ["", "", ""]
    assert dict(result.samples[1].metrics) == {
        DIMS[d]: v for d, v in _all_yes_scores(world.banks["Zen_Garden-2"]).items()}
    assert result.backend.name == "openai-compatible" and not result.backend.official
    assert "NON-official" in result.metrics[0].backend.note
    assert world.refused == []


@pytest.mark.parametrize("settings, env, match", [
    (judges.JudgeSettings(), {}, "GEMINI_API_KEY"),
    (judges.JudgeSettings(), {"GEMINI_API_KEY": "  "}, "GEMINI_API_KEY"),
    (judges.JudgeSettings(kind="openai", model_id="m"), {}, "no endpoint"),
    (judges.JudgeSettings(kind="claude"), {}, "unknown judge kind"),
])
def test_fail_closed_without_judge(world, settings, env, match):
    result = step.run_vqa(world.gen, world.out, "MyModel", settings, data_root=world.data,
                          env=env)
    assert result.samples == [] and len(result.expected_ids) == 4
    assert [m.id for m in result.metrics] == list(DIMS.values())
    for metric in result.metrics:
        assert not metric.available and not metric.HasField("value")
        assert match in metric.unavailable_reason and "fix:" in metric.unavailable_reason
    assert not world.out.exists()  # nothing written


def test_official_backend_label_without_running(world):
    official = judges.settings_backend(judges.JudgeSettings())
    assert (official.name, official.official, official.checkpoint_id) == (
        "gemini-files-api", True, "gemini-3.1-pro-preview")
    result = step.run_vqa(world.gen, world.out, "MyModel", judges.JudgeSettings(),
                          data_root=world.data, env={})
    assert result.metrics[0].backend.official  # the configuration asked for was official


def test_fail_closed_without_vqa_data(world, tmp_path):
    result = step.run_vqa(world.gen, world.out, "MyModel", judges.JudgeSettings(),
                          data_root=tmp_path / "nowhere", env={"GEMINI_API_KEY": KEY})
    assert all("VQA inputs unusable" in m.unavailable_reason for m in result.metrics)
    result = step.run_vqa(world.gen / "absent", world.out, "MyModel", judges.JudgeSettings(),
                          data_root=world.data, env={"GEMINI_API_KEY": KEY})
    assert all("no such directory" in m.unavailable_reason for m in result.metrics)
    assert world.refused == []
