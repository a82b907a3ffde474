"""motion_accuracy.motion_accuracy: tracked-object flow minus background flow (spec §4.8;
third_party/motion_accuracy_metrics.py, `vos_inference` + `_compute_scores`).

* First-frame masks: every .png/.jpg in the folder of image_data["masks"][0] (the path
  joined to dataset_root = <data_root>/WorldScore-Dataset), sorted by name, object id =
  its index, `np.array(Image.open(f)).astype(np.uint8) > 0` (so a 16-bit value that is a
  multiple of 256 reads as background, as officially); a mask that is not 2-D fails, as
  `add_new_mask`'s assert does. All are added on frame 0.
* Tracking: the SAM 2.1 Hiera-B+ video predictor (metrics/segmentation, config
  sam2.1_hiera_b+.yaml, `sam2.1_hiera_base_plus.pt` unchanged) over the frames folder as
  `init_state(video_path=frames/)` reads it: frames in int(stem) order, PIL's default
  (bicubic) resize to 1024; non_overlap_masks=false, score threshold 0 (mask = logit > 0),
  every frame from 0 to the last; built with `apply_postprocessing=False`, so no
  stability fallback of the mask decoder, no binarised memory masks and no hole
  filling (sam2_config.HIERA_B_PLUS_NO_POSTPROCESSING). bf16 autocast on CUDA as the
  official decorator; on the CPU float32 (the official build puts the model on CUDA
  and cannot run there).
* Per frame: the union of the objects' masks dilated by a 21x21 square (10 px).
* Flow: SEA-RAFT as the flow metrics (flow_metrics.load_sea_raft_flow) on each pair
  (t, t+1) of the evaluator's frame list (sorted file names), with the mask of the t-th
  tracked frame; per pair max(|flow|[mask]) - max(|flow|[~mask]); score = mean over pairs
  (metrics/flow/motion_stats.clip_motion_accuracy).

The official code resizes a mask whose shape differs from the frame with cv2 nearest into
a uint8 array and then indexes with it (integer, not boolean, indexing); SAM 2 returns
masks at the frames' own size and the loader requires frames of one size, so that path
never runs here: a shape mismatch is an error.
"""

import os
import pathlib
from typing import Callable, Dict, List, Sequence

import numpy as np
from PIL import Image

from benchmarks.common import calibration
from benchmarks.common import checkpoint_refs
from benchmarks.common import family
from benchmarks.common import model_recipe
from benchmarks.common.errors import InputError
from benchmarks.worldscore import dataset
from benchmarks.worldscore import flow_metrics
from benchmarks.worldscore import metric_specs
from metrics.flow import motion_stats
from metrics.segmentation import pins as segmentation_pins
from proto import scorecard_pb2

METRIC = metric_specs.metric_id("motion_accuracy", "motion_accuracy")
METRIC_IDS = (METRIC,)
MASK_SUFFIXES = (".png", ".jpg")
BACKEND_NAME = "sam2.1-hiera-base-plus + sea-raft"

# The official README fetches this file from the hub (metrics.segmentation.pins).
SAM2_1_HIERA_B_PLUS = segmentation_pins.SAM2_1_HIERA_B_PLUS

# (frames (T, H, W, 3) RGB in tracking order, {object id: first-frame mask}) ->
# per frame the (H, W) union of the tracked object masks, not yet dilated.
Track = Callable[[np.ndarray, Dict[int, np.ndarray]], List[np.ndarray]]


def mask_folder(data_root, image_data: dict) -> pathlib.Path:
    """dirname(os.path.join(dataset_root, masks[0])), dataset_root the dataset folder."""
    masks = image_data.get("masks")
    if not isinstance(masks, list) or not masks or not isinstance(masks[0], str):
        raise InputError("image_data.json", "masks, a list of first-frame mask paths",
                         repr(masks))
    return pathlib.Path(data_root) / dataset.DATASET_DIR / os.path.dirname(masks[0])


def read_first_frame_masks(folder: pathlib.Path) -> Dict[int, np.ndarray]:
    """`load_masks_from_dir(per_obj_png_file=True)`: {index: mask > 0} in name order."""
    names = sorted(f for f in os.listdir(folder) if f.endswith(MASK_SUFFIXES)) \
        if folder.is_dir() else []
    if not names:
        raise InputError(folder, "the first-frame object masks (.png/.jpg)",
                         "no such folder" if not folder.is_dir() else "none")
    masks = {}
    for i, name in enumerate(names):
        with Image.open(folder / name) as image:
            mask = np.array(image).astype(np.uint8) > 0
        if mask.ndim != 2:
            raise InputError(folder / name, "a single-channel mask (add_new_mask asserts "
                             "a 2-D mask)", f"shape {mask.shape}")
        masks[i] = mask
    return masks


def tracking_order(frame_files: Sequence[pathlib.Path]) -> List[int]:
    """Indices of the evaluator's frames in the order SAM 2 reads the folder (int stems)."""
    bad = [f for f in frame_files if not f.stem.isdigit()]
    if bad:
        raise InputError(bad[0], "an integer-named frame (SAM 2 sorts the frames folder "
                         "by int(name))", bad[0].name)
    return sorted(range(len(frame_files)), key=lambda i: int(frame_files[i].stem))


def instance_score(frames_rgb: Sequence[np.ndarray], frame_files: Sequence[pathlib.Path],
                   first_masks: Dict[int, np.ndarray], track: Track,
                   flow: flow_metrics.Flow) -> float:
    """The instance's motion accuracy (see the module docstring)."""
    order = tracking_order(frame_files)
    tracked = track(np.stack([frames_rgb[i] for i in order]), first_masks)
    masks = [motion_stats.dilate_mask(m) for m in tracked]
    return motion_stats.clip_motion_accuracy(list(frames_rgb), masks, flow)


def sam2_track(model) -> Track:
    """A Track over metrics.segmentation's Sam2 (frames folder: bicubic resize)."""

    def track(frames_rgb, first_masks):
        out = model.propagate(frames_rgb, first_masks, 0, len(frames_rgb) - 1,
                              frame_resize="bicubic")
        unions = []
        for _, per_object in out:
            union = np.zeros(frames_rgb.shape[1:3], dtype=bool)
            for mask in per_object.values():
                union |= mask
            unions.append(union)
        return unions

    return track


def backend(flow_backend: scorecard_pb2.Backend) -> scorecard_pb2.Backend:
    official = flow_backend.official
    name = BACKEND_NAME if flow_backend.name == "sea-raft" else \
        "sam2.1-hiera-base-plus + " + flow_backend.name
    return scorecard_pb2.Backend(
        name=name, official=official,
        checkpoint_id=f"{SAM2_1_HIERA_B_PLUS.hf_repo} + {flow_backend.checkpoint_id}",
        implementation="metrics/segmentation (sam2_loader, sam2_video) + "
                       "benchmarks/worldscore/motion_accuracy.py + " + flow_backend.implementation,
        note="SAM 2.1 Hiera-B+ video masks from the dataset's first-frame masks (bicubic "
             "frame resize as the official frames-folder loader; bf16 autocast on CUDA, "
             "float32 on CPU) dilated 21x21, then the flow backend: " + flow_backend.note,
        parity=calibration.parity(name, otherwise=(
            "the tracking in the sam2.1-hiera-base-plus rows (official vos_inference, tiny "
            "random weights) and the flow arithmetic in the flow backend's own rows")))


def build(config, metric_ids) -> family.Family:
    """SAM 2.1 B+ from its checkpoint (CheckpointUnavailable when missing) and the flow
    backend: config.flow when given (tests), else SEA-RAFT from its checkpoint."""
    # pylint: disable=import-outside-toplevel  (torch only when the family is built)
    from metrics.segmentation import sam2_loader
    ids = tuple(metric_ids)
    found, sam_ref = checkpoint_refs.resolve(SAM2_1_HIERA_B_PLUS, config.common, ids[0])
    flow, flow_backend, refs = config.flow, config.flow_backend, (sam_ref,)
    if flow is None:
        flow, flow_ref = flow_metrics.load_sea_raft_flow(config, ids[0])
        flow_backend, refs = flow_metrics.sea_raft_backend(), (sam_ref, flow_ref)
    arch = (config.architectures or {}).get("sam2", sam2_loader.HIERA_B_PLUS_NO_POSTPROCESSING)
    track = model_recipe.method(model_recipe.prepared(  # loaded where compute runs
        lambda device: sam2_track(sam2_loader.load_sam2(found.path, device, arch,
                                                        bf16_autocast=True)),
        config.common.device, "sam2"))

    def compute(ctx) -> family.FamilyResult:
        if ctx.movement != "dynamic":
            return family.FamilyResult({})
        first = read_first_frame_masks(mask_folder(ctx.data_root, ctx.image_data))
        frames = [ctx.rgb(i) for i in range(len(ctx.frame_files))]
        return family.FamilyResult({METRIC: instance_score(frames, ctx.frame_files, first,
                                                           track, flow)})

    return family.FunctionFamily("motion_accuracy", ids, compute, backend(flow_backend), refs)
