"""The pinned checkpoints of the segmentation family: SAM 2.1 B+, SAM 3 (the convention:
metrics/checkpoints). A benchmark that ships its own copy of a file pins it itself."""

from metrics.checkpoints import resolver

# SAM 2.1 Hiera-B+ from Meta's hub repository (no digest published there; not pinned).
# Size estimated from the official state dict's float32 tensors.
SAM2_1_HIERA_B_PLUS = resolver.CheckpointSpec(
    name="sam2.1_hiera_base_plus", filename="sam2.1_hiera_base_plus.pt",
    hf_repo="facebook/sam2.1-hiera-base-plus", license="Apache-2.0 (facebookresearch/sam2)",
    approx_size_bytes=323_401_736)

# SAM 3 through transformers (a gated snapshot). Pinned by commit: 3c879f3 is the revision
# independent users pin (sam3.pt 9999e234... beside model.safetensors and its processor
# files in that snapshot); the hub's sha256 of model.safetensors is behind the gate and
# published nowhere found, so `tools:assets fetch` locks it on first download
# (metrics/checkpoints/lock.py): later runs verify it, but it is not digest-pinned.
SAM3 = resolver.CheckpointSpec(
    name="sam3",
    filename="model.safetensors",
    hf_repo="facebook/sam3",
    hf_revision="3c879f39826c281e95690f02c7821c4de09afae7",
    snapshot=True,
    license="SAM License (gated Hugging Face repository: accept its terms, then log in)",
)
