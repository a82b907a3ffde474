"""Gram-matrix style distance on VGG19 features (Gatys et al.), pre-ReLU conv outputs.

The model is torchvision's VGG19 `features` (`torchvision.models.vgg.make_layers` of
configuration "E": 16 3x3 convs with ReLU, 5 max-pools), loaded from torchvision's own
weight file (`vgg19-dcbb9e9d.pth`, keys `features.N.weight|bias` and `classifier.*`)
unchanged: the `features.*` tensors must match the architecture exactly
(load_state_dict strict on them); `classifier.*` is not part of the feature extractor
and is ignored. `widths` lets tests build the same layer graph with few channels.

`style_distance(ref, gen)` reproduces the neural-style-transfer tutorial's StyleLoss:
both images (N=1, [0, 1] RGB tensors) are normalised with the ImageNet mean/std, run
through the convs in order; after each of the first `layers` convs (conv_1 = conv1_1,
conv_2 = conv1_2, conv_3 = conv2_1, ...) and BEFORE its ReLU, the Gram matrix
`F F^T / (a b c d)` of the (a, b, c, d) feature map is taken, and the distance is the
sum over those layers of `mse(G_gen, G_ref)` (torch's mean-reduced MSE). The ReLUs are
applied out of place, so the captured conv outputs are not overwritten.
"""

from typing import List, Sequence

import torch
import torch.nn.functional as F
from torch import nn
from torchvision.models import vgg as tv_vgg

from metrics.checkpoints import state_dict

VGG19_CFG = (64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M",
             512, 512, 512, 512, "M")
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
STYLE_LAYERS = 5  # conv_1 .. conv_5


def config(widths: Sequence[int] = (64, 128, 256, 512)) -> List[object]:
    """VGG19's layer list with the per-stage widths replaced (64, 128, 256, 512, 512)."""
    stage = dict(zip((64, 128, 256, 512), widths))
    return [v if v == "M" else stage[v] for v in VGG19_CFG]


def build_features(widths: Sequence[int] = (64, 128, 256, 512)) -> nn.Sequential:
    return tv_vgg.make_layers(config(widths), batch_norm=False)


def load_features(path, device, widths: Sequence[int] = (64, 128, 256, 512)) -> nn.Sequential:
    """VGG19 `features` from a torchvision vgg19 state dict file, in eval mode.

    Raises:
        ValueError: Not a readable torch state dict, or `features.*` tensors that do
            not match the architecture.
    """
    state = state_dict.load(path)
    if not isinstance(state, dict):
        raise ValueError(f"{path}: expected a VGG19 state dict, found {type(state).__name__}")
    features = {k[len("features."):]: v for k, v in state.items() if k.startswith("features.")}
    model = build_features(widths)
    try:
        model.load_state_dict(features, strict=True)
    except RuntimeError as e:
        raise ValueError(f"{path}: the features.* tensors do not fit VGG19 ({e})") from e
    return model.to(device).eval()


def gram_matrix(feature: torch.Tensor) -> torch.Tensor:
    a, b, c, d = feature.size()
    flat = feature.view(a * b, c * d)
    return torch.mm(flat, flat.t()).div(a * b * c * d)


def _normalise(image: torch.Tensor) -> torch.Tensor:
    mean = torch.tensor(IMAGENET_MEAN, device=image.device).view(-1, 1, 1)
    std = torch.tensor(IMAGENET_STD, device=image.device).view(-1, 1, 1)
    return (image - mean) / std


def style_grams(features: nn.Sequential, image: torch.Tensor,
                layers: int = STYLE_LAYERS) -> List[torch.Tensor]:
    """The Gram matrices of the first `layers` conv outputs (pre-ReLU) of `image`
    ((1, 3, H, W) in [0, 1])."""
    grams, x = [], _normalise(image)
    with torch.no_grad():
        for layer in features.children():
            if isinstance(layer, nn.ReLU):
                x = F.relu(x)
                continue
            x = layer(x)
            if isinstance(layer, nn.Conv2d):
                grams.append(gram_matrix(x))
                if len(grams) == layers:
                    break
    return grams


def style_distance(features: nn.Sequential, reference: torch.Tensor, generated: torch.Tensor,
                   layers: int = STYLE_LAYERS) -> float:
    """Sum over the style layers of mse(Gram(generated), Gram(reference))."""
    ref = style_grams(features, reference, layers)
    gen = style_grams(features, generated, layers)
    total = 0
    for g, r in zip(gen, ref):
        total += F.mse_loss(g, r)
    return float(total)
