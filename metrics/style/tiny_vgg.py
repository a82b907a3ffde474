"""Test support: a narrow random VGG19 saved as torchvision's vgg19 weight file is.

Same layer graph as VGG19 `features` (configuration "E") with stage widths
TINY_WIDTHS, saved as a state dict keyed `features.N.weight|bias`, plus one small
`classifier.0.weight` tensor (torchvision's file carries the classifier too; the
loader ignores it).
"""

import pathlib

import torch

from metrics.style import gram

TINY_WIDTHS = (4, 6, 8, 8)


def write_vgg19(path, seed: int = 0) -> dict:
    """Saves a random tiny VGG19; returns the features' state dict (float32)."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    features = gram.build_features(TINY_WIDTHS)
    for module in features.modules():
        if isinstance(module, torch.nn.Conv2d):
            torch.nn.init.normal_(module.weight, std=0.3)
            torch.nn.init.normal_(module.bias, std=0.1)
    state = {f"features.{k}": v for k, v in features.state_dict().items()}
    torch.save(dict(state, **{"classifier.0.weight": torch.zeros(2, 3)}), path)
    return {k[len("features."):]: v for k, v in state.items()}
