"""Deterministic full-size DroidNet weights and inputs for the parity check against the
official network (the official side was run outside the repository:
testdata/droid_net_official.json says how)."""

import torch

from metrics.slam import droid_net

IMAGE_SHAPE = (1, 3, 3, 64, 96)  # B, N, C, H, W: a 8 x 12 feature grid
II, JJ = (0, 1, 1, 2, 0), (1, 0, 2, 1, 2)


def write_checkpoint(path) -> None:
    """Seeded random full-size weights in droid.pth's format (3-channel heads, "module.")."""
    torch.manual_seed(0)
    state = {}
    for key, value in droid_net.DroidNet().state_dict().items():
        if key in droid_net.HEAD_KEYS:
            value = torch.cat([value, torch.randn((1,) + tuple(value.shape[1:]))])
        state[droid_net.PREFIX + key] = value
    torch.save(state, path)


def tensors():
    """(images 0..255 BGR, corr features, motion, ii, jj) for extract_features + update."""
    gen = torch.Generator().manual_seed(1)
    images = torch.randint(0, 256, IMAGE_SHAPE, generator=gen).float()
    h, w = IMAGE_SHAPE[3] // 8, IMAGE_SHAPE[4] // 8
    corr = torch.randn((1, len(II), 196, h, w), generator=gen)
    motion = torch.randn((1, len(II), 4, h, w), generator=gen) * 3
    return images, corr, motion, torch.tensor(II), torch.tensor(JJ)


def summary(t: torch.Tensor) -> dict:
    t = t.double()
    return {"shape": list(t.shape), "sum": float(t.sum()), "abs_sum": float(t.abs().sum()),
            "first": t.flatten()[:6].tolist()}
