"""A tiny random DroidNet saved in droid.pth's format, for tests of the real loader."""

import torch

from metrics.slam import droid_net

TINY = droid_net.DroidNetConfig(encoder_dim=4, feature_dim=8, hidden_dim=8, flow_dims=(8, 4))


def official_format_state(net: droid_net.DroidNet, seed: int = 0) -> dict:
    """net's weights as droid.pth stores them: "module." keys and 3-channel delta/weight
    output convs (a random third channel, which the loader must drop)."""
    gen = torch.Generator().manual_seed(seed)
    state = {}
    for key, value in net.state_dict().items():
        if key in droid_net.HEAD_KEYS:
            extra = torch.randn((1,) + tuple(value.shape[1:]), generator=gen) * 100
            value = torch.cat([value, extra.to(value.dtype)])
        state[droid_net.PREFIX + key] = value.clone()
    return state


def save_tiny(path, seed: int = 0) -> droid_net.DroidNet:
    """A random tiny DroidNet (eval mode), saved to `path` in the official format."""
    torch.manual_seed(seed)
    net = droid_net.DroidNet(TINY).eval()
    torch.save(official_format_state(net, seed), path)
    return net
