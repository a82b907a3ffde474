"""Loading VMBench's official PAS and TCS models once per run, as their families' inputs.

`load(config, metric_ids)` resolves the pinned checkpoints (checkpoints.py), loads each
model once (GroundingDINO and CoTracker3 are shared by PAS and TCS) and returns
{metric id: family} plus {metric id: why it is unavailable}: a missing checkpoint makes
its metrics unavailable with the fetch commands; anything else is a bug and raises.

Devices: as the official scripts, on the run's --device. TCS's script enters a global
`torch.autocast("cuda", bfloat16)` with GroundingDINO outside it; on CUDA the SAM 2.1
and CoTracker3 calls of TCS run under that autocast here too (the official numbers),
and on CPU nothing is autocast (as upstream on CPU).

`architectures` (tests only) replaces a model's full-size configuration by a tiny one;
the checkpoint files are then tiny random ones in the official formats, loaded by the
same code.
"""

import contextlib
import dataclasses
import pathlib
from typing import Dict, Mapping, Optional

from benchmarks.common import calibration
from benchmarks.common import checkpoint_refs
from benchmarks.common import trust
from benchmarks.vmbench import checkpoints as specs
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import official_scores
from benchmarks.vmbench import pas_boxes
from benchmarks.vmbench import tcs
from metrics.checkpoints import resolver
from proto import scorecard_pb2

FAITHFUL = "faithful"


@dataclasses.dataclass(frozen=True)
class Settings:
    checkpoint_dir: Optional[str]
    offline: bool
    checkpoints: Mapping[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Quirks:
    """How the two official bugs are treated (faithful: as upstream; corrected: fixed,
    and the values are then NOT the official ones)."""

    sam_boxes: str = pas_boxes.SAM_BOXES_FAITHFUL
    tcs_query_frame: str = tcs.QUERY_FAITHFUL


def backend(metric_id: str, quirks: Quirks) -> scorecard_pb2.Backend:
    """The official backend of PAS or TCS, with its parity facts from the parity table;
    a corrected quirk makes it a named, NOT official variant."""
    if metric_id == official_scores.PAS:
        name, mode, what = metric_specs.PAS_OFFICIAL, quirks.sam_boxes, "SAM box scaling"
    else:
        name, mode, what = metric_specs.TCS_OFFICIAL, quirks.tcs_query_frame, "query frame"
    parity = calibration.parity(name, otherwise="no calibration row for every part yet")
    if mode == FAITHFUL:
        return scorecard_pb2.Backend(
            name=name, official=True, parity=parity,
            note=f"the official models and pipeline, {what} bug kept (faithful)",
            implementation=f"benchmarks/vmbench/{'pas' if metric_id == official_scores.PAS else 'tcs'}_official.py")
    return scorecard_pb2.Backend(
        name=f"{name} ({what} corrected)", official=False, parity=parity,
        note=f"the official models with the {what} bug corrected: NOT the official values",
        implementation="benchmarks/vmbench/official_models.py")


class _Loader:
    """Resolves and loads each model once."""

    def __init__(self, settings: Settings, device, architectures):
        self.settings, self.device, self.arch = settings, device, dict(architectures or {})
        self.models: Dict[str, object] = {}
        self.refs: Dict[str, scorecard_pb2.CheckpointRef] = {}

    def path(self, spec, metric_id):
        found, ref = checkpoint_refs.resolve(spec, self.settings, metric_id)
        self.refs[spec.name] = ref
        return str(found.path)

    def get(self, key, build):
        if key not in self.models:
            self.models[key] = build()
        return self.models[key]

    def grounding_dino(self, metric_id):
        from metrics.detection import grounding_dino  # pylint: disable=import-outside-toplevel
        return self.get("dino", lambda: grounding_dino.load_grounding_dino(
            self.path(specs.GROUNDING_DINO_SWINB, metric_id),
            self.path(specs.BERT_BASE_UNCASED, metric_id), device=self.device,
            **_arch(self.arch, "grounding_dino")))

    def cotracker(self, metric_id):
        from metrics.tracking.cotracker3 import loader  # pylint: disable=import-outside-toplevel
        return self.get("cotracker", lambda: loader.load_cotracker3_offline(
            self.path(specs.COTRACKER3_OFFLINE, metric_id), device=self.device,
            **_arch(self.arch, "cotracker3")))

    def sam(self, metric_id):
        from metrics.segmentation import sam_v1  # pylint: disable=import-outside-toplevel
        return self.get("sam", lambda: sam_v1.load_sam(
            self.path(specs.SAM_VIT_H, metric_id), model_type="vit_h", device=self.device,
            **_arch(self.arch, "sam_v1", "tiny_config")))

    def sam2(self, metric_id):
        from metrics.segmentation import sam2_loader  # pylint: disable=import-outside-toplevel
        return self.get("sam2", lambda: sam2_loader.load_sam2(
            self.path(specs.SAM2_1_HIERA_L, metric_id), device=self.device,
            **_arch(self.arch, "sam2")))


def _arch(architectures, key, argument="config"):
    return {argument: architectures[key]} if key in architectures else {}


def _video_tensor(device):
    import torch  # pylint: disable=import-outside-toplevel

    def to_tensor(rgb):
        return torch.from_numpy(rgb).permute(0, 3, 1, 2)[None].float().to(device)
    return to_tensor


def _tracker(tracker, autocast):
    import numpy as np  # pylint: disable=import-outside-toplevel
    import torch  # pylint: disable=import-outside-toplevel

    def track(video, mask, grid_size, query_frame):
        segm = torch.from_numpy(np.ascontiguousarray(mask))[None, None]
        with autocast():
            tracks, visible = tracker.track(video, grid_size=grid_size,
                                            grid_query_frame=query_frame,
                                            backward_tracking=True, segm_mask=segm)
        return (tracks[0].float().cpu().numpy(), visible[0].cpu().numpy().astype(bool))
    return track


def _tcs_autocast(device):
    import torch  # pylint: disable=import-outside-toplevel
    if str(device).startswith("cuda"):
        return lambda: torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext


def load(config_common, metric_ids, quirks: Quirks = Quirks(), pas_grid_size: int = 30,
         architectures=None, device=None):
    """({metric id: family}, {metric id: unavailable reason}) for PAS and TCS."""
    from benchmarks.vmbench import pas_official  # pylint: disable=import-outside-toplevel
    from benchmarks.vmbench import tcs_official  # pylint: disable=import-outside-toplevel
    from metrics import device as device_lib  # pylint: disable=import-outside-toplevel
    from metrics.segmentation import sam_v1  # pylint: disable=import-outside-toplevel
    device = str(device or device_lib.resolve_device(config_common.device))
    loader = _Loader(Settings(config_common.checkpoint_dir, config_common.offline), device,
                     architectures)
    families, reasons = {}, {}
    plain = contextlib.nullcontext
    for metric_id in (official_scores.PAS, official_scores.TCS):
        if metric_id not in metric_ids:
            continue
        try:
            dino, tracker = loader.grounding_dino(metric_id), loader.cotracker(metric_id)
            video_tensor = _video_tensor(device)
            if metric_id == official_scores.PAS:
                predictor = loader.sam(metric_id)
                models = pas_official.PasModels(
                    detect=dino.detect, track=_tracker(tracker, plain),
                    segment=lambda rgb, boxes, size, p=predictor: sam_v1.masks_from_boxes(
                        p, rgb, boxes, size),
                    video_tensor=video_tensor)
                fam = pas_official.PasOfficial(backend(metric_id, quirks), (), models,
                                               box_mode=quirks.sam_boxes,
                                               grid_size=pas_grid_size)
            else:
                sam2 = loader.sam2(metric_id)  # bf16 autocast on CUDA inside, as upstream
                models = tcs_official.TcsModels(
                    detect=dino.detect, image_masks=sam2.image_masks,
                    video_state=lambda path, rgb: rgb, propagate=sam2.propagate,
                    track=_tracker(tracker, _tcs_autocast(device)), video_tensor=video_tensor)
                fam = tcs_official.TcsOfficial(backend(metric_id, quirks), (), models,
                                               query_mode=quirks.tcs_query_frame)
        except resolver.CheckpointUnavailable as e:
            reasons[metric_id] = f"{e}. All it needs: {_needs(metric_id, config_common)}"
            continue
        except (FileNotFoundError, ValueError) as e:  # a checkpoint file that is not one
            reasons[metric_id] = f"a checkpoint could not be loaded: {e}"
            continue
        refs = _refs(loader, metric_id)
        fam.checkpoints = refs
        fam.backend = trust.with_digests(fam.backend, refs)
        families[metric_id] = fam
    return families, reasons


def _needs(metric_id, config_common) -> str:
    """Each checkpoint of the metric, present or missing under --checkpoint_dir, with
    the command that fetches it."""
    root = config_common.checkpoint_dir
    parts = []
    for spec in specs.PAS if metric_id == official_scores.PAS else specs.TCS:
        present = bool(root) and any(
            p.exists() for p in (pathlib.Path(root) / spec.name / spec.filename,
                                 pathlib.Path(root) / spec.filename))
        parts.append(f"{spec.filename} ({'present' if present else 'missing'}; fetch: "
                     f"{spec.fetch_command(root)})")
    return "; ".join(parts)


def _refs(loader, metric_id):
    """This metric's checkpoint refs (shared models were resolved once, maybe for the
    other metric), each stamped with this metric's id."""
    out = []
    for spec in specs.PAS if metric_id == official_scores.PAS else specs.TCS:
        ref = scorecard_pb2.CheckpointRef()
        ref.CopyFrom(loader.refs[spec.name])
        ref.metric_id = metric_id
        out.append(ref)
    return tuple(out)

