"""The seeded RAFT weights of the VBench dynamic_degree parity check (torch only, so that
the scratch run of official_runs/vbench_motion_musiq.py builds the same tensors).

metrics.flow.tiny_raft_things' full-size random state gives flows of hundreds of pixels,
and 20 recurrent updates of such a network are chaotic: on 2026-12-08 the flows of one
clip moved by 3.0e-2 relative between oneDNN's AVX-512 and AVX2 kernels
(ONEDNN_MAX_CPU_ISA=AVX2), so a record made on one CPU would not hold on another. With
the flow head's last convolution scaled by FLOW_HEAD_GAIN the flows are a few pixels
(mean 6.4, top 5% 18 on the check's clip) and the two kernels differ by 1.3e-6 relative:
float rounding, not chaos.
"""

import torch

from metrics.flow import tiny_raft_things

FLOW_HEAD_GAIN = 0.03
_FLOW_HEAD = "module.update_block.flow_head.conv2."


def raft_state(seed: int) -> dict:
    """tiny_raft_things.random_official_state(seed), flow head output scaled by the gain."""
    state = tiny_raft_things.random_official_state(seed)
    for part in ("weight", "bias"):
        state[_FLOW_HEAD + part] = state[_FLOW_HEAD + part] * FLOW_HEAD_GAIN
    return state


def write_raft(path, seed: int) -> dict:
    """torch.saves raft_state(seed) to `path` (the official raft-things.pth layout)."""
    state = raft_state(seed)
    torch.save(state, str(path))
    return state
