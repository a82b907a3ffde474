"""VMBench's official PAS and TCS end to end through the real loaders: tiny random models
of the official architectures in the official file formats (benchmarks/vmbench/tiny_checkpoints.py),
resolved from a --checkpoint_dir, on generated clips; results.json and scores.csv carry
official backends' values only; a corrected quirk is named and kept out of them; missing
checkpoints make both metrics unavailable with their fetch commands."""

import dataclasses
import json
import math

import pytest

from benchmarks.common import family_contract as contract
from benchmarks.common.flags import CommonConfig
from benchmarks.vmbench import official_models
from benchmarks.vmbench import runner
from benchmarks.vmbench import tiny_checkpoints as tiny
from tools.fixtures import vmbench_clips

PAS, TCS = "perceptible_amplitude_score", "temporal_coherence_score"
CAS, MSS = "commonsense_adherence_score", "motion_smoothness_score"
OIS = "object_integrity_score"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("vmbench")
    videos = root / "videos"
    videos.mkdir()
    prompts = []
    for index, step in (("0001", 4), ("0002", 0)):
        frames, _ = vmbench_clips.square_clip(step, frames=9)
        vmbench_clips.write_mp4(videos / f"{index}.mp4", frames, fps=4)
        prompts.append({"prompt": "a square moves", "subject": "a red square",
                        "subject_noun": "sphere", "place": "room", "action": "moves",
                        "index": index})
    (root / "prompts.json").write_text(json.dumps(prompts))
    ckpt = tiny.write_all(root / "ckpt")
    return root, ckpt


def _config(root, ckpt, out, **kw):
    common = CommonConfig(output_dir=str(out), device="cpu", checkpoint_dir=str(ckpt),
                          offline=True, metrics=("pas", "tcs"))
    return runner.VmbenchConfig(common=common, video_dir=root / "videos",
                                prompt_manifest=root / "prompts.json", output_dir=out,
                                model_name="tiny", pas_backend="official",
                                architectures=tiny.ARCHITECTURES, **kw)


@pytest.fixture(scope="module")
def official_run(inputs, tmp_path_factory):
    root, ckpt = inputs
    out = tmp_path_factory.mktemp("out")
    with pytest.MonkeyPatch.context() as mp, tiny.pins_cleared(mp), \
            contract.enforced(runner.BENCHMARK) as checked:
        config = _config(root, ckpt, out)
        card = runner.run(dataclasses.replace(config, common=dataclasses.replace(
            config.common, metrics=("pas", "ois", "tcs", "cas", "mss"))))
    CHECKED.update(checked)
    return card, out


CHECKED = {}  # family name -> results the family contract checked in official_run


def test_every_official_family_keeps_the_contract_on_every_video(official_run):
    card, _ = official_run
    assert set(CHECKED) == {"pas", "ois", "tcs", "cas", "mss"}, CHECKED
    assert set(CHECKED.values()) == {card.coverage.evaluated}, CHECKED


def test_pas_and_tcs_run_on_the_official_backends(official_run):
    card, out = official_run
    metrics = {m.id: m for m in card.metrics}
    for metric_id, name in ((PAS, "groundingdino-swinb + sam-v1-vit-h + cotracker3-offline"),
                            (TCS, "groundingdino-swinb + sam2.1-hiera-large + "
                                  "cotracker3-offline")):
        m = metrics[metric_id]
        assert m.available, m.unavailable_reason
        assert m.backend.name == name and m.backend.official
        assert m.backend.parity.verified, m.backend.parity.scope  # every part has its rows
        assert not m.backend.digest_pinned  # GD-ML/VMBench files have no pinned sha256
        files = {r.path.rsplit("/", 1)[-1] for r in card.provenance.checkpoints
                 if r.metric_id == metric_id}
        assert {"groundingdino_swinb_cogcoor.pth", "scaled_offline.pth"} <= files
    results = json.loads((out / "results.json").read_text())
    assert [sorted(k for k in e if k.endswith("_score")) for e in results] == [
        sorted([PAS, OIS, TCS, CAS, MSS])] * 2
    for entry in results:
        assert math.isfinite(entry[PAS]) and entry[PAS] >= 0 and 0 <= entry[TCS] <= 1
        assert 0 <= entry[CAS] <= 1 and 0 <= entry[MSS] <= 1 and 0 <= entry[OIS] <= 1
    assert "temporal_coherence_score" in (out / "scores.csv").read_text()
    samples = [json.loads(l) for l in (out / "per_sample_scores.jsonl").read_text().splitlines()]
    assert all(not s.get("error") for s in samples)
    assert {s["diagnostics"]["tcs_keyframe_step"] for s in samples} == {"3.0"}  # int(4) - 1
    # the tiny detector finds things, so SAM, SAM 2.1 and the event tracking all ran
    print({s["sample_id"]: {k: v for k, v in s["diagnostics"].items()
                            if k.startswith(("pas_", "tcs_"))} for s in samples})
    assert all(float(s["diagnostics"]["pas_detections"]) > 0 for s in samples)
    assert all(float(s["diagnostics"]["tcs_objects"]) > 0 for s in samples)


def test_a_corrected_quirk_is_named_and_kept_out_of_the_official_files(inputs, tmp_path):
    root, ckpt = inputs
    quirks = official_models.Quirks(sam_boxes="corrected")
    with pytest.MonkeyPatch.context() as mp, tiny.pins_cleared(mp):
        config = _config(root, ckpt, tmp_path)
        config = dataclasses.replace(config, quirks=quirks, common=dataclasses.replace(
            config.common, metrics=("pas",)))
        card = runner.run(config)
    pas = next(m for m in card.metrics if m.id == PAS)
    assert pas.available and not pas.backend.official
    assert "SAM box scaling corrected" in pas.backend.name
    assert any("corrected" in d for d in card.verification.deviations)
    results = json.loads((tmp_path / "results.json").read_text())
    assert results and all(PAS not in e for e in results)


def test_missing_checkpoints_make_both_unavailable_with_fetch_commands(inputs, tmp_path):
    root, _ = inputs
    empty = tmp_path / "none"
    empty.mkdir()
    card = runner.run(_config(root, empty, tmp_path / "out"))
    for metric_id in (PAS, TCS):
        m = next(m for m in card.metrics if m.id == metric_id)
        assert not m.available
        for needed in ("groundingdino_swinb_cogcoor.pth", "scaled_offline.pth",
                       "sam_vit_h_4b8939.pth" if metric_id == PAS else "sam2.1_hiera_large.pt"):
            assert f"{needed} (missing; fetch: huggingface-cli download" in m.unavailable_reason


def _cas_run(root, ckpt, out, **kw):
    config = _config(root, ckpt, out, **kw)
    config = dataclasses.replace(config, common=dataclasses.replace(config.common,
                                                                    metrics=("cas",)))
    return runner.run(config)


def test_cas_loads_the_checkpoint_and_equals_a_direct_computation(inputs, tmp_path):
    import numpy as np  # pylint: disable=import-outside-toplevel
    from benchmarks.vmbench import cas  # pylint: disable=import-outside-toplevel
    from metrics.video import frames as frames_lib  # pylint: disable=import-outside-toplevel
    from metrics.videomae import classifier as classifier_lib  # pylint: disable=import-outside-toplevel
    from metrics.videomae import views  # pylint: disable=import-outside-toplevel
    root, ckpt = inputs
    card = _cas_run(root, ckpt, tmp_path)
    m = next(m for m in card.metrics if m.id == CAS)
    assert m.available, m.unavailable_reason
    assert m.backend.name == classifier_lib.BACKEND_NAME == cas.BACKEND_NAME
    assert m.backend.official and m.backend.parity.verified
    refs = [r for r in card.provenance.checkpoints if r.metric_id == CAS]
    assert len(refs) == 1 and refs[0].path.endswith("vit_g_vmbench.pt")
    assert len(refs[0].sha256) == 64
    results = json.loads((tmp_path / "results.json").read_text())
    model = classifier_lib.load_videomae_classifier(
        ckpt / "vmbench_vit_g_cas" / "vit_g_vmbench.pt", config=tiny.VIDEOMAE)
    for entry in results:
        frames = frames_lib.load_frames(root / "videos" / f"{entry['index']}.mp4")
        probs = model.probabilities(views.views(np.ascontiguousarray(frames[..., ::-1])))
        want = float(probs.mean(axis=0) @ np.array(cas.WEIGHTS))
        assert entry[CAS] == pytest.approx(want, rel=1e-9, abs=1e-12)
        assert 0 <= entry[CAS] <= 1
    assert len({e[CAS] for e in results}) == 2  # the two clips score differently
    assert CAS in (tmp_path / "scores.csv").read_text()


def test_cas_as_shipped_is_named_not_official_and_needs_no_checkpoint(inputs, tmp_path):
    from benchmarks.vmbench import cas  # pylint: disable=import-outside-toplevel
    root, _ = inputs
    empty = tmp_path / "none"
    empty.mkdir()
    card = _cas_run(root, empty, tmp_path / "out", cas_init=cas.AS_SHIPPED)
    m = next(m for m in card.metrics if m.id == CAS)
    assert m.available and not m.backend.official
    assert m.backend.name == "videomae-v2-vit-g14-5cls (random init, as shipped)"
    assert "never leaderboard-eligible" in m.backend.note
    assert not [r for r in card.provenance.checkpoints if r.metric_id == CAS]
    assert not card.verification.leaderboard_eligible
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results and all(CAS not in e for e in results)


def test_missing_cas_checkpoint_is_unavailable_with_its_fetch_command(inputs, tmp_path):
    root, _ = inputs
    empty = tmp_path / "none"
    empty.mkdir()
    card = _cas_run(root, empty, tmp_path / "out")
    m = next(m for m in card.metrics if m.id == CAS)
    assert not m.available
    assert ("vit_g_vmbench.pt (missing; fetch: huggingface-cli download GD-ML/VMBench "
            "vit_g_vmbench.pt") in m.unavailable_reason


def test_all_five_in_one_pass_and_the_official_total(official_run):
    card, out = official_run
    metrics = {m.id: m for m in card.metrics}
    for metric_id in (PAS, OIS, TCS, CAS, MSS):
        assert metrics[metric_id].available and metrics[metric_id].backend.official
    assert metrics[OIS].backend.name == "rtmdet-m + rtmpose-m"
    assert metrics[OIS].backend.parity.verified, metrics[OIS].backend.parity.scope
    assert metrics["total_score_corrected"].available  # all five computed
    csv_rows = (out / "scores.csv").read_text().splitlines()
    assert csv_rows[0] == "Metric,Average Score" and csv_rows[-1].startswith("Total Score,")
    assert len(csv_rows) == 6  # OIS, TCS, MSS, CAS + Total: PAS dropped by the key typo
    samples = [json.loads(l) for l in (out / "per_sample_scores.jsonl").read_text().splitlines()]
    for s in samples:
        assert float(s["diagnostics"]["ois_person_frames"]) >= 0
        timed = {k.split(":", 1)[1] for k in s["diagnostics"] if k.startswith("seconds:")}
        assert timed == {"pas", "ois", "tcs", "cas", "mss"}  # one decode, five families


def test_mss_reads_the_official_pas_of_the_same_video(official_run):
    card, out = official_run
    m = next(m for m in card.metrics if m.id == MSS)
    assert m.available, m.unavailable_reason
    assert m.backend.name == "q-align-one-align" and m.backend.official
    assert "float32 (official: float16 on CUDA)" in m.backend.note
    assert m.backend.parity.verified, m.backend.parity.scope
    samples = [json.loads(l) for l in (out / "per_sample_scores.jsonl").read_text().splitlines()]
    assert all(MSS in s["metrics"] for s in samples)


def test_mss_without_pas_is_unavailable_and_on_lk_pas_not_official(inputs, tmp_path):
    root, ckpt = inputs
    config = _config(root, ckpt, tmp_path / "alone")
    alone = runner.run(dataclasses.replace(config, common=dataclasses.replace(
        config.common, metrics=("mss",))))
    m = next(m for m in alone.metrics if m.id == MSS)
    assert not m.available
    assert "MSS needs PAS of the same video" in m.unavailable_reason
    assert "add pas to --metrics" in m.unavailable_reason
    config = _config(root, ckpt, tmp_path / "lk")
    on_lk = runner.run(dataclasses.replace(config, pas_backend="lk", common=dataclasses.replace(
        config.common, metrics=("pas", "mss"))))
    m = next(m for m in on_lk.metrics if m.id == MSS)
    assert m.available and not m.backend.official
    assert m.backend.name == "q-align-one-align (thresholds from PAS opencv-lk-grid)"
    results = json.loads((tmp_path / "lk" / "results.json").read_text())
    assert results and all(MSS not in e and PAS not in e for e in results)
