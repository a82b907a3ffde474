"""Choosing and loading the Step 1 metric families of a run (each model loaded once).

A family whose backend cannot be had (missing checkpoint, missing package) is not
built; its metrics are reported unavailable with the reason, and the others run.
"""

import dataclasses
from typing import Dict, List, Optional, Tuple

from benchmarks.memobench import metric_specs
from benchmarks.memobench.step1 import family
from benchmarks.memobench.step1 import pixel
from proto import scorecard_pb2

PIXEL_BACKEND = scorecard_pb2.Backend(
    name="opencv-numpy (run_eval.py reference_fidelity transcription)", official=True)


@dataclasses.dataclass(frozen=True)
class Step1Settings:
    """The flags that choose and locate Step 1 backends."""

    device: str = "auto"
    checkpoint_dir: Optional[str] = None
    offline: bool = False
    flow_backend: str = "raft"
    camera_backend: str = "mapanything"
    checkpoints: Dict[str, str] = dataclasses.field(default_factory=dict)  # name -> path


@dataclasses.dataclass
class Prepared:
    families: List[family.Family]
    unavailable: Dict[str, Tuple[str, Optional[scorecard_pb2.Backend]]]  # metric -> why

    def backend_of(self, metric_id: str) -> Optional[scorecard_pb2.Backend]:
        for fam in self.families:
            if metric_id in fam.metric_ids:
                return fam.backend
        entry = self.unavailable.get(metric_id)
        return entry[1] if entry else None

    def checkpoints(self) -> List[scorecard_pb2.CheckpointRef]:
        return [ref for fam in self.families for ref in fam.checkpoints]


def prepare(settings: Step1Settings, metric_ids) -> Prepared:
    """Builds the families the selected metrics need."""
    wanted = set(metric_ids)
    families: List[family.Family] = []
    unavailable: Dict[str, Tuple[str, Optional[scorecard_pb2.Backend]]] = {}
    if wanted & set(pixel.PSNR_SSIM_IDS + pixel.LPIPS_IDS):
        families.append(pixel.PixelFidelity(PIXEL_BACKEND))
    covered = {m for fam in families for m in fam.metric_ids}
    for metric in metric_ids:
        if metric not in covered and metric not in unavailable:
            unavailable[metric] = (metric_specs.PENDING.get(metric, "not computed"), None)
    return Prepared(families, unavailable)
