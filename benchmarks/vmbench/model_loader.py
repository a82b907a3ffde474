"""Resolves VMBench's official checkpoints and loads each model once per process.

Each model is a benchmarks/common/model_recipe seen through its methods (a Deferred):
its files are resolved on the driver when a metric first asks for it, and it is loaded
once per process where compute runs (at prepare time in a local run; on Ray by each
actor, on its device). Models shared by several metrics (GroundingDINO and CoTracker3 by
PAS and TCS) are one recipe. `architectures` (tests only) replaces a model's
full-size configuration by a tiny one; the files are then tiny random ones in the
official formats, loaded by the same code.
"""

import dataclasses
from typing import Dict, Mapping, Optional

from benchmarks.common import checkpoint_refs
from benchmarks.common import model_recipe
from benchmarks.vmbench import checkpoints as specs
from proto import scorecard_pb2


@dataclasses.dataclass(frozen=True)
class Settings:
    checkpoint_dir: Optional[str]
    offline: bool
    checkpoints: Mapping[str, str] = dataclasses.field(default_factory=dict)


class Loader:
    """Resolves each checkpoint (remembering its ref) and builds each model once."""

    def __init__(self, settings: Settings, device: str, architectures=None):
        self.settings, self.device, self.arch = settings, device, dict(architectures or {})
        self.models: Dict[str, object] = {}
        self.refs: Dict[str, scorecard_pb2.CheckpointRef] = {}

    def path(self, spec, metric_id) -> str:
        found, ref = checkpoint_refs.resolve(spec, self.settings, metric_id)
        self.refs[spec.name] = ref
        return str(found.path)

    def get(self, key, make) -> model_recipe.Deferred:
        """Model `key`: the first time, `make()` resolves its files and returns
        build(device), which becomes its recipe (built now in a local run)."""
        if key not in self.models:
            self.models[key] = model_recipe.Deferred(
                model_recipe.prepared(make(), self.device, key))
        return self.models[key]

    def arch_kwargs(self, key, argument="config"):
        return {argument: self.arch[key]} if key in self.arch else {}

    def grounding_dino(self, metric_id):
        from metrics.detection import grounding_dino  # pylint: disable=import-outside-toplevel
        def make():
            paths = (self.path(specs.GROUNDING_DINO_SWINB, metric_id),
                     self.path(specs.BERT_BASE_UNCASED, metric_id))
            kwargs = self.arch_kwargs("grounding_dino")
            return lambda device: grounding_dino.load_grounding_dino(
                *paths, device=str(device), **kwargs)
        return self.get("dino", make)

    def cotracker(self, metric_id):
        from metrics.tracking.cotracker3 import loader  # pylint: disable=import-outside-toplevel
        return self.get("cotracker", lambda: self._build(
            loader.load_cotracker3_offline, specs.COTRACKER3_OFFLINE, metric_id,
            self.arch_kwargs("cotracker3")))

    def sam(self, metric_id):
        from metrics.segmentation import sam_v1  # pylint: disable=import-outside-toplevel
        return self.get("sam", lambda: self._build(
            sam_v1.load_sam, specs.SAM_VIT_H, metric_id,
            dict(model_type="vit_h", **self.arch_kwargs("sam_v1", "tiny_config"))))

    def sam2(self, metric_id):
        from metrics.segmentation import sam2_loader  # pylint: disable=import-outside-toplevel
        return self.get("sam2", lambda: self._build(
            sam2_loader.load_sam2, specs.SAM2_1_HIERA_L, metric_id, self.arch_kwargs("sam2")))

    def videomae(self, metric_id):
        from metrics.videomae import classifier  # pylint: disable=import-outside-toplevel
        return self.get("videomae", lambda: self._build(
            classifier.load_videomae_classifier, specs.VIT_G_CAS, metric_id,
            self.arch_kwargs("videomae")))

    def random_videomae(self, seed: int):
        """The CAS script as shipped: no file, the constructor's random weights."""
        from metrics.videomae import classifier  # pylint: disable=import-outside-toplevel
        kwargs = self.arch_kwargs("videomae")
        return self.get("videomae_random", lambda: lambda device: classifier.random_classifier(
            seed=seed, device=str(device), **kwargs))

    def _build(self, load, spec, metric_id, kwargs):
        """build(device) for `load(path, device=..., **kwargs)` on `spec`'s resolved file."""
        path = self.path(spec, metric_id)
        return lambda device: load(path, device=str(device), **kwargs)

    def refs_for(self, metric_id, metric_specs):
        """This metric's checkpoint refs (shared models were resolved once, maybe for
        another metric), each stamped with this metric's id."""
        out = []
        for spec in metric_specs:
            ref = scorecard_pb2.CheckpointRef()
            ref.CopyFrom(self.refs[spec.name])
            ref.metric_id = metric_id
            out.append(ref)
        return tuple(out)
