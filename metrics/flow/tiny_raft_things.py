"""Random `raft-things.pth` files in the official layout (tests only).

testdata/raft_things_keys.txt lists every key and shape of the official full-size
checkpoint (weight-free, see its header). `write_official_file` fills it with random
tensors, each norm3 the same tensor as its downsample.1 (as the official module saves
it), and torch.saves the dict, for load_raft_things to read as it reads the real file.
"""

import pathlib

import torch

KEYS = pathlib.Path(__file__).parent / "testdata" / "raft_things_keys.txt"


def official_layout() -> dict:
    """{official key: shape} of the full-size raft-things.pth."""
    layout = {}
    for line in KEYS.read_text().splitlines():
        if line.startswith("#"):
            continue
        key, shape = line.split()
        layout[key] = () if shape == "scalar" else tuple(int(s) for s in shape.split(","))
    return layout


def random_official_state(seed: int = 11) -> dict:
    """Random tensors in the official layout (running_var positive, norm3 = downsample.1)."""
    gen = torch.Generator().manual_seed(seed)
    layout = official_layout()
    state = {}
    for key, shape in layout.items():
        if key.endswith("num_batches_tracked"):
            state[key] = torch.tensor(3)
        elif ".norm3." not in key:
            state[key] = torch.randn(shape, generator=gen) * 0.05
            if key.endswith("running_var"):
                state[key] = state[key].abs() + 0.5
    for key in [k for k in layout if ".norm3." in k]:
        state[key] = state[key.replace(".norm3.", ".downsample.1.")]
    return state


def write_official_file(path, seed: int = 11) -> dict:
    """torch.saves random_official_state(seed) to `path`; returns the state."""
    state = random_official_state(seed)
    torch.save(state, str(path))
    return state
