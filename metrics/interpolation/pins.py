"""The pinned checkpoints of the VFIMamba interpolation family (the convention:
metrics/checkpoints)."""

from metrics.checkpoints import resolver

# The official VFIMamba checkpoint, checkpoints/VFIMamba.pkl (hub MCG-NJU/VFIMamba_ckpts,
# folder ckpt/). Not pinned: no digest known offline. The size is estimated from the
# official model's 66,070,921 float32 tensors.
VFIMAMBA = resolver.CheckpointSpec(
    name="vfimamba", filename="ckpt/VFIMamba.pkl", hf_repo="MCG-NJU/VFIMamba_ckpts",
    license="Apache-2.0 (MCG-NJU/VFIMamba)", approx_size_bytes=264_283_684)
