"""The ViCLIP network (OpenGVLab InternVideo, InternVid ViCLIP-L/14), our own code.

What text-video alignment scripts run (InternVideo Data/InternVid/viclip, also vendored
as third_party/ViCLIP by evaluation code that scores ViCLIP cosines):
`encode_vision(frames, test=True)` and `encode_text(caption)`, then the cosine of the two
normalised embeddings. Parameter names and shapes are the official ones, so
`ViClip-InternVid-10M-FLT.pth` loads unchanged (metrics/viclip/loader.py).

Vision tower (`vision_encoder.*`), for a (B, T, 3, 224, 224) clip, T = num_frames = 8:
* `conv1`: Conv3d(3, width, kernel = stride = (1, 14, 14), no bias), so every frame is
  patchified on its own into a 16 x 16 grid.
* Each frame's tokens get a class token (`class_embedding`) and the spatial
  `positional_embedding` (grid**2 + 1 rows). The patch tokens then also get the
  `temporal_positional_embedding` (1, num_frames, width) of their frame (its mean over
  frames for a single-frame input); the class token gets none and only one class token
  (the first frame's, identical in every frame) is kept.
* Joint space-time attention: ONE sequence [cls, patches ordered patch-major,
  frame-minor] of 1 + T * grid**2 tokens through `ln_pre` and `layers` pre-LN CLIP blocks
  with no mask (metrics/clip/clip_text.ResidualAttentionBlock: same module names).
* `ln_post` on the class token, `@ proj` (width x embed_dim).
  Off at eval, so absent here: DropPath (rate 0.1 upstream, the tower is put in eval()),
  dropout (0), the 90% token masking of training (`test=True` skips it), activation
  checkpointing (no numerical effect).
Text tower (`text_encoder.*`): OpenAI CLIP's text transformer (metrics/clip/clip_text.py,
same key names) with a 32-token causal context: `token_embedding`, `positional_embedding`
(32 rows in the checkpoint, the context used), `ln_final`, the state at the eot token
(`argmax` of the ids: eot 49407 is the largest id) `@ text_projection`.
`temp` (the contrastive temperature, 1/100 init) is in the checkpoint but unused by a
cosine; we keep it only so the state dict loads strictly.

Parity (upstream_parity_test.py, recomputed in CI): the official modules (Miradata 7ad0579
third_party/ViCLIP) at the official depth, patch, frame and token counts but width 128 (2
heads), seeded random weights saved in the official {'model': state_dict} format and read
by our loader: our tokens, vision and text embeddings and cosines against the stored
official outputs (testdata/viclip_upstream.json; max |diff| 0.0 when recorded). A
full-size comparison was recorded once (testdata/viclip_parity.json), not recomputed.
"""

import dataclasses

import torch
from torch import nn

from metrics.clip import clip_text


@dataclasses.dataclass(frozen=True)
class ViClipConfig:
    """Sizes of a ViCLIP; the defaults are ViClip-InternVid-10M-FLT (ViT-L/14 + CLIP text)."""

    image_size: int = 224
    patch_size: int = 14
    num_frames: int = 8
    vision_width: int = 1024
    vision_layers: int = 24
    vision_heads: int = 16
    embed_dim: int = 768
    context_length: int = 32
    vocab_size: int = 49408
    text_width: int = 768
    text_layers: int = 12
    text_heads: int = 12


VICLIP_L14 = ViClipConfig()


class VisionTower(nn.Module):
    """ViCLIP's video encoder: per-frame patches, one joint space-time transformer."""

    def __init__(self, config: ViClipConfig):
        super().__init__()
        width, patch = config.vision_width, config.patch_size
        grid = config.image_size // patch
        self.conv1 = nn.Conv3d(3, width, (1, patch, patch), (1, patch, patch), bias=False)
        self.class_embedding = nn.Parameter(torch.zeros(width))
        self.positional_embedding = nn.Parameter(torch.zeros(grid * grid + 1, width))
        self.temporal_positional_embedding = nn.Parameter(torch.zeros(1, config.num_frames, width))
        self.ln_pre = nn.LayerNorm(width)
        self.transformer = clip_text.Transformer(width, config.vision_layers, config.vision_heads)
        self.ln_post = nn.LayerNorm(width)
        self.proj = nn.Parameter(torch.zeros(width, config.embed_dim))

    def forward(self, video: torch.Tensor) -> torch.Tensor:
        """(B, T, 3, H, W) normalised frames -> (B, embed_dim) unnormalised embeddings."""
        patches = self.conv1(video.permute(0, 2, 1, 3, 4))            # (B, C, T, g, g)
        batch, width, frames = patches.shape[:3]
        patches = patches.flatten(3).permute(0, 3, 2, 1)              # (B, g*g, T, C)
        patches = patches + self.positional_embedding[1:].to(patches.dtype)[None, :, None]
        temporal = self.temporal_positional_embedding.to(patches.dtype)
        if frames == 1:
            temporal = temporal.mean(1, keepdim=True)
        patches = patches + temporal[:, None]                         # frame t's row
        cls = (self.class_embedding + self.positional_embedding[0]).to(patches.dtype)
        x = torch.cat([cls.expand(batch, 1, width), patches.reshape(batch, -1, width)], dim=1)
        x = self.ln_pre(x).permute(1, 0, 2)                           # sequence first
        for block in self.transformer.resblocks:
            x = block(x, None)                                        # full attention
        return self.ln_post(x[0]) @ self.proj


class TextTower(nn.Module):
    """ViCLIP's text encoder: CLIP's causal text transformer over a 32-token context."""

    def __init__(self, config: ViClipConfig):
        super().__init__()
        width = config.text_width
        self.token_embedding = nn.Embedding(config.vocab_size, width)
        self.positional_embedding = nn.Parameter(torch.zeros(config.context_length, width))
        self.transformer = clip_text.Transformer(width, config.text_layers, config.text_heads)
        self.ln_final = nn.LayerNorm(width)
        self.text_projection = nn.Parameter(torch.zeros(width, config.embed_dim))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """(B, context) token ids (sot ... eot, zero-padded) -> (B, embed_dim)."""
        return clip_text.encode_embeddings(
            self.token_embedding(tokens), tokens.argmax(dim=-1), self.positional_embedding,
            self.transformer, self.ln_final, self.text_projection)


class ViClip(nn.Module):
    """The two towers under the official prefixes, plus the (unused) temperature."""

    def __init__(self, config: ViClipConfig = VICLIP_L14):
        super().__init__()
        self.config = config
        self.vision_encoder = VisionTower(config)
        self.text_encoder = TextTower(config)
        self.temp = nn.Parameter(torch.tensor(0.01))

    @torch.no_grad()
    def encode_vision(self, video: torch.Tensor) -> torch.Tensor:
        """(B, T, 3, H, W) -> (B, embed_dim) float32, unnormalised."""
        if video.shape[1] != self.config.num_frames:
            raise ValueError(f"ViCLIP takes {self.config.num_frames} frames, got {video.shape[1]}")
        return self.vision_encoder(video).float()

    @torch.no_grad()
    def encode_text(self, tokens: torch.Tensor) -> torch.Tensor:
        """(B, context_length) ids -> (B, embed_dim) float32, unnormalised."""
        if tokens.shape[-1] != self.config.context_length:
            raise ValueError(f"ViCLIP's context is {self.config.context_length} tokens, got "
                             f"{tokens.shape[-1]}")
        return self.text_encoder(tokens.long()).float()


def cosine(video_embedding: torch.Tensor, text_embedding: torch.Tensor) -> torch.Tensor:
    """Row-wise cos of the L2-normalised embeddings (the official score, no scale)."""
    video = video_embedding / video_embedding.norm(dim=-1, keepdim=True)
    text = text_embedding / text_embedding.norm(dim=-1, keepdim=True)
    return (video * text).sum(-1)
