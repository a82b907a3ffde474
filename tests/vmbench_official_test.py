"""VMBench's official PAS and TCS end to end through the real loaders: tiny random models
of the official architectures in the official file formats (tests/vmbench_tiny_checkpoints),
resolved from a --checkpoint_dir, on generated clips; results.json and scores.csv carry
official backends' values only; a corrected quirk is named and kept out of them; missing
checkpoints make both metrics unavailable with their fetch commands."""

import dataclasses
import json
import math

import pytest

from benchmarks.common.flags import CommonConfig
from benchmarks.vmbench import official_models
from benchmarks.vmbench import runner
from tests import vmbench_tiny_checkpoints as tiny
from tools.fixtures import vmbench_clips

PAS, TCS = "perceptible_amplitude_score", "temporal_coherence_score"


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
    with pytest.MonkeyPatch.context() as mp, tiny.pins_cleared(mp):
        card = runner.run(_config(root, ckpt, out))
    return card, out


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
    results = json.loads((out / "results.json").read_text())
    assert [sorted(k for k in e if k.endswith("_score")) for e in results] == [[PAS, TCS]] * 2
    for entry in results:
        assert math.isfinite(entry[PAS]) and entry[PAS] >= 0 and 0 <= entry[TCS] <= 1
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
