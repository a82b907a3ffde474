"""The pinned checkpoints of the DINO (v1) family (the convention: metrics/checkpoints)."""

from metrics.checkpoints import resolver

# DINO ViT-B/16: torch.hub.load("facebookresearch/dino:main", "dino_vitb16"), whose hubconf
# loads this state dict (strict=True) into vit_base(patch_size=16).
DINO_VITB16 = resolver.CheckpointSpec(
    name="dino_vitb16", filename="dino_vitbase16_pretrain.pth",
    url="https://dl.fbaipublicfiles.com/dino/dino_vitbase16_pretrain/dino_vitbase16_pretrain.pth",
    license="Apache-2.0 (facebookresearch/dino)", approx_size_bytes=343_194_624)
