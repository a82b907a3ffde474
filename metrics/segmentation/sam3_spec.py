"""SAM-3's checkpoint and backend name, importable without torch (for runners and
runtime profiles); the model code is metrics/segmentation/sam3.py."""

from metrics.checkpoints import resolver

SAM3 = resolver.CheckpointSpec(
    name="sam3",
    filename="model.safetensors",
    hf_repo="facebook/sam3",
    hf_revision="main",
    snapshot=True,
    license="SAM License (gated Hugging Face repository: accept its terms, then log in)",
)

BACKEND_NAME = "sam3-transformers"
