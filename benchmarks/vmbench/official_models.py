"""Loading VMBench's official model metrics once per run, as their families' inputs.

`prepare(config, metric_ids, quirks, options)` resolves the pinned checkpoints
(checkpoints.py), loads each model once (model_loader.py: GroundingDINO and CoTracker3
are shared by PAS and TCS) and returns the families (one `family.Wiring` each,
benchmarks/common/family.py) and why each other metric is unavailable: a missing
checkpoint makes its metric unavailable with the fetch commands; anything else is a bug
and raises. Families come in evaluate.sh's order (PAS, OIS, TCS,
CAS, MSS), so a metric that reads another's value of the same video finds it.

Devices: as the official scripts, on the run's --device. TCS's script enters a global
`torch.autocast("cuda", bfloat16)` with GroundingDINO outside it; on CUDA the SAM 2.1
and CoTracker3 calls of TCS run under that autocast here too (the official numbers),
and on CPU nothing is autocast (as upstream on CPU). CAS runs under fp16 autocast on
CUDA, as the official evaluation (metrics/videomae/classifier.py).

The families hold their models as benchmarks/common/model_recipe Deferreds
(model_loader.py): a Ray actor gets the recipes, not the weights, and loads each model
once on its own device; the driver resolves the checkpoints and, for a Ray run, loads
nothing. The device is --device resolved on the driver ("auto" is "cuda" there when it
sees a GPU; "cuda" on an actor is that actor's GPU).

`architectures` (tests only) replaces a model's full-size configuration by a tiny one;
the checkpoint files are then tiny random ones in the official formats, loaded by the
same code.
"""

import contextlib
import dataclasses
import pathlib
from typing import Optional

from benchmarks.common import calibration
from benchmarks.common import family
from benchmarks.common import run_device
from benchmarks.common import trust
from benchmarks.vmbench import cas
from benchmarks.vmbench import checkpoints as specs
from benchmarks.vmbench import metric_specs
from benchmarks.vmbench import model_loader
from benchmarks.vmbench import official_scores
from benchmarks.vmbench import pas_boxes
from benchmarks.vmbench import tcs
from metrics.checkpoints import resolver
from proto import scorecard_pb2

FAITHFUL = "faithful"
Settings = model_loader.Settings
# evaluate.sh's order; MSS reads the PAS of the same video.
ORDER = (official_scores.PAS, official_scores.OIS, official_scores.TCS, official_scores.CAS,
         official_scores.MSS)


@dataclasses.dataclass(frozen=True)
class Quirks:
    """How the two official bugs are treated (faithful: as upstream; corrected: fixed,
    and the values are then NOT the official ones)."""

    sam_boxes: str = pas_boxes.SAM_BOXES_FAITHFUL
    tcs_query_frame: str = tcs.QUERY_FAITHFUL


@dataclasses.dataclass(frozen=True)
class Options:
    """The runner's model settings that do not move an official number (batch sizes)
    or that make a metric NOT official (CAS's as-shipped random init)."""

    pas_grid_size: int = 30
    cas_init: str = cas.OFFICIAL_INTENT
    cas_batch_size: int = 10
    cas_seed: int = 0
    mss_batch_frames: int = 48
    mss_dtype: Optional[str] = None  # float16 on CUDA (official), float32 on CPU



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


def _pas(loader, metric_id, quirks, options):
    from benchmarks.vmbench import pas_official  # pylint: disable=import-outside-toplevel
    from metrics.segmentation import sam_v1  # pylint: disable=import-outside-toplevel
    dino, tracker = loader.grounding_dino(metric_id), loader.cotracker(metric_id)
    predictor = loader.sam(metric_id)
    models = pas_official.PasModels(
        detect=dino.detect, track=_tracker(tracker, contextlib.nullcontext),
        segment=lambda rgb, boxes, size, p=predictor.recipe: sam_v1.masks_from_boxes(
            p.get(), rgb, boxes, size),
        video_tensor=_video_tensor(loader.device))
    return pas_official.PasOfficial(backend(metric_id, quirks), (), models,
                                    box_mode=quirks.sam_boxes,
                                    grid_size=options.pas_grid_size), specs.PAS


def _tcs(loader, metric_id, quirks, options):
    from benchmarks.vmbench import tcs_official  # pylint: disable=import-outside-toplevel
    dino, tracker = loader.grounding_dino(metric_id), loader.cotracker(metric_id)
    sam2 = loader.sam2(metric_id)  # bf16 autocast on CUDA inside, as upstream
    models = tcs_official.TcsModels(
        detect=dino.detect, image_masks=sam2.image_masks,
        video_state=lambda path, rgb: rgb, propagate=sam2.propagate,
        track=_tracker(tracker, _tcs_autocast(loader.device)),
        video_tensor=_video_tensor(loader.device))
    return tcs_official.TcsOfficial(backend(metric_id, quirks), (), models,
                                    query_mode=quirks.tcs_query_frame), specs.TCS


def _cas(loader, metric_id, quirks, options):
    if options.cas_init == cas.AS_SHIPPED:
        classifier, used = loader.random_videomae(options.cas_seed), ()
    else:
        classifier, used = loader.videomae(metric_id), specs.CAS
    return cas.Cas(cas.backend(options.cas_init, options.cas_seed), (), classifier,
                   batch_size=options.cas_batch_size), used


def _ois(loader, metric_id, quirks, options):
    from benchmarks.vmbench import ois_official  # pylint: disable=import-outside-toplevel
    def make():
        paths = {spec.name: loader.path(spec, metric_id) for spec in specs.OIS}
        arch = loader.arch.get("ois")
        return lambda device: ois_official.load_ois(lambda spec: paths[spec.name],
                                                    str(device), arch=arch)
    models = loader.get("ois", make)
    return ois_official.OisOfficial(ois_official.backend(), (), models), specs.OIS


def _mss(loader, metric_id, quirks, options):
    # pylint: disable=import-outside-toplevel
    import torch
    from benchmarks.vmbench import mss_official
    from metrics.qalign import loader as qalign_loader
    from metrics.qalign import scorer as scorer_lib

    def make():  # mss_official.load_mss's scorer, as a recipe
        path = loader.path(specs.Q_ALIGN_ONE_ALIGN, metric_id)
        return lambda device: scorer_lib.load_video_scorer(path, str(device),
                                                           dtype=options.mss_dtype)
    fam = mss_official.MssOfficial(mss_official.backend(), (), loader.get("qalign", make),
                                   options.mss_batch_frames)
    dtype = str(qalign_loader.resolve_dtype(options.mss_dtype, torch.device(loader.device))
                ).replace("torch.", "")
    fam.backend.note += f"; weights and activations in {dtype} (official: float16 on CUDA)"
    return fam, specs.MSS


BUILDERS = {official_scores.PAS: _pas, official_scores.OIS: _ois, official_scores.TCS: _tcs,
            official_scores.CAS: _cas, official_scores.MSS: _mss}
SPECS = {official_scores.PAS: specs.PAS, official_scores.OIS: specs.OIS,
         official_scores.TCS: specs.TCS, official_scores.CAS: specs.CAS,
         official_scores.MSS: specs.MSS}


@dataclasses.dataclass(frozen=True)
class Build:
    """What every VMBench family's build reads: the run's one model loader (shared
    models loaded once), the quirks, the options and the common flags."""

    loader: model_loader.Loader
    quirks: Quirks
    options: Options
    common: object


def _wiring(metric_id, make) -> family.Wiring:
    """One official metric's family: its checkpoints' refs and digests filled in; a
    missing checkpoint or a file that is not one makes the metric unavailable."""
    def build(b: Build, wanted):
        del wanted
        try:
            fam, used = make(b.loader, metric_id, b.quirks, b.options)
        except resolver.CheckpointUnavailable as e:
            why = str(e).split("; fetch it with")[0]  # _needs lists every fetch command
            raise family.FamilyUnavailable(
                f"{why}. All it needs: {_needs(metric_id, b.common)}") from e
        except (FileNotFoundError, ValueError) as e:  # a checkpoint file that is not one
            raise family.FamilyUnavailable(f"a checkpoint could not be loaded: {e}") from e
        refs = b.loader.refs_for(metric_id, used)
        fam.checkpoints = refs
        fam.backend = trust.with_digests(fam.backend, refs)
        return fam
    return family.Wiring(metric_specs.BY_ID[metric_id].family, (metric_id,), build)


def _pas_lk(b: Build, wanted):
    del wanted
    from benchmarks.vmbench import pas  # pylint: disable=import-outside-toplevel
    return pas.PasLucasKanade(b.options.pas_grid_size)


def wirings(pas_backend: str = "official"):
    """The families in evaluate.sh's order; PAS on the weight-free opencv-lk-grid
    backend (NOT official) when `pas_backend` is "lk"."""
    return tuple(family.Wiring("pas", (m,), _pas_lk)
                 if m == official_scores.PAS and pas_backend == "lk"
                 else _wiring(m, BUILDERS[m]) for m in ORDER)


def prepare(config_common, metric_ids, quirks: Quirks = Quirks(), options: Options = Options(),
            architectures=None, device=None, pas_backend: str = "official"
            ) -> family.Prepared:
    """The families of the selected metrics, each model loaded once (on --device
    resolved here), and why each other selected metric is unavailable."""
    device = str(device or run_device.resolve(config_common.device))
    loader = model_loader.Loader(Settings(config_common.checkpoint_dir, config_common.offline),
                                 device, architectures)
    return family.prepare(wirings(pas_backend), Build(loader, quirks, options, config_common),
                          metric_ids)


def _needs(metric_id, config_common) -> str:
    """Each checkpoint of the metric, present or missing under --checkpoint_dir, with
    the command that fetches it."""
    root = config_common.checkpoint_dir
    parts = []
    for spec in SPECS[metric_id]:
        present = bool(root) and any(
            p.exists() for p in (pathlib.Path(root) / spec.name / spec.filename,
                                 pathlib.Path(root) / spec.filename))
        parts.append(f"{spec.filename} ({'present' if present else 'missing'}; fetch: "
                     f"{spec.fetch_command(root)})")
    return "; ".join(parts)
