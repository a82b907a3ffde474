"""MUSIQ no-reference image quality (Ke et al., ICCV 2021), loading pyiqa's checkpoints.

The network is the one pyiqa 0.1.16 builds as `pyiqa.archs.musiq_arch.MUSIQ` (its port
of google-research/musiq), written here with the same parameter names and shapes so an
official file (e.g. `musiq_spaq_ckpt-358bb6af.pth`) loads unchanged with strict=True:

- Stem per 32 x 32 patch: weight-standardised conv 7x7/2 (weights minus their mean over
  (in, kh, kw), divided by their unbiased std + 1e-5; TF "SAME" zero padding, no bias),
  GroupNorm(32, 64, eps 1e-6), ReLU, SAME-padded 3x3/2 max pool, then one bottleneck
  64 -> 256 (standardised 1x1, 3x3, 1x1 convs, GroupNorm eps 1e-4, ReLU; a standardised
  1x1 projection with its GroupNorm on the shortcut).
- The 8 x 8 x 256 map flattened channel-last (TensorFlow's order) -> `embedding` Linear.
- Encoder: + hashed spatial embedding (G*G table) + scale embedding, a zero-initialised
  class token in front (mask 1), 14 pre-norm blocks (LayerNorm eps 1e-6; 6-head attention
  with separate query/key/value/out Linears, scores * head_dim^-0.5 set to -1000 where
  query or key is padding, softmax; exact-GELU MLP 384 -> 1152 -> 384), final LayerNorm.
- Head on the class token: Linear(384, num_class). num_class 1 (the SPAQ/KonIQ files) is
  the score itself; num_class > 1 (AVA) is softmax then sum_k k * p_k (pyiqa's
  dist_to_mos, which is the identity for one class).

Input: RGB in [0, 1], float [N, 3, H, W]; `forward` maps it to [-1, 1] and builds the
multi-scale patch sequence (metrics/iqa/musiq_patches.py), as pyiqa's eval-mode forward
does. Dropout rates are 0 upstream, so train/eval mode changes nothing.

Checkpoint: pyiqa's load_pretrained_network reads the file as a plain state dict (no
`params` key), drops a leading "module." from each key and loads it strictly; so does
`load_musiq`. pyiqa downloads its weights with no digest check (hash_prefix=None), so
the 8 hex digits in the file name are not a checked digest.

Parity: pyiqa 0.1.16's full-size MUSIQ behind a torchvision Resize to a 512 px longer
side, on seeded random weights and synthetic frames (5 frames, 720x1280, 561x420,
200x300), gave the same scores as this module to max |diff| 0.0 in float32 on the CPU,
one frame per call, with either Resize flavour (metrics/iqa/testdata/musiq_parity.json,
which names the upstream code run); musiq_test.py checks the recorded scores again on
weights regenerated from the same seed.
"""

import dataclasses
import math
from typing import Sequence

import torch
from torch import nn
import torch.nn.functional as F

from metrics.checkpoints import state_dict
from metrics.iqa import musiq_patches

ROOT_WIDTH = 64
MASKED_SCORE = -1e3


@dataclasses.dataclass(frozen=True)
class MusiqConfig:
    """MUSIQ sizes; the defaults are pyiqa's MUSIQ(pretrained_model_path=...) ones."""

    patch_size: int = 32
    num_class: int = 1
    hidden_size: int = 384
    mlp_dim: int = 1152
    num_heads: int = 6
    num_layers: int = 14
    num_scales: int = 3
    grid_size: int = 10
    longer_sides: Sequence[int] = (224, 384)
    native_length: int = -1


SPAQ = MusiqConfig()


def _same_pad(x: torch.Tensor, kernel: int, stride: int) -> torch.Tensor:
    """Zero padding TensorFlow's "SAME" rule gives (the odd pixel at the bottom / right)."""
    pads = []
    for size in (x.shape[-1], x.shape[-2]):
        total = max((math.ceil(size / stride) - 1) * stride + kernel - size, 0)
        pads += [total // 2, total - total // 2]
    return F.pad(x, pads)


class StdConv(nn.Conv2d):
    """Weight-standardised convolution with SAME padding (no bias in MUSIQ)."""

    def forward(self, x):  # pylint: disable=arguments-renamed
        w = self.weight - self.weight.mean((1, 2, 3), keepdim=True)
        w = w / (w.std((1, 2, 3), keepdim=True) + 1e-5)
        return F.conv2d(_same_pad(x, self.kernel_size[0], self.stride[0]), w, self.bias,
                        self.stride)


class Bottleneck(nn.Module):
    """The one ResNet bottleneck (width = input width) after MUSIQ's stem."""

    def __init__(self, width: int, out: int):
        super().__init__()
        self.conv1, self.gn1 = StdConv(width, width, 1, bias=False), nn.GroupNorm(32, width, 1e-4)
        self.conv2, self.gn2 = StdConv(width, width, 3, bias=False), nn.GroupNorm(32, width, 1e-4)
        self.conv3, self.gn3 = StdConv(width, out, 1, bias=False), nn.GroupNorm(32, out, 1e-4)
        self.conv_proj = StdConv(width, out, 1, bias=False)
        self.gn_proj = nn.GroupNorm(32, out, 1e-4)

    def forward(self, x):
        shortcut = self.gn_proj(self.conv_proj(x))
        y = F.relu(self.gn1(self.conv1(x)))
        y = F.relu(self.gn2(self.conv2(y)))
        return F.relu(self.gn3(self.conv3(y)) + shortcut)


class Attention(nn.Module):
    """Multi-head self-attention; padding entries are scored MASKED_SCORE (not -inf)."""

    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value, self.out = (nn.Linear(dim, dim) for _ in range(4))

    def forward(self, x, mask):
        n, length, dim = x.shape

        def split(t):
            return t.reshape(n, length, self.heads, dim // self.heads).permute(0, 2, 1, 3)

        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = (q @ k.transpose(-2, -1)) * (dim // self.heads) ** -0.5
        pair = mask[:, None, :, None] & mask[:, None, None, :]
        weights = scores.masked_fill(~pair, MASKED_SCORE).softmax(-1)
        return self.out((weights @ v).transpose(1, 2).reshape(n, length, dim))


class Mlp(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(dim, hidden), nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class Block(nn.Module):
    def __init__(self, dim: int, mlp_dim: int, heads: int):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim, eps=1e-6), nn.LayerNorm(dim, eps=1e-6)
        self.attention = Attention(dim, heads)
        self.mlp = Mlp(dim, mlp_dim)

    def forward(self, x, mask):
        x = x + self.attention(self.norm1(x), mask)
        return x + self.mlp(self.norm2(x))


class _Table(nn.Module):
    """Holds one learned embedding table under the attribute name `name`."""

    def __init__(self, name: str, *shape: int):
        super().__init__()
        self.name = name
        setattr(self, name, nn.Parameter(torch.zeros(*shape)))


class Encoder(nn.Module):
    def __init__(self, config: MusiqConfig):
        super().__init__()
        dim = config.hidden_size
        self.posembed_input = _Table("position_emb", 1, config.grid_size ** 2, dim)
        self.scaleembed_input = _Table("scale_emb", config.num_scales, dim)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.encoder_norm = nn.LayerNorm(dim, eps=1e-6)
        self.transformer = nn.ModuleDict({
            f"encoderblock_{i}": Block(dim, config.mlp_dim, config.num_heads)
            for i in range(config.num_layers)})

    def forward(self, x, seq: musiq_patches.PatchSequence):
        x = x + self.posembed_input.position_emb[0][seq.spatial]
        x = x + self.scaleembed_input.scale_emb[seq.scale]
        x = torch.cat([self.cls.expand(len(x), -1, -1), x], 1)
        mask = torch.cat([seq.mask.new_ones((len(x), 1)), seq.mask], 1)
        for block in self.transformer.values():
            x = block(x, mask)
        return self.encoder_norm(x)


class Musiq(nn.Module):
    """MUSIQ; forward(rgb [N, 3, H, W] in [0, 1]) -> float [N] quality scores."""

    def __init__(self, config: MusiqConfig = SPAQ):
        super().__init__()
        if config.patch_size % 4 or config.num_class < 1:
            raise ValueError(f"unsupported MUSIQ config {config}")
        self.config = config
        self.conv_root = StdConv(3, ROOT_WIDTH, 7, 2, bias=False)
        self.gn_root = nn.GroupNorm(32, ROOT_WIDTH, eps=1e-6)
        self.block1 = Bottleneck(ROOT_WIDTH, 4 * ROOT_WIDTH)
        tokens = 4 * ROOT_WIDTH * (config.patch_size // 4) ** 2
        self.embedding = nn.Linear(tokens, config.hidden_size)
        self.transformer_encoder = Encoder(config)
        self.head = nn.Linear(config.hidden_size, config.num_class)
        if config.num_class > 1:  # pyiqa: Sequential(Linear, Softmax), keys head.0.*
            self.head = nn.Sequential(self.head, nn.Softmax(dim=-1))

    def sequence(self, rgb: torch.Tensor) -> musiq_patches.PatchSequence:
        c = self.config
        return musiq_patches.multiscale_sequence((rgb - 0.5) * 2, c.longer_sides, c.patch_size,
                                                 c.grid_size, c.native_length)

    def forward(self, rgb: torch.Tensor) -> torch.Tensor:  # pylint: disable=arguments-differ
        seq = self.sequence(rgb)
        n, length = seq.mask.shape
        p = self.config.patch_size
        x = F.relu(self.gn_root(self.conv_root(seq.pixels.reshape(n * length, 3, p, p))))
        x = F.max_pool2d(_same_pad(x, 3, 2), 3, 2)
        x = self.block1(x).permute(0, 2, 3, 1).reshape(n, length, -1)
        x = self.transformer_encoder(self.embedding(x), seq)
        q = self.head(x[:, 0])
        if self.config.num_class > 1:
            q = q * torch.arange(1, self.config.num_class + 1).to(q)
        return q.sum(-1)


def config_of(state: dict, num_heads: int = SPAQ.num_heads,
              longer_sides: Sequence[int] = SPAQ.longer_sides) -> MusiqConfig:
    """The MusiqConfig whose tensors have the shapes of `state` (a pyiqa MUSIQ state dict).

    A file does not record the head count or the scales' longer sides: those are given.

    Raises:
        ValueError: `state` lacks a MUSIQ tensor.
    """
    state = {k[len("module."):] if k.startswith("module.") else k: v for k, v in state.items()}
    enc = "transformer_encoder."
    head = state.get("head.weight", state.get("head.0.weight"))
    blocks = {k.split(".")[2] for k in state if k.startswith(enc + "transformer.")}
    try:
        hidden = state["embedding.weight"].shape[0]
        patch = 4 * int(round((state["embedding.weight"].shape[1] / 256) ** 0.5))
        return dataclasses.replace(
            SPAQ, patch_size=patch, num_class=head.shape[0], hidden_size=hidden,
            mlp_dim=state[enc + "transformer.encoderblock_0.mlp.fc1.weight"].shape[0],
            num_heads=num_heads, num_layers=len(blocks),
            num_scales=state[enc + "scaleembed_input.scale_emb"].shape[0],
            grid_size=int(round(state[enc + "posembed_input.position_emb"].shape[1] ** 0.5)),
            longer_sides=tuple(longer_sides))
    except (KeyError, AttributeError, IndexError) as e:
        raise ValueError(f"not a pyiqa MUSIQ state dict (missing {e})") from e


def load_musiq(checkpoint_path, device, config: MusiqConfig = SPAQ) -> Musiq:
    """Loads a pyiqa MUSIQ state dict strictly ("module." key prefixes dropped, as pyiqa does).

    Raises:
        ValueError: The file is not a torch state dict, or its tensors do not fit `config`.
    """
    state = state_dict.read_state_dict(checkpoint_path)
    state = {k[len("module."):] if k.startswith("module.") else k: v for k, v in state.items()}
    model = Musiq(config)
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as e:
        raise ValueError(f"{checkpoint_path}: does not fit MUSIQ {config}: {e}") from e
    return model.to(device).eval()


def shrink_longer_side(images: torch.Tensor, max_side: int = 512,
                       antialias: bool = False) -> torch.Tensor:
    """float [N, C, H, W] shrunk so max(H, W) <= max_side, as torchvision's Resize does it.

    The size is (int(s * H), int(s * W)) with s = max_side / max(H, W) (truncated, so the
    longer side is sometimes max_side - 1, e.g. 561 -> 511); the resize is bilinear
    (align_corners=False) on the float values as they are (no rounding or clamping).
    `antialias` is what Resize's default gives on a tensor: False up to torchvision 0.16,
    True from 0.17 (a benchmark says which its pinned version gives). Images no larger are
    returned as given.
    """
    h, w = images.shape[-2:]
    if max(h, w) <= max_side:
        return images
    s = max_side / max(h, w)
    return F.interpolate(images, size=(int(s * h), int(s * w)), mode="bilinear",
                         align_corners=False, antialias=antialias)


@torch.no_grad()
def frame_scores(model: Musiq, frames_rgb, max_side: int = 512, antialias: bool = False,
                 batch_size: int = 4):
    """float64 [T] MUSIQ scores of uint8 [T, H, W, 3] RGB frames.

    Each frame is converted to float (0-255), shrunk with `shrink_longer_side(max_side,
    antialias)` when its longer side exceeds `max_side` (None: never), divided by 255 and
    scored; frames go through the network `batch_size` at a time (one at a time upstream:
    float rounding).
    """
    device = next(model.parameters()).device
    scores = []
    for start in range(0, len(frames_rgb), batch_size):
        chunk = torch.as_tensor(frames_rgb[start:start + batch_size]).permute(0, 3, 1, 2)
        chunk = chunk.to(device=device, dtype=torch.float32)
        if max_side is not None:
            chunk = shrink_longer_side(chunk, max_side, antialias)
        scores.append(model(chunk / 255.0).double().cpu())
    return torch.cat(scores).numpy()
