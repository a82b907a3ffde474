"""The pinned checkpoints of the point-tracking family (the convention: metrics/checkpoints)."""

from metrics.checkpoints import resolver

# CoTracker2 online: torch.hub.load("facebookresearch/co-tracker", "cotracker2_online").
COTRACKER2 = resolver.CheckpointSpec(
    name="cotracker2", filename="cotracker2.pth", hf_repo="facebook/cotracker",
    license="CC-BY-NC 4.0 (facebookresearch/co-tracker)")
