"""The pinned checkpoints of the Gram-matrix style family (the convention: metrics/checkpoints)."""

from metrics.checkpoints import resolver

# torchvision's VGG19 IMAGENET1K_V1 (the features metrics.style.gram reads).
VGG19 = resolver.CheckpointSpec(
    name="vgg19_imagenet1k_v1",
    filename="vgg19-dcbb9e9d.pth",
    url="https://download.pytorch.org/models/vgg19-dcbb9e9d.pth",
    sha256="dcbb9e9d",  # torchvision names the file by its sha256 prefix
    license="BSD-3-Clause (torchvision); weights: ImageNet terms",
)
