"""Independent expected values for //tests:mirabench_all_metrics_test (testonly).

Each MiraBench metric of one decoded video, computed straight from the per-metric modules
(benchmarks/mirabench/model_metrics/*, consistency_3d) on models loaded here from the
same tiny checkpoint files, without the runner, its families or its wiring; the set-level
FVD and KVD from the I3D logits (model_metrics/fvd_logits) and the distribution formulas.
A runner value that differs from these has been wired to the wrong column, model,
checkpoint, frames or channel order.
"""

import pathlib
from typing import Dict, Mapping, Sequence

import numpy as np

from benchmarks.mirabench import checkpoints as ckpts
from benchmarks.mirabench import consistency_3d
from benchmarks.mirabench import distribution
from benchmarks.mirabench import tiny_checkpoints as tiny
from benchmarks.mirabench.model_metrics import aesthetic_quality
from benchmarks.mirabench.model_metrics import dynamic_degree
from benchmarks.mirabench.model_metrics import fvd_logits
from benchmarks.mirabench.model_metrics import imaging_quality
from benchmarks.mirabench.model_metrics import temporal_clip_consistency
from benchmarks.mirabench.model_metrics import temporal_dino_consistency
from benchmarks.mirabench.model_metrics import temporal_motion_smoothness
from benchmarks.mirabench.model_metrics import text_video_alignment
from benchmarks.mirabench.model_metrics import tracking_strength
from metrics.clip import aesthetic
from metrics.clip import vision
from metrics.dino import vit
from metrics.flow import raft_things
from metrics.frame_interpolation import amt
from metrics.i3d import inception_i3d
from metrics.iqa import musiq
from metrics.tracking.cotracker2 import loader as cotracker2_loader
from metrics.viclip import loader as viclip_loader
from metrics.viclip import tokenizer as viclip_tokenizer

# The slow ones (RAFT and AMT-S are full size, having no smaller form; the 3D pipeline
# runs SIFT at 1280 x 720): pinned on one video only, to keep the test short (about 9 s
# on one core); every other per-video metric on every video.
SLOW = ("dynamic_degree", "temporal_motion_smoothness", "3D_consistency_num_pts",
        "3D_consistency_num_inliers_F", "3D_consistency_keep_ratio",
        "3D_consistency_mean_err", "3D_consistency_rmse")
# The sample.CAPTION_OF column each alignment metric reads on a fully captioned row.
CAPTION_COLUMN = {"camera_alignment": "camera_caption",
                  "main_object_alignment": "main_object_caption",
                  "background_alignment": "background_caption",
                  "style_alignment": "style_caption",
                  "overall_consistency": "dense_caption"}


def _file(root: pathlib.Path, spec) -> pathlib.Path:
    return root / spec.name / spec.filename


class Models:
    """Every per-video network of MiraBench, loaded on CPU from `root` (a tiny
    checkpoint folder in the --checkpoint_dir layout), each with its tiny architecture."""

    def __init__(self, root: pathlib.Path):
        arch = tiny.ARCHITECTURES
        self.dino = vit.load_dino(_file(root, ckpts.DINO_VITB16), "cpu", arch["dino"])
        self.clip_b32 = vision.load_clip_vision(
            root / ckpts.CLIP_VIT_B32.name, "cpu",
            activation=temporal_clip_consistency.ACTIVATION)
        self.aesthetic = aesthetic.load_aesthetic_linear(
            root / ckpts.CLIP_VIT_L14.name, _file(root, ckpts.LAION_AESTHETIC_LINEAR), "cpu",
            activation=aesthetic_quality.ACTIVATION)
        self.musiq = musiq.load_musiq(_file(root, ckpts.MUSIQ_SPAQ), "cpu", arch["musiq"])
        self.cotracker = cotracker2_loader.load_cotracker2_online(
            _file(root, ckpts.COTRACKER2), "cpu", arch["cotracker2"])
        self.viclip = text_video_alignment.ViClipScorer(
            viclip_loader.load_viclip(_file(root, ckpts.VICLIP), "cpu", arch["viclip"]),
            viclip_tokenizer.load_tokenizer(str(_file(root, ckpts.CLIP_BPE))), "cpu")
        self.i3d = inception_i3d.load_i3d(_file(root, ckpts.I3D_400), "cpu",
                                          width_divisor=arch["i3d_width_divisor"])
        self._root = root

    def raft(self):
        return raft_things.load_raft_things(_file(self._root, ckpts.RAFT_THINGS), "cpu")

    def amt(self):
        return amt.load_amt_s(_file(self._root, ckpts.AMT_S), "cpu")


def per_video(frames_bgr: np.ndarray, captions: Mapping[str, str], models: Models,
              slow: bool) -> Dict[str, float]:
    """{metric id: value} of one video (BGR uint8 frames, as decoded) from the per-metric
    modules; the SLOW ones only where `slow`."""
    rgb = np.ascontiguousarray(frames_bgr[..., ::-1])
    out = {
        "temporal_dino_consistency": temporal_dino_consistency.compute(rgb, models.dino),
        "temporal_clip_consistency": temporal_clip_consistency.compute(rgb, models.clip_b32),
        "aesthetic_quality": aesthetic_quality.compute(rgb, models.aesthetic),
        "imaging_quality": imaging_quality.compute(rgb, models.musiq),
        "tracking_strength": tracking_strength.compute(rgb, models.cotracker),
    }
    out.update(text_video_alignment.compute(
        rgb, {m: captions[c] for m, c in CAPTION_COLUMN.items()}, models.viclip))
    if slow:
        # The official 3D pipeline, seeded as the runner's default (--consistency_3d_seed=0).
        out.update(consistency_3d.video_values(list(frames_bgr), seed=0).values)
        out["dynamic_degree"] = dynamic_degree.compute(rgb, models.raft())
        out["temporal_motion_smoothness"] = temporal_motion_smoothness.compute(
            rgb, models.amt(), scale=None, device="cpu")
    return out


def set_level(gen_bgr: Sequence[np.ndarray], gt_bgr: Sequence[np.ndarray],
              models: Models) -> Dict[str, float]:
    """FVD and KVD of the generated against the GT videos (BGR uint8 frames, as decoded):
    each video's I3D logits on its RGB frames (the official VideoDataset reads each PNG
    with PIL, .convert("RGB")), then the official formulas.

    The tiny random I3D (width / 64, He-normal convolutions: benchmarks/mirabench/
    tiny_checkpoints._write_i3d) gives different videos different logits, so this pins
    which frames and channel order reach I3D as well as the set step's arithmetic."""
    def logits(videos):
        return np.stack([fvd_logits.compute(np.ascontiguousarray(v[..., ::-1]), models.i3d)
                         for v in videos])
    fake, real = logits(gen_bgr), logits(gt_bgr)
    return {"fvd": distribution.frechet_distance_svd(real, fake),
            "kvd": distribution.polynomial_mmd(real, fake)}
