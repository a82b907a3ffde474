"""The pinned checkpoints of the AMT frame-interpolation family (the convention:
metrics/checkpoints)."""

from metrics.checkpoints import resolver

# AMT-S (third_party/amt/cfgs/AMT-S.yaml).
AMT_S = resolver.CheckpointSpec(
    name="amt_s", filename="amt-s.pth", hf_repo="lalala125/AMT",
    license="CC-BY-NC-SA 4.0 (MCG-NKU/AMT)")
