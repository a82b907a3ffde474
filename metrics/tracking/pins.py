"""The pinned checkpoints of the point-tracking family (the convention: metrics/checkpoints)."""

from metrics.checkpoints import resolver

# CoTracker2 online: torch.hub.load("facebookresearch/co-tracker", "cotracker2_online").
COTRACKER2 = resolver.CheckpointSpec(
    name="cotracker2", filename="cotracker2.pth", hf_repo="facebook/cotracker",
    license="CC-BY-NC 4.0 (facebookresearch/co-tracker)")

# CoTracker3 offline as GD-ML/VMBench ships it (no revision or digest given: unpinned).
COTRACKER3_OFFLINE = resolver.CheckpointSpec(
    name="vmbench_cotracker3_offline", filename="scaled_offline.pth", hf_repo="GD-ML/VMBench",
    license="CC-BY-NC 4.0 (facebookresearch/co-tracker)",
    approx_size_bytes=101_809_200)
