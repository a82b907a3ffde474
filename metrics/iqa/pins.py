"""The pinned checkpoints of the no-reference IQA family (the convention: metrics/checkpoints)."""

from metrics.checkpoints import resolver

# pyiqa MUSIQ with the SPAQ weights (pyiqa release v0.1-weights). Unpinned: "358bb6af"
# looks like torchvision's digest prefix, but pyiqa downloads with hash_prefix=None
# (utils/download_util.py, 0.1.16) and publishes no digest, so nothing says what it is.
# Size: 27,125,825 float32 tensors (metrics.iqa.musiq).
MUSIQ_SPAQ = resolver.CheckpointSpec(
    name="musiq_spaq", filename="musiq_spaq_ckpt-358bb6af.pth",
    url=("https://github.com/chaofengc/IQA-PyTorch/releases/download/v0.1-weights/"
         "musiq_spaq_ckpt-358bb6af.pth"),
    license="Apache-2.0 (google-research/musiq weights via pyiqa; not verified offline)",
    approx_size_bytes=108_503_300)
