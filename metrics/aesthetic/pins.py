"""The pinned checkpoints of the LAION aesthetic predictor (the convention:
metrics/checkpoints): the CLIP ViT-L/14 tower, the improved-aesthetic-predictor MLP head
and LAION-AI/aesthetic-predictor's v1 linear head. metrics/clip/aesthetic.py, the one
loader of all three, names them too (aesthetic.CLIP_VIT_L14, aesthetic.AESTHETIC_HEAD).
"""

from metrics.checkpoints import resolver

CLIP_VIT_L14 = resolver.CheckpointSpec(
    name="clip_vit_large_patch14",
    filename="model.safetensors",
    hf_repo="openai/clip-vit-large-patch14",
    snapshot=True,
    license="MIT",
)

# christophschuhmann/improved-aesthetic-predictor's MLP head (keys "layers.N.*").
AESTHETIC_HEAD = resolver.CheckpointSpec(
    name="laion_aesthetic_l14",
    filename="sac+logos+ava1-l14-linearMSE.pth",
    url=("https://github.com/christophschuhmann/improved-aesthetic-predictor/raw/main/"
         "sac+logos+ava1-l14-linearMSE.pth"),
    license="Apache-2.0",
)

# LAION-AI/aesthetic-predictor's linear head (nn.Linear(768, 1) state dict: weight, bias).
# Official code wgets ".../blob/main/sa_0_4_vit_l_14_linear.pth?raw=true"; GitHub serves
# the same file at /raw/main/ (no "?" for the shell to glob in the fetch command).
LAION_AESTHETIC_LINEAR = resolver.CheckpointSpec(
    name="laion_aesthetic_linear_l14", filename="sa_0_4_vit_l_14_linear.pth",
    url="https://github.com/LAION-AI/aesthetic-predictor/raw/main/sa_0_4_vit_l_14_linear.pth",
    license="MIT (LAION-AI/aesthetic-predictor)", approx_size_bytes=3_076)
