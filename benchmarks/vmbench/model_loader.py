"""Resolves VMBench's official checkpoints and loads each model once per run.

Models shared by several metrics (GroundingDINO and CoTracker3 by PAS and TCS) are
loaded the first time one asks for them. `architectures` (tests only) replaces a model's
full-size configuration by a tiny one; the files are then tiny random ones in the
official formats, loaded by the same code.
"""

import dataclasses
from typing import Dict, Mapping, Optional

from benchmarks.common import checkpoint_refs
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

    def get(self, key, build):
        if key not in self.models:
            self.models[key] = build()
        return self.models[key]

    def arch_kwargs(self, key, argument="config"):
        return {argument: self.arch[key]} if key in self.arch else {}

    def grounding_dino(self, metric_id):
        from metrics.detection import grounding_dino  # pylint: disable=import-outside-toplevel
        return self.get("dino", lambda: grounding_dino.load_grounding_dino(
            self.path(specs.GROUNDING_DINO_SWINB, metric_id),
            self.path(specs.BERT_BASE_UNCASED, metric_id), device=self.device,
            **self.arch_kwargs("grounding_dino")))

    def cotracker(self, metric_id):
        from metrics.tracking.cotracker3 import loader  # pylint: disable=import-outside-toplevel
        return self.get("cotracker", lambda: loader.load_cotracker3_offline(
            self.path(specs.COTRACKER3_OFFLINE, metric_id), device=self.device,
            **self.arch_kwargs("cotracker3")))

    def sam(self, metric_id):
        from metrics.segmentation import sam_v1  # pylint: disable=import-outside-toplevel
        return self.get("sam", lambda: sam_v1.load_sam(
            self.path(specs.SAM_VIT_H, metric_id), model_type="vit_h", device=self.device,
            **self.arch_kwargs("sam_v1", "tiny_config")))

    def sam2(self, metric_id):
        from metrics.segmentation import sam2_loader  # pylint: disable=import-outside-toplevel
        return self.get("sam2", lambda: sam2_loader.load_sam2(
            self.path(specs.SAM2_1_HIERA_L, metric_id), device=self.device,
            **self.arch_kwargs("sam2")))

    def videomae(self, metric_id):
        from metrics.videomae import classifier  # pylint: disable=import-outside-toplevel
        return self.get("videomae", lambda: classifier.load_videomae_classifier(
            self.path(specs.VIT_G_CAS, metric_id), device=self.device,
            **self.arch_kwargs("videomae")))

    def random_videomae(self, seed: int):
        """The CAS script as shipped: no file, the constructor's random weights."""
        from metrics.videomae import classifier  # pylint: disable=import-outside-toplevel
        return self.get("videomae_random", lambda: classifier.random_classifier(
            seed=seed, device=self.device, **self.arch_kwargs("videomae")))

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
