"""End-to-end tests of run_ors on the MemoBench-shaped fixture with a tiny random SAM-3.

The model is saved by the test and found through the real resolver (--checkpoint_dir,
offline). Each clip's row is checked against reference_rows.py, written independently
from compute_ors.py.
"""

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before huggingface_hub reads it at import
# pylint: disable=wrong-import-position

import json
import shutil

import numpy as np
import pytest

from benchmarks.common import sample_loop
from benchmarks.memobench import generated
from benchmarks.memobench.ors import metadata
from benchmarks.memobench.ors import reference_rows
from benchmarks.memobench.ors import step
from benchmarks.memobench.step1.prepare import Step1Settings
from metrics.segmentation import sam3
from metrics.segmentation import tiny_sam3
from metrics.testing import damaged_png
from tools.fixtures import memobench_fixture
from tools.fixtures import memobench_ors_metadata

COLUMNS = ["clip_id", "data_type", "scene", "n_gen", "r_start", "ors", "detection_rate",
           "mean_confidence", "n_r_frames", "n_detected"]
CLIP_IDS = ["Barnyard_001", "Barnyard_002", "CityPark_001", "001"]


@pytest.fixture(scope="module")
def fixture(tmp_path_factory):
    root = tmp_path_factory.mktemp("memobench")
    built = memobench_fixture.build_memobench_fixture(root, seed=0)
    memobench_ors_metadata.write_ors_metadata(built)
    ckpt = tmp_path_factory.mktemp("ckpt")
    tiny_sam3.save_tiny_sam3(ckpt)
    model_dir = built["generated_dir"] / built["model"]
    clips = (generated.discover_synthetic(model_dir / "Synthetic")
             + generated.discover_real(model_dir / "Real"))
    settings = Step1Settings(device="cpu", checkpoint_dir=str(ckpt), offline=True)
    return built, clips, settings, ckpt


@pytest.fixture(scope="module")
def first_run(fixture, tmp_path_factory):
    built, clips, settings, _ = fixture
    out = tmp_path_factory.mktemp("out")
    return out, step.run_ors(clips, built["data_dir"], settings, out)


def _detector(ckpt):
    return sam3.load_sam3(ckpt / "sam3", "cpu")


def test_csv_rows_match_the_reference(fixture, first_run):
    built, clips, _, ckpt = fixture
    out, outcome = first_run
    columns, rows = reference_rows.read_csv(out / "ors_scores.csv")
    assert columns == COLUMNS
    assert [r["clip_id"] for r in rows] == CLIP_IDS
    detector = _detector(ckpt)
    sources = {c.clip_id: c.source for c in clips}
    for row in rows:
        assert row == reference_rows.reference_row(built, detector, row["clip_id"], sources[row["clip_id"]])
    # The tiny model's verdicts vary frame to frame, so frame choice and colour order matter.
    assert 0 < sum(int(r["n_detected"]) for r in rows) < sum(int(r["n_r_frames"]) for r in rows)
    assert (out / "ors_scores.csv").read_bytes().startswith(
        b"clip_id,data_type,scene,n_gen,r_start,ors,detection_rate,mean_confidence,"
        b"n_r_frames,n_detected\r\n")


def test_samples_and_metric(first_run):
    out, outcome = first_run
    assert [s.sample_id for s in outcome.samples] == CLIP_IDS
    assert not any(s.error for s in outcome.samples)
    assert outcome.expected_ids == ["synthetic/Barnyard_001", "synthetic/Barnyard_002",
                                    "synthetic/CityPark_001", "real/001"]
    _, rows = reference_rows.read_csv(out / "ors_scores.csv")
    for sample, row in zip(outcome.samples, rows):
        assert sample.metrics["ORS"] == float(row["ors"])
        assert sample.diagnostics["ors:r_start"] == row["r_start"]
        per_frame = json.loads(sample.diagnostics["ors:frames"])
        assert len(per_frame) == int(row["n_r_frames"])
        assert sum(isinstance(v, float) for v in per_frame) == int(row["n_detected"])
    metric = outcome.metric
    assert metric.available and metric.id == "ORS" and metric.sample_count == 4
    assert metric.value == pytest.approx(100 * np.mean([float(r["ors"]) for r in rows]), abs=1e-9)
    assert (metric.backend.name, metric.backend.checkpoint_id) == ("sam3-transformers",
                                                                   "facebook/sam3")
    assert outcome.checkpoints[0].id == "facebook/sam3" and len(outcome.checkpoints[0].sha256) == 64
    assert (out / "ors_per_sample_scores.jsonl").is_file()


def test_resume_reuses_scored_clips_and_appends_the_rest(fixture, first_run, tmp_path,
                                                         monkeypatch):
    built, clips, settings, _ = fixture
    out, _ = first_run
    work = tmp_path / "out"
    shutil.copytree(out, work)
    csv_bytes = (work / "ors_scores.csv").read_bytes()

    def no_load(*args, **kwargs):
        raise AssertionError("SAM-3 was loaded although every clip was already scored")

    monkeypatch.setattr(sam3, "load_sam3", no_load)
    again = step.run_ors(clips, built["data_dir"], settings, work, resume=True)
    assert (work / "ors_scores.csv").read_bytes() == csv_bytes
    assert [s.metrics["ORS"] for s in again.samples] == [
        s.metrics["ORS"] for s in first_run[1].samples]
    monkeypatch.undo()

    # A run killed before its last clip: the store and the CSV lack it.
    jsonl = work / "ors_per_sample_scores.jsonl"
    jsonl.write_text("".join(jsonl.read_text().splitlines(keepends=True)[:-1]))
    lines = csv_bytes.split(b"\r\n")
    (work / "ors_scores.csv").write_bytes(b"\r\n".join(lines[:-2] + [b""]))
    resumed = step.run_ors(clips, built["data_dir"], settings, work, resume=True)
    assert (work / "ors_scores.csv").read_bytes() == csv_bytes
    assert [s.sample_id for s in resumed.samples] == CLIP_IDS

    fresh = step.run_ors(clips[:1], built["data_dir"], settings, work, resume=False)
    _, rows = reference_rows.read_csv(work / "ors_scores.csv")
    assert [r["clip_id"] for r in rows] == ["Barnyard_001"] and len(fresh.samples) == 1


def test_changed_metadata_invalidates_resumed_clips(fixture, first_run, tmp_path):
    built, clips, settings, _ = fixture
    work = tmp_path / "out"
    shutil.copytree(first_run[0], work)
    meta = tmp_path / "meta"
    shutil.copytree(built["data_dir"] / "sam3_metadata", meta)
    real = meta / "real_metadata.csv"
    real.write_text(real.read_text().replace(",a red ball,", ",a blue ball,"))
    again = step.run_ors(clips[-1:], built["data_dir"], settings, work, resume=True,
                         metadata_dir=meta)
    assert again.samples[0].diagnostics["ors:prompt"] == "a blue ball"
    _, rows = reference_rows.read_csv(work / "ors_scores.csv")
    assert [r["clip_id"] for r in rows] == ["001"]


def test_resume_recomputes_exactly_the_clip_whose_gt_frame_count_changed(
        fixture, first_run, tmp_path, monkeypatch):
    built, clips, settings, _ = fixture
    work = tmp_path / "out"
    shutil.copytree(first_run[0], work)
    data = tmp_path / "data"  # another data root, same files: nothing to recompute
    shutil.copytree(built["data_dir"], data)
    scored = []
    real_score = step._scored_sample  # pylint: disable=protected-access

    def counting(item, detector):
        scored.append(item.clip.clip_id)
        return real_score(item, detector)

    monkeypatch.setattr(step, "_scored_sample", counting)
    step.run_ors(clips, data, settings, work, resume=True)
    assert scored == []
    intrinsics = data / "Synthetic_processed" / "Barnyard" / "Barnyard_002" / "2" / "intrinsics.npy"
    if not intrinsics.is_file():
        intrinsics = intrinsics.parent.parent / "intrinsics.npy"
    rows = np.load(intrinsics)
    np.save(intrinsics, rows[: len(rows) // 2])  # the GT is half as long: R moves
    again = step.run_ors(clips, data, settings, work, resume=True)
    assert scored == ["Barnyard_002"]
    by_id = {s.sample_id: s for s in again.samples}
    assert by_id["Barnyard_002"].diagnostics["ors:gt_frames"] == str(len(rows) // 2)
    fresh = step.run_ors(clips, data, settings, tmp_path / "fresh")
    assert [s.metrics["ORS"] for s in again.samples] == [s.metrics["ORS"] for s in fresh.samples]
    assert (work / "ors_scores.csv").read_bytes() == (tmp_path / "fresh" / "ors_scores.csv"
                                                      ).read_bytes()


def test_unreadable_frame_counts_in_the_denominator(fixture, tmp_path):
    built, clips, settings, ckpt = fixture
    clip = next(c for c in clips if c.clip_id == "Barnyard_001")
    frames_dir = tmp_path / "Synthetic" / "Barnyard" / "Barnyard_001" / "frames"
    shutil.copytree(clip.source, frames_dir)
    last = sorted(frames_dir.iterdir())[-1]
    last.write_bytes(b"not a png")
    moved = generated.discover_synthetic(tmp_path / "Synthetic")
    outcome = step.run_ors(moved, built["data_dir"], settings, tmp_path / "out")
    _, rows = reference_rows.read_csv(tmp_path / "out" / "ors_scores.csv")
    assert rows == [reference_rows.reference_row(built, _detector(ckpt), "Barnyard_001", frames_dir)]
    sample = outcome.samples[0]
    assert sample.diagnostics["ors:unreadable_frames"] == "1"
    assert sample.diagnostics["ors:frames"].endswith("null]")
    assert int(rows[0]["n_r_frames"]) == 33 - int(rows[0]["r_start"])
    # Kept as upstream counts it, and named: a recorded warning, the number unchanged.
    assert [w for w in sample_loop.warnings_of(sample) if "cv2.imread" in w] == [
        f"{last}: not a readable image (cv2.imread gives None); counted as an R-phase "
        "frame without a detection, as compute_ors.py counts it"]


def test_a_png_opencv_refuses_is_that_clips_error_row_the_others_scored(fixture, tmp_path):
    """A PNG whose header claims 100000x100000 pixels: cv2.error in compute_ors.py; here
    the clip's error row names the file and the other clips are scored."""
    built, clips, settings, _ = fixture
    root = tmp_path / "Synthetic"
    for clip in clips[:2]:  # Barnyard_001, Barnyard_002
        shutil.copytree(clip.source, root / "Barnyard" / clip.clip_id / "frames")
    huge = sorted((root / "Barnyard" / "Barnyard_002" / "frames").iterdir())[-1]
    huge.write_bytes(damaged_png.png_claiming(100000, 100000))
    moved = generated.discover_synthetic(root)
    outcome = step.run_ors(moved, built["data_dir"], settings, tmp_path / "out")
    by_id = {s.sample_id: s for s in outcome.samples}
    assert not by_id["Barnyard_001"].error and "ORS" in by_id["Barnyard_001"].metrics
    error = by_id["Barnyard_002"].error
    assert f"{huge}: expected a readable PNG/JPEG image" in error
    assert "a PNG whose header claims 100000x100000 pixels" in error
    assert "ORS" not in by_id["Barnyard_002"].metrics
    _, rows = reference_rows.read_csv(tmp_path / "out" / "ors_scores.csv")
    assert [r["clip_id"] for r in rows] == ["Barnyard_001"]


def test_video_without_frames_scores_zero_like_upstream(fixture, tmp_path):
    built, _, settings, _ = fixture
    (tmp_path / "Synthetic").mkdir()
    (tmp_path / "Synthetic" / "Barnyard_002.mp4").write_bytes(b"not a video")
    clips = generated.discover_synthetic(tmp_path / "Synthetic")
    outcome = step.run_ors(clips, built["data_dir"], settings, tmp_path / "out")
    _, rows = reference_rows.read_csv(tmp_path / "out" / "ors_scores.csv")
    assert rows == [{"clip_id": "Barnyard_002", "data_type": "synthetic", "scene": "Barnyard",
                     "n_gen": "0", "r_start": "4", "ors": "0.0", "detection_rate": "0.0",
                     "mean_confidence": "0.0", "n_r_frames": "0", "n_detected": "0"}]
    assert "ors:note" in outcome.samples[0].diagnostics


def test_clip_without_metadata_is_a_failed_sample(fixture, tmp_path):
    built, clips, settings, _ = fixture
    meta = tmp_path / "meta"
    meta.mkdir()
    shutil.copy(built["data_dir"] / "sam3_metadata" / "real_metadata.csv", meta)
    outcome = step.run_ors(clips, built["data_dir"], settings, tmp_path / "out",
                           metadata_dir=meta)
    assert [s.sample_id for s in outcome.samples] == ["001", "Barnyard_001", "Barnyard_002",
                                                      "CityPark_001"]
    assert all("synthetic_metadata.csv" in s.error for s in outcome.samples[1:])
    assert outcome.expected_ids == ["real/001"] and outcome.metric.sample_count == 1
    _, rows = reference_rows.read_csv(tmp_path / "out" / "ors_scores.csv")
    assert [r["clip_id"] for r in rows] == ["001"]


def test_missing_weights_or_metadata_make_ors_unavailable(fixture, tmp_path, monkeypatch):
    built, clips, _, _ = fixture
    empty = Step1Settings(device="cpu", checkpoint_dir=str(tmp_path / "none"), offline=True)
    outcome = step.run_ors(clips, built["data_dir"], empty, tmp_path / "out")
    assert not outcome.metric.available and outcome.samples == []
    assert "huggingface-cli download facebook/sam3" in outcome.metric.unavailable_reason
    assert len(outcome.expected_ids) == 4
    assert not (tmp_path / "out" / "ors_scores.csv").exists()
    monkeypatch.setenv(metadata.METADATA_DIR_ENV, str(tmp_path / "nowhere"))
    outcome = step.run_ors(clips, built["data_dir"], empty, tmp_path / "out")
    assert not outcome.metric.available
    assert metadata.METADATA_DIR_ENV in outcome.metric.unavailable_reason


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
