"""MiraBench per-video model metrics on tiny random models (saved in the official file
formats and loaded through the real loaders) or recording stand-ins, against numpy
transcriptions of spec §3."""

import numpy as np
import pytest
import torch
from torchvision import transforms

from benchmarks.mirabench.model_metrics import aesthetic_quality
from benchmarks.mirabench.model_metrics import dynamic_degree
from benchmarks.mirabench.model_metrics import fvd_logits
from benchmarks.mirabench.model_metrics import imaging_quality
from benchmarks.mirabench.model_metrics import temporal_clip_consistency
from benchmarks.mirabench.model_metrics import temporal_dino_consistency
from benchmarks.mirabench.model_metrics import temporal_motion_smoothness
from benchmarks.mirabench import tiny_checkpoints
from benchmarks.mirabench.model_metrics import tracking_strength
from metrics.clip import aesthetic
from metrics.clip import tiny_clip
from metrics.clip import vision
from metrics.dino import vit
from metrics.flow import fake_flow
from metrics.iqa import musiq


def _clip(count=4, shape=(36, 60, 3), seed=0):
    return np.random.default_rng(seed).integers(0, 256, (count,) + shape, dtype=np.uint8)


def _numpy_consistency(features):
    f = np.asarray(features, np.float64)
    f = f / np.linalg.norm(f, axis=1, keepdims=True)
    pairs = [(max(0.0, f[t - 1] @ f[t]) + max(0.0, f[0] @ f[t])) / 2 for t in range(1, len(f))]
    return sum(pairs) / len(pairs)


@pytest.fixture(scope="module")
def dino(tmp_path_factory):
    path = tmp_path_factory.mktemp("dino") / "dino_vitbase16_pretrain.pth"
    tiny_checkpoints.write_dino(path, seed=3)
    return vit.load_dino(path, "cpu", tiny_checkpoints.TINY_DINO)


@pytest.fixture(scope="module")
def clip_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clip")
    tiny_clip.write_vision_snapshot(folder, projection_dim=768, seed=4)
    return folder


def test_dino_consistency_is_the_formula_on_dino_embeddings(dino):
    frames = _clip()
    want = _numpy_consistency(vit.frame_embeddings(dino, list(frames)).numpy())
    assert temporal_dino_consistency.compute(frames, dino, batch_size=3) == pytest.approx(want, abs=1e-6)
    static = np.repeat(frames[:1], 3, axis=0)
    assert temporal_dino_consistency.compute(static, dino) == pytest.approx(1.0, abs=1e-6)
    with pytest.raises(ValueError, match="T >= 2"):
        temporal_dino_consistency.compute(frames[:1], dino)


def test_clip_consistency_uses_a_quick_gelu_tower_on_rgb_frames(clip_dir):
    tower = vision.load_clip_vision(clip_dir, "cpu", activation="quick_gelu")
    frames = _clip(seed=1)
    embeddings = vision.image_embeddings(tower, [f[:, :, ::-1] for f in frames])
    got = temporal_clip_consistency.compute(frames, tower)
    assert got == pytest.approx(_numpy_consistency(embeddings.numpy()), abs=1e-6)
    swapped = temporal_clip_consistency.compute(np.ascontiguousarray(frames[..., ::-1]), tower)
    assert abs(swapped - got) > 1e-6  # channel order reaches the model
    with pytest.raises(ValueError, match="quick_gelu"):
        temporal_clip_consistency.compute(frames, vision.load_clip_vision(clip_dir, "cpu"))


def test_aesthetic_is_the_linear_head_mean_over_all_frames(clip_dir, tmp_path):
    head = tiny_checkpoints.write_linear_head(tmp_path / "sa_0_4_vit_l_14_linear.pth", seed=5, bias=5.0)
    model = aesthetic.load_aesthetic_linear(clip_dir, tmp_path / "sa_0_4_vit_l_14_linear.pth",
                                            "cpu", activation="quick_gelu")
    frames = _clip(count=5, seed=2)
    features = vision.image_embeddings(model.clip, [f[:, :, ::-1] for f in frames]).double().numpy()
    want = (features @ head["weight"].double().numpy().T + 5.0).mean()  # raw scale, no / 10
    assert aesthetic_quality.compute(frames, model) == pytest.approx(want, abs=1e-5)


@pytest.mark.parametrize("shape,resized", [((561, 100, 3), (511, 91)), ((120, 200, 3), None)])
def test_imaging_quality_is_the_mean_musiq_score_after_the_longer_side_rule(tmp_path, shape,
                                                                            resized):
    tiny_checkpoints.write_musiq(tmp_path / "musiq_spaq_ckpt-358bb6af.pth", seed=8)
    model = musiq.load_musiq(tmp_path / "musiq_spaq_ckpt-358bb6af.pth", "cpu",
                             tiny_checkpoints.TINY_MUSIQ)
    frames = _clip(count=3, shape=shape, seed=3)
    images = torch.from_numpy(frames).permute(0, 3, 1, 2).float()
    if resized:  # the official Resize call, torchvision 0.13.1's tensor default
        images = transforms.Resize(size=resized, antialias=False)(images)
    with torch.no_grad():
        want = np.mean([float(model(images[i:i + 1] / 255.0)) for i in range(3)])
    got = imaging_quality.compute(frames, model, batch_size=2)
    assert got == pytest.approx(want, abs=1e-4)  # raw scale: the tiny head's bias is 50
    assert 20 < got < 80
    with pytest.raises(ValueError, match="uint8"):
        imaging_quality.compute(frames.astype(np.float32), model)


def test_dynamic_degree_is_the_top_five_percent_mean_on_the_padded_flow():
    frames = _clip(count=3, shape=(37, 45, 3), seed=6)  # pads to 40 x 48, centred
    scores = []
    for frame in frames[:-1]:
        red = np.pad(frame[:, :, 0].astype(np.float32), ((1, 2), (1, 2)), mode="edge")
        speed = np.abs(10 * (2 * (red / np.float32(255.0)) - np.float32(1.0)))
        cut = int(40 * 48 * 0.05)  # 96, of the padded size
        scores.append(np.sort(speed.ravel())[::-1][:cut].astype(np.float64).mean())
    got = dynamic_degree.pair_scores(frames, fake_flow.RedChannelRaft())
    np.testing.assert_allclose(got, scores, rtol=1e-6)
    assert dynamic_degree.compute(frames, fake_flow.RedChannelRaft()) == pytest.approx(
        np.mean(scores), rel=1e-6)


class _FakeOnlineTracker:
    """co-tracker's online interface: cumulative histories of a grid moving 2 px/frame in x."""

    step = 4
    device = torch.device("cpu")

    def __call__(self, video_chunk, is_first_step=False, grid_size=5):
        if is_first_step:
            self.points, self.length, self.video = grid_size ** 2, 0, video_chunk
            return None, None
        chunk = video_chunk.shape[1]
        self.length = chunk if self.length == 0 else self.length + min(4, chunk - 4)
        tracks = torch.zeros(1, self.length, self.points, 2)
        tracks[..., 0] = 2.0 * torch.arange(self.length, dtype=torch.float32)[None, :, None]
        tracks[..., 1] = float(self.video[0, 0, 0, 0, 0])  # frames reach the tracker as 0..255
        return tracks, torch.ones(1, self.length, self.points, dtype=torch.bool)


def test_tracking_strength_concatenates_the_cumulative_histories():
    frames = _clip(count=13, shape=(8, 8, 3), seed=7)
    tracker = _FakeOnlineTracker()
    got = tracking_strength.compute(frames, tracker)
    assert tracker.points == 100
    # Histories of 8, 12, 13 frames: displacement 2t summed over rows / 33 rows.
    assert got == pytest.approx(2 * (28 + 66 + 78) / 33, rel=1e-6)
    assert tracking_strength.compute(frames, tracker, corrected=True) == pytest.approx(12.0)
    with pytest.raises(ValueError, match="at least one tracker output"):
        tracking_strength.compute(frames[:4], tracker)


class _FakeAmt:
    """AMT's call: returns the average of its inputs and records how it was called."""

    def __call__(self, in_0, in_1, embt, scale_factor, eval):  # pylint: disable=redefined-builtin
        assert eval and float(embt) == 0.5 and embt.shape == (1, 1, 1, 1)
        self.scale = scale_factor
        return {"imgt_pred": (in_0 + in_1) / 2}


def test_motion_smoothness_drives_amt_as_the_official_code_does():
    frames = _clip(count=5, shape=(10, 12, 3), seed=8)
    amt = _FakeAmt()
    got = temporal_motion_smoothness.compute(frames, amt)  # CPU rule: scale 1
    assert amt.scale == 1.0
    diffs = []
    for k in range(2):
        a, b = frames[2 * k] / np.float32(255.0), frames[2 * k + 2] / np.float32(255.0)
        middle = (((a + b) / 2) * np.float32(255.0)).clip(0, 255).astype(np.uint8)
        diffs.append(np.abs(frames[2 * k + 1].astype(int) - middle).mean())
    assert got == pytest.approx((255 - np.mean(diffs)) / 255, abs=1e-9)
    temporal_motion_smoothness.compute(frames, amt, scale=0.5)
    assert amt.scale == 0.5


class _RecordingI3d(torch.nn.Module):
    """Returns the mean of each channel over (T, H, W) and 397 zeros; keeps the input."""

    def __init__(self):
        super().__init__()
        self.anchor = torch.nn.Parameter(torch.zeros(1))

    def forward(self, video):
        self.video = video
        return torch.cat([video.mean(dim=(2, 3, 4)), torch.zeros(len(video), 397)], 1)


def test_fvd_logits_thin_to_100_frames_resize_each_to_224_and_scale():
    assert fvd_logits.frame_indices(250)[:4] == [0, 2, 5, 7] and len(fvd_logits.frame_indices(250)) == 100
    assert fvd_logits.frame_indices(250)[-1] == 249 and fvd_logits.frame_indices(7) == list(range(7))
    frames = _clip(count=101, shape=(12, 20, 3), seed=9)
    model = _RecordingI3d()
    got = fvd_logits.compute(frames, model)
    assert model.video.shape == (1, 3, 100, 224, 224) and got.shape == (400,)
    index = fvd_logits.frame_indices(101)[37]
    one = torch.nn.functional.interpolate(torch.from_numpy(frames[index]).float().permute(2, 0, 1)[None],
                                          size=(224, 224), mode="bilinear", align_corners=False)
    torch.testing.assert_close(model.video[0, :, 37], (one[0] / 255) * 2. - 1.)
    assert got[0] == pytest.approx(float(model.video[0, 0].mean()))
