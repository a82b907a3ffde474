"""Test helper: random weight files laid out like the real LPIPS (AlexNet) checkpoints."""

import pathlib

import torch
from torch import nn
import torchvision

from metrics.lpips import lpips


def write_random_checkpoints(root, seed=0):
    """Writes random AlexNet features and lin weights under `root`, as --checkpoint_dir wants.

    Files: <root>/alexnet/alexnet-owt-7be5be79.pth (keys `features.N.weight/bias`,
    torchvision's default initialisation) and <root>/lpips_alex_v0.1/alex.pth (the
    official keys LIN_KEYS, non-negative like the real lin weights).

    The draws are those of worldeval's former LPIPS module (the stored distances in
    testdata/ were computed on them): torchvision's AlexNet after torch.manual_seed(seed),
    then five 1x1 convolutions whose initialisation is thrown away, then the lin weights.

    Args:
        root: Folder to write into (created if needed).
        seed: Seed of torch's generator.

    Returns:
        (alexnet_path, lin_path) as pathlib.Paths.
    """
    root = pathlib.Path(root)
    torch.manual_seed(seed)
    alexnet = torchvision.models.alexnet(weights=None)
    features = {f"features.{k}": v.clone() for k, v in alexnet.features.state_dict().items()}
    for channels in lpips.CHANNELS:  # advances the generator as the former lin modules did
        nn.Conv2d(channels, 1, kernel_size=1, bias=False)
    lins = {key: torch.rand(1, channels, 1, 1)
            for key, channels in zip(lpips.LIN_KEYS, lpips.CHANNELS)}
    paths = []
    for spec, state in ((lpips.ALEXNET_SPEC, features), (lpips.LPIPS_ALEX_SPEC, lins)):
        path = root / spec.name / spec.filename
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save(state, path)
        paths.append(path)
    return tuple(paths)
