"""A VideoMAE v2 video classifier over test-time views: per-view logits and softmax.

As the official evaluation does it: the model in eval mode, on CUDA under fp16 autocast
(`torch.cuda.amp.autocast()`), the logits taken to float and softmaxed in float64 (the
official code writes the fp16 logits as text and applies scipy's softmax to the parsed
values). On CPU it runs in float32 (named by `precision`). Views go through in batches of
`batch_size`, so memory is bounded by one batch whatever the number of views.

Memory (measured on CPU, fp32, 2 threads; RSS peak above the loaded model): the tiny
test model (embed 32, 4 heads, 224 px) needs ~0.16 GB for a batch of 1 view and ~1.3 GB
for a batch of 10 (its 2048 x 2048 attention maps dominate). The ViT-g/14 CAS model has
1,011,617,797 parameters: 4.05 GB in float32, 2.02 GB in float16. One block at its full
width needs ~0.59 GB per view in a batch (measured, batch 1 and 2), so a batch of 10 views
is ~5.9 GB on top of the 4.05 GB of weights on CPU (~10 GB), at roughly 75 s per view on
two cores. On CUDA under fp16 autocast the weights stay float32 (4.05 GB) with fp16
copies made per batch (2.02 GB), and a batch of 10 needs an estimated ~4 GB more (not
measured here: no GPU in this session). `batch_size` trades this memory for time.
"""

import pathlib
from typing import Optional

import numpy as np
import torch

from metrics.videomae import checkpoint as checkpoint_lib
from metrics.videomae import vit

# The scorecard's name of this backend (architecture and head, not a benchmark).
BACKEND_NAME = "videomae-v2-vit-g14-5cls"


class Classifier:
    def __init__(self, model: vit.VideoClassifierViT, device: str = "cpu",
                 report: Optional[checkpoint_lib.LoadReport] = None):
        self.device = torch.device(device)
        self.model = model.to(self.device).eval()
        self.config = model.config
        self.report = report

    @property
    def precision(self) -> str:
        return "fp16 autocast (CUDA)" if self.device.type == "cuda" else "fp32"

    def logits(self, views: np.ndarray, batch_size: int = 10) -> np.ndarray:
        """(V, num_classes) float32 logits of (V, 3, frames, img, img) float32 views."""
        c = self.config
        views = np.asarray(views)
        if views.ndim != 5 or views.shape[1:] != (3, c.frames, c.img_size, c.img_size) \
                or views.dtype != np.float32:
            raise ValueError(f"expected float32 views (V, 3, {c.frames}, {c.img_size}, "
                             f"{c.img_size}), found {views.shape} {views.dtype}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, found {batch_size}")
        out = []
        with torch.no_grad():
            for start in range(0, len(views), batch_size):
                batch = torch.from_numpy(views[start:start + batch_size]).to(self.device)
                with torch.autocast("cuda", dtype=torch.float16,
                                    enabled=self.device.type == "cuda"):
                    logits = self.model(batch)
                out.append(logits.float().cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, c.num_classes), np.float32)

    def probabilities(self, views: np.ndarray, batch_size: int = 10) -> np.ndarray:
        """(V, num_classes) float64 softmax of each view's logits."""
        return softmax(self.logits(views, batch_size))


def softmax(logits: np.ndarray) -> np.ndarray:
    x = np.asarray(logits, np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def load_videomae_classifier(checkpoint_path, device: str = "cpu",
                             config: vit.VitConfig = vit.VIT_G_CAS,
                             model_key: str = "model|module") -> Classifier:
    """The classifier with `checkpoint_path`'s weights, loaded as the official fine-tuning
    code loads them (metrics/videomae/checkpoint.py). Built on the meta device and filled
    from the file, so no time goes into a random initialisation."""
    raw = checkpoint_lib.read_checkpoint(checkpoint_path)
    with torch.device("meta"):
        model = vit.VideoClassifierViT(config)
    model.to_empty(device=device)
    if not config.learnable_pos_embed:  # a buffer outside the state dict: rebuild it
        model.pos_embed = vit.sinusoid_table(config.num_patches, config.embed_dim).to(device)
    report = checkpoint_lib.load_official_state(model, raw, str(pathlib.Path(checkpoint_path)),
                                                model_key)
    return Classifier(model, device, report)


def random_classifier(config: vit.VitConfig = vit.VIT_G_CAS, seed: int = 0,
                      device: str = "cpu") -> Classifier:
    """The official script as shipped: the constructor's random weights (vit.random_init)."""
    return Classifier(vit.random_init(config, seed), device)
