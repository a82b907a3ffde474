"""MiraBench's set-level metrics over the generated and the GT sets (spec §3.6, §3.7).

Two networks embed each video (set_networks.py): Inception-v3 pool3 features of its
selected frames for FID/KID and I3D's time-averaged logits for FVD/KVD. The generated
videos are embedded in the per-video loop from the frames decoded there (`collector`,
wherever the sample runs: a Ray actor included), each embedding handed to the store as
the sample's attachment (benchmarks/common/sample_store.py), so a resumed, merged or Ray
run reads them back instead of decoding the video again; one missing or corrupted is
computed again here. Each GT video is decoded once here for both networks. FID and KID
as torchmetrics computes them, FVD and KVD as the official fvd.py (distribution.py). As
upstream, each pair comes from one call: when one of a pair cannot be computed (KID
below 100 frames in a set, FVD/KVD below two videos) the official average_score.csv
holds neither, and so does ours (the scorecard still gives the other).
"""

import dataclasses
import io
from typing import Dict, List, Optional, Tuple

import numpy as np

from benchmarks.common import family as family_lib
from benchmarks.common import sample_store
from benchmarks.common import scorecard as card_lib
from benchmarks.mirabench import distribution
from benchmarks.mirabench import layout
from benchmarks.mirabench import metric_specs
from benchmarks.mirabench import sample as sample_lib
from benchmarks.mirabench import set_networks
from benchmarks.mirabench.set_networks import CORRECTED_INPUT, OFFICIAL_INPUT  # noqa: F401
from proto import scorecard_pb2

DEFAULT_KID_SEED = 0
UNUSABLE_KEY = "set_embedding_unusable/"  # diagnostics prefix + attachment name: why not
_NEEDS_GT = "needs the GT set (--gt_meta_csv and --gt_dir)"


@dataclasses.dataclass
class SetResults:
    results: Dict[str, scorecard_pb2.MetricResult]
    values: Dict[str, float]                       # for average_score.csv
    checkpoints: Tuple[scorecard_pb2.CheckpointRef, ...] = ()
    notes: List[str] = dataclasses.field(default_factory=list)


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


_VALUES = {set_networks.FVD_LABEL: _fvd_values, set_networks.FID_LABEL: _fid_values}


def _embedded(net: set_networks.Network, frames):
    """The video's embedding, or why the network cannot embed it (a str)."""
    try:
        return net.embed(frames)
    except ValueError as e:
        return str(e)


def _npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(array), allow_pickle=False)
    return buf.getvalue()


class SetStep:
    """Prepared once per run: the networks (or why not)."""

    def __init__(self, config, metric_ids):
        self.config = config
        self.networks = set_networks.networks(config, metric_ids, _NEEDS_GT)

    def _ready(self) -> List[set_networks.Network]:
        return [n for n in self.networks if n.embed is not None]

    def checkpoints(self) -> List[scorecard_pb2.CheckpointRef]:
        """The ready networks' checkpoints (the per-sample embeddings depend on them)."""
        return [n.ref for n in self._ready()]

    def collector(self) -> Optional[family_lib.Family]:
        """The per-video family that attaches each generated video's embeddings (or
        records, as a diagnostic, why a network cannot embed it) to its sample."""
        ready = self._ready()
        if not ready:
            return None

        def compute(ctx) -> family_lib.FamilyResult:
            attachments, diagnostics = {}, {}
            for net in ready:
                got = _embedded(net, ctx.frames)
                if isinstance(got, str):
                    diagnostics[UNUSABLE_KEY + net.key] = got
                else:
                    attachments[net.key] = _npy(got)
            return family_lib.FamilyResult({}, diagnostics=diagnostics,
                                           attachments=attachments)

        return family_lib.FunctionFamily("set_embeddings", (), compute, ready[-1].backend)

    @staticmethod
    def _stored(net, sample, store_path):
        """The embedding the sample's row holds (or the reason it has none), else None.
        (Rows made with another checkpoint are not kept: the store's digest has them.)"""
        if sample is None:
            return None
        if UNUSABLE_KEY + net.key in sample.diagnostics:
            return sample.diagnostics[UNUSABLE_KEY + net.key]
        blob = sample_store.read_attachment(store_path, sample, net.key)
        return None if blob is None else np.load(io.BytesIO(blob), allow_pickle=False)

    def _embeddings(self, rows, stored, notes, label,
                    failed: Dict[str, str]) -> Dict[str, np.ndarray]:
        """Each ready network's embeddings of `rows`: the stored ones (`stored(net, row)`,
        None when not there) read, each other video decoded at most once; a video a
        network cannot embed goes into `failed` (network label -> reason)."""
        ready = self._ready()
        feats = {n.label: [] for n in ready}
        for row in rows:
            got = {n.label: stored(n, row) for n in ready}
            if any(g is None for g in got.values()):
                try:
                    frames = sample_lib.load(row, self.config.common.max_side).frames
                except family_lib.EXPECTED_ERRORS as e:
                    notes.append(f"set metrics: {label} video {row.video_idx} left out: {e}")
                    continue
                got = {n.label: _embedded(n, frames) if got[n.label] is None else got[n.label]
                       for n in ready}
            for net in ready:
                if isinstance(got[net.label], str):  # the official call raises: no pair
                    failed.setdefault(net.label,
                                      f"{label} video {row.video_idx}: {got[net.label]}")
                else:
                    feats[net.label].append(got[net.label])
        return {k: np.concatenate(v) if v else np.zeros((0, 1), np.float32)
                for k, v in feats.items()}

    def compute(self, rows, samples, store_path) -> SetResults:
        """The set metrics over the generated `rows` (their scored `samples`, whose
        attachments the store at `store_path` keeps) and the GT set."""
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
        by_key = {sample_store.key_of(s): s for s in samples}
        fake = self._embeddings(
            rows, lambda net, row: self._stored(net, by_key.get(sample_lib.ref(row).key),
                                                store_path),
            out.notes, "generated", failed)
        real = self._embeddings(gt_rows, lambda net, row: None, out.notes, "GT", failed)
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

    def _score(self, net: set_networks.Network, real, fake, out: SetResults) -> None:
        out.checkpoints += (net.ref,)
        unit = "frames" if net.label == set_networks.FID_LABEL else "videos"
        out.notes.append(f"{net.label} on {len(fake)} generated and {len(real)} GT {unit}"
                         + (f"; KID subsets seeded with {self.config.kid_seed} (upstream: "
                            "unseeded)" if net.label == set_networks.FID_LABEL else ""))
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

