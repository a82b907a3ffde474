"""The pinned checkpoints of the optical-flow family (the convention: metrics/checkpoints)."""

from metrics.checkpoints import resolver
from metrics.checkpoints import zip_member

# torchvision's Raft_Large_Weights.DEFAULT (= C_T_SKHT_V2); the file name carries
# the first 8 hex digits of its sha256, which the resolver checks.
RAFT_LARGE = resolver.CheckpointSpec(
    name="raft_large",
    filename="raft_large_C_T_SKHT_V2-ff5fadd5.pth",
    url="https://download.pytorch.org/models/raft_large_C_T_SKHT_V2-ff5fadd5.pth",
    sha256="ff5fadd5",
    license="BSD-3-Clause (torchvision)",
)

# princeton-vl RAFT raft-things.pth. Upstream ships it only inside models.zip (RAFT
# download_models.sh, the URL VBench-style code wgets); the resolver downloads single
# files, so this spec's fetch command unzips the member.
RAFT_THINGS = zip_member.ZipMemberSpec(
    name="raft_things", filename="raft-things.pth",
    archive_url="https://dl.dropboxusercontent.com/s/4j4z58wuv8o0mfz/models.zip",
    member="models/raft-things.pth",
    license="BSD-3-Clause (princeton-vl/RAFT)", approx_size_bytes=21_045_384)

# SEA-RAFT Tartan-C-T-TSKH-spring540x960-M (SEA-RAFT's Google Drive release);
# SEA-RAFT's README gives this hub repository as the same model through
# huggingface_hub's mixin (config.json + the weights). Not pinned: no digest known offline.
SEA_RAFT_SPRING_M = resolver.CheckpointSpec(
    name="sea_raft_spring_m", filename="config.json",
    hf_repo="MemorySlices/Tartan-C-T-TSKH-spring540x960-M", snapshot=True,
    license="BSD-3-Clause (princeton-vl/SEA-RAFT)", approx_size_bytes=78_746_640)
