"""RAFT-large optical flow, the flow of the official warp-error smoothness.

The official code builds `torchvision.models.optical_flow.raft_large` with torchvision's
DEFAULT weights (C_T_SKHT_V2) and runs it with its default number of flow
updates (12) on RGB frames in [0, 1]: `TF.to_tensor` output, NOT torchvision's
[-1, 1] RAFT transform (spec §12, quirk 3). Both frames are padded on the
bottom and right to a multiple of 8 by replication, and the last flow
prediction is cropped back to the frame size. We build the same architecture
with `weights=None` and load the weight file found by
metrics.checkpoints.resolver, so nothing is downloaded behind the resolver's back.
"""

from typing import Optional, Sequence, Tuple

import numpy as np
import torch
from torchvision.models.optical_flow import raft_large

from metrics.checkpoints import resolver
from metrics.checkpoints import state_dict
from metrics.flow import pins
from metrics.flow import tensors

BACKEND_NAME = "raft-large"

RAFT_LARGE = pins.RAFT_LARGE  # torchvision's Raft_Large_Weights.DEFAULT (= C_T_SKHT_V2)

DEFAULT_BATCH_SIZE = 8


def build_raft_large() -> torch.nn.Module:
    """The RAFT-large architecture with random weights (nothing downloaded)."""
    return raft_large(weights=None, progress=False)


def resolve_raft(explicit_path: Optional[str] = None, checkpoint_dir: Optional[str] = None,
                 offline: bool = False) -> resolver.ResolvedCheckpoint:
    """Finds the official RAFT-large weights; see metrics.checkpoints.resolver.resolve.

    Raises:
        resolver.CheckpointUnavailable: Missing or not the pinned file; the
            message holds the command that fetches it.
    """
    return resolver.resolve(RAFT_LARGE, explicit_path=explicit_path,
                            checkpoint_dir=checkpoint_dir, offline=offline)


def load_raft(checkpoint_path, device) -> torch.nn.Module:
    """Loads a RAFT-large state dict (strictly) into the architecture, in eval mode.

    Args:
        checkpoint_path: A torchvision-style .pth file holding the state dict,
            e.g. `resolve_raft().path`.
        device: torch.device or device string the model is moved to.

    Returns:
        The model, in eval mode, on `device`.

    Raises:
        RuntimeError: If the keys or shapes do not match RAFT-large.
    """
    model = build_raft_large()
    state = state_dict.read_state_dict(checkpoint_path)
    model.load_state_dict(state, strict=True)
    return model.to(device).eval()


def raft_flow_batch(model: torch.nn.Module, images1: torch.Tensor,
                    images2: torch.Tensor) -> torch.Tensor:
    """Runs RAFT on a batch as the official code does, one model call for the batch.

    Args:
        model: A RAFT model (eval mode), on the device of the images.
        images1: (B, 3, H, W) RGB float tensor in [0, 1], the first frames.
        images2: Same shape, the second frames.

    Returns:
        (B, 2, H, W) float tensor: the last of RAFT's predictions (default
        number of updates), computed on replicate-padded inputs and cropped
        to H x W. Channel 0 is x (u), channel 1 is y (v); pixel (x, y) of the
        first frame moves to (x + u, y + v) in the second.
    """
    height, width = images1.shape[-2:]
    with torch.no_grad():
        predictions = model(tensors.pad_to_multiple(images1), tensors.pad_to_multiple(images2))
    return predictions[-1][:, :, :height, :width]


class RaftFlow:
    """A warp-error smoothness flow function backed by RAFT (the official backend).

    Calling it with a list of (frame_a, frame_b) BGR uint8 pairs returns their
    flows as a (P, 2, H, W) float32 tensor on the model's device, computed in
    batches of at most `batch_size` pairs per model call. RAFT treats every
    sample of a batch independently (instance norm in the feature encoder,
    eval-mode batch norm in the context encoder, per-sample correlation), so
    batching gives the per-pair numbers up to float rounding.

    Attributes:
        name: "raft-large".
        official: True: this is the official backend.
    """

    name = BACKEND_NAME
    official = True

    def __init__(self, model: torch.nn.Module, device, batch_size: int = DEFAULT_BATCH_SIZE):
        if batch_size <= 0:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        self._model = model
        self._device = torch.device(device)
        self._batch_size = batch_size

    def __call__(self, pairs: Sequence[Tuple[np.ndarray, np.ndarray]]) -> torch.Tensor:
        if not pairs:
            raise ValueError("expected at least one frame pair")
        flows = []
        for start in range(0, len(pairs), self._batch_size):
            chunk = pairs[start:start + self._batch_size]
            images1 = tensors.to_unit_rgb(np.stack([a for a, _ in chunk]), self._device)
            images2 = tensors.to_unit_rgb(np.stack([b for _, b in chunk]), self._device)
            flows.append(raft_flow_batch(self._model, images1, images2))
        return torch.cat(flows)
