"""Random `amt-s.pth` files in the official layout and the parity inputs (tests only).

testdata/amt_s_keys.txt lists every key and shape of the official AMT-S state dict (dumped
from the upstream module, weight-free, see its header). `random_official_state(seed)`
fills it deterministically with torch's CPU generator, visiting the keys in sorted order:
conv/deconv weights N(0, 1) * 0.7 / sqrt(prod(shape[1:])), biases N(0, 0.02^2), PReLU
slopes 0.25 + N(0, 0.05^2) (gain 0.7: ~10% of the output clamped, flows ~0.4 px; gain 1
clamps half of it). `write_official_file` wraps the state as the official trainer saves
it ({'epoch', 'state_dict'}) for load_amt_s to read as it reads the real file.
`parity_pair(h, w)` is the synthetic frame pair of testdata/amt_s_parity.json.
"""

import math
import pathlib

import numpy as np
import torch

TESTDATA = pathlib.Path(__file__).parent / "testdata"
KEYS = TESTDATA / "amt_s_keys.txt"
PARITY = TESTDATA / "amt_s_parity.json"
WEIGHT_GAIN = 0.7


def official_layout() -> dict:
    """{official key: shape} of the AMT-S state dict."""
    layout = {}
    for line in KEYS.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        key, shape = line.split()
        layout[key] = tuple(int(s) for s in shape.split(","))
    return layout


def random_official_state(seed: int = 2023) -> dict:
    """Random tensors in the official layout (see module docstring)."""
    gen = torch.Generator().manual_seed(seed)
    state = {}
    for key, shape in sorted(official_layout().items()):
        noise = torch.randn(shape, generator=gen)
        if len(shape) > 1:
            state[key] = noise * WEIGHT_GAIN / math.sqrt(math.prod(shape[1:]))
        elif key.endswith("bias"):
            state[key] = noise * 0.02
        else:  # a PReLU's per-channel slope
            state[key] = 0.25 + noise * 0.05
    return state


def write_official_file(path, seed: int = 2023) -> dict:
    """torch.saves {'epoch': 0, 'state_dict': random_official_state(seed)}; returns the state."""
    state = random_official_state(seed)
    torch.save({"epoch": 0, "state_dict": state}, str(path))
    return state


def parity_pair(height: int, width: int):
    """Two [1, 3, H, W] float32 frames in [0, 1]: a smooth pattern and it moved by (2.5, -1.5)."""
    ys, xs = np.meshgrid(np.arange(height, dtype=np.float64), np.arange(width, dtype=np.float64),
                         indexing="ij")

    def pattern(dx, dy):
        x, y = xs - dx, ys - dy
        channels = [0.5 + 0.3 * np.sin(2 * np.pi * (x / 17.0 + y / 23.0) + phase)
                    + 0.15 * np.cos(2 * np.pi * x * y / (width * height) * 3.0 + 2 * phase)
                    for phase in (0.0, 1.0, 2.0)]
        return torch.from_numpy(np.stack(channels)[None].astype(np.float32))

    return pattern(0.0, 0.0), pattern(2.5, -1.5)


def sample_indices(height: int, width: int, count: int = 64):
    """Fixed (channel, y, x) positions spread over a frame, for the parity samples."""
    k = np.arange(count)
    return k % 3, (k * 37 + 5) % height, (k * 53 + 11) % width
