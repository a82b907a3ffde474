"""LPIPS v0.1 (AlexNet) computed by the `lpips` package itself, on worldeval's files.

`lpips.LPIPS(net="alex")` would fetch torchvision's AlexNet through the torch hub and
read the lin layers with `load_state_dict(..., strict=False)` (a wrong file would load
nothing, silently). Here the package model is built with `pnet_rand=True` (no download)
and `model_path=<alex.pth>`, after both files are checked exactly as
`lpips.load_lpips_alex` checks them; the trunk tensors `features.<k>.*` of
`alexnet-owt-7be5be79.pth` are copied into the package's `net.slice<s>.<k>.*` (the same
modules: slice s holds AlexNet features[k] under the name str(k)). The frame glue
(GT resize, BGR -> RGB [-1, 1], batching) is `lpips.lpips_distance_pairs`, which calls
`PackageLpips` like our model.
"""

import torch
from torch import nn

from metrics.lpips import lpips as ours

# pylint: disable-next=protected-access
_SLICE_OF = {index: s + 1 for s, (start, stop) in enumerate(ours._SLICES)
             for index in range(start, stop)}


class PackageLpips(nn.Module):
    """The package's LPIPS with the call of our model: two (N, 3, H, W) RGB [-1, 1]
    batches -> (N,) distances."""

    def __init__(self, package_model: nn.Module):
        super().__init__()
        self.package_model = package_model

    def forward(self, images0, images1):  # pylint: disable=arguments-differ
        return self.package_model(images0, images1).flatten()


def trunk_key(torchvision_key: str) -> str:
    """`features.3.weight` -> `net.slice2.3.weight` (the package model's name)."""
    _, index, part = torchvision_key.split(".")
    return f"net.slice{_SLICE_OF[int(index)]}.{index}.{part}"


def load_package_lpips(alexnet_path, lin_path, device="cpu") -> PackageLpips:
    """`lpips.LPIPS(net="alex")` on the two weight files (see the module docstring).

    Raises:
        ValueError: A file is unreadable, or has missing, unexpected or wrongly shaped
            keys (the message names the file).
        ModuleNotFoundError: The lpips package is not installed.
    """
    import lpips as lpips_package  # pylint: disable=import-outside-toplevel  (optional backend)
    # pylint: disable=protected-access  (the checks of our own loader, shared)
    expected = ours.LearnedPerceptualImagePatchSimilarity()
    trunk = {f"features.{k}": v for k, v in expected.features.state_dict().items()}
    alexnet_state = ours._read_state_dict(alexnet_path)
    ours._check_state(alexnet_path, alexnet_state, trunk, ignored_prefix="classifier.")
    lin_state = ours._read_state_dict(lin_path)
    ours._check_state(lin_path, lin_state, dict(zip(ours.LIN_KEYS,
                                                    (l.weight for l in expected.lins))))
    model = lpips_package.LPIPS(net="alex", version="0.1", pretrained=True, pnet_rand=True,
                                model_path=str(lin_path), verbose=False)
    state = model.state_dict()
    with torch.no_grad():
        for key in trunk:
            state[trunk_key(key)].copy_(alexnet_state[key])
        for key in ours.LIN_KEYS:  # what strict=False loaded, checked
            if not torch.equal(state[key], lin_state[key]):
                raise ValueError(f"{lin_path}: {key} was not loaded by lpips.LPIPS")
    model.requires_grad_(False)
    return PackageLpips(model.eval()).to(torch.device(device)).eval()
