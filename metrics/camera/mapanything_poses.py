"""Camera poses from MapAnything, the estimator a released benchmark's camera metric uses.

MapAnything is not on PyPI, so worldeval does not lock it; when its package is
importable (installed from github.com/facebookresearch/map-anything, see the
benchmark's runtime profile) this module drives it as that metric's code does: every
(already resized) frame written as a PNG,
`mapanything.utils.image.load_images` with its default preprocessing, one
`model.infer(...)` call over all views with the official arguments, and
`outputs[i]["camera_poses"][0]` as frame i's 4x4 cam2world (OpenCV convention).
"""

import importlib
import importlib.util
import pathlib
import tempfile

import cv2
import numpy as np

from metrics.checkpoints import resolver

MODULE = "mapanything"
INSTALL_HINT = ("pip install 'git+https://github.com/facebookresearch/map-anything' "
                "(not on PyPI; needs torch, already in worldeval's lock)")

# The Apache-licensed weights the official code loads with MapAnything.from_pretrained. The
# snapshot's weight file name is inferred from huggingface_hub's model mixin.
MAPANYTHING_APACHE = resolver.CheckpointSpec(
    name="map_anything_apache", filename="model.safetensors",
    hf_repo="facebook/map-anything-apache", snapshot=True, license="Apache-2.0")

# The keyword arguments of the official model.infer call.
INFER_KWARGS = dict(memory_efficient_inference=True, minibatch_size=1, use_amp=True,
                    amp_dtype="bf16", apply_mask=True, mask_edges=True)


def is_installed() -> bool:
    """True when the mapanything package can be imported."""
    return importlib.util.find_spec(MODULE) is not None


def load_mapanything(snapshot: pathlib.Path, device: str):
    """MapAnything.from_pretrained on a local snapshot folder, in eval mode.

    Raises:
        ModuleNotFoundError: mapanything is not installed (the message says how).
    """
    if not is_installed():
        raise ModuleNotFoundError(f"the {MODULE} package is not installed: {INSTALL_HINT}")
    models = importlib.import_module(f"{MODULE}.models")
    return models.MapAnything.from_pretrained(str(snapshot)).to(device).eval()


def estimate_poses(model, frames_bgr: np.ndarray) -> np.ndarray:
    """(N, 4, 4) float64 cam2world poses of the N frames, in one inference pass."""
    image_utils = importlib.import_module(f"{MODULE}.utils.image")
    with tempfile.TemporaryDirectory(prefix="worldeval_mapanything_") as tmp:
        paths = []
        for i, frame in enumerate(frames_bgr):
            path = pathlib.Path(tmp) / f"{i:05d}.png"
            if not cv2.imwrite(str(path), frame):
                raise OSError(f"could not write {path}")
            paths.append(str(path))
        views = image_utils.load_images(paths)
        outputs = model.infer(views, **INFER_KWARGS)
    poses = [np.asarray(_to_numpy(out["camera_poses"])[0], dtype=np.float64) for out in outputs]
    return np.stack(poses) if poses else np.zeros((0, 4, 4))


def _to_numpy(value):
    """A torch tensor (any device/dtype) or array-like as a numpy array."""
    if hasattr(value, "detach"):
        return value.detach().float().cpu().numpy()
    return np.asarray(value)
