"""The pinned checkpoints of the VideoMAE v2 family (the convention: metrics/checkpoints)."""

from metrics.checkpoints import resolver

# VideoMAE v2 ViT-g/14 with a 5-way classification head (what run_class_finetuning.py's
# --finetune would load), as GD-ML/VMBench ships it (no revision or digest: unpinned).
VIT_G_CAS = resolver.CheckpointSpec(
    name="vmbench_vit_g_cas", filename="vit_g_vmbench.pt", hf_repo="GD-ML/VMBench",
    license="MIT (OpenGVLab/VideoMAEv2 code); the weights' licence is not stated",
    approx_size_bytes=4_046_471_188)
