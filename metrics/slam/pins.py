"""The pinned checkpoints of the DROID-SLAM family (the convention: metrics/checkpoints)."""

from metrics.checkpoints import resolver

# droid.pth on Google Drive (`gdown 1PpqVt1H4maBa_GbPJp4NwxRsd9jk-elh`, the id DROID-SLAM's
# README links). No digest is stated, so none is pinned; the size is estimated from the
# official state dict (4,002,565 float32 tensors' values of DroidNet plus the third output
# channel of the two heads the official loader drops: 4,004,871 values x 4 bytes).
DRIVE_ID = "1PpqVt1H4maBa_GbPJp4NwxRsd9jk-elh"
DROID_PTH = resolver.CheckpointSpec(
    name="droid_slam", filename="droid.pth",
    url=f"https://drive.google.com/uc?id={DRIVE_ID}",  # no "&": the command stays one shell word
    license="BSD-3-Clause (princeton-vl/DROID-SLAM)", approx_size_bytes=16_019_484)
