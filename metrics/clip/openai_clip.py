"""Loading OpenAI's CLIP ResNet checkpoints (RN50.pt) the way pyiqa's `clip_model.load` does.

OpenAI publishes RN50 as a TorchScript archive
(openaipublic.azureedge.net/clip/models/<sha256>/RN50.pt, its sha256 in the path).
pyiqa (`pyiqa/archs/clip_model.py`, a copy of OpenAI's `clip.load` with jit=False):

1. tries `torch.jit.load(file, map_location="cpu").state_dict()`, and falls back to
   `torch.load(file)` for a plain state dict;
2. `build_model` reads the architecture off the tensor shapes: stage depths from the
   `visual.layer{1..4}.<i>` indices, width from `visual.layer1.0.conv1.weight`,
   embed_dim from `text_projection`, context length / vocabulary / text width from
   `positional_embedding`, `token_embedding.weight`, `ln_final.weight`; heads are
   width * 32 // 64 (vision) and width // 64 (text); text depth counts
   `transformer.resblocks.<i>`; `input_resolution`, `context_length`, `vocab_size`
   entries are dropped;
3. `convert_weights` turns Conv/Linear weights and biases, attention in-projections and
   `text_projection` into float16 *before* `load_state_dict` (strict), and `model.float()`
   (device "cpu", which pyiqa's CLIP-IQA always loads on) makes everything float32 again.
   Those tensors therefore hold float16-rounded values whatever the file stores; the
   others (BatchNorm, LayerNorm, embeddings, logit_scale) keep the file's values.

This module does the same into metrics.clip.modified_resnet / clip_text modules keyed
like OpenAI's model, so a strict load proves every tensor found its place. BatchNorm's
`num_batches_tracked` may be absent (it is unused in eval mode). Only ResNet towers are
supported (a ViT checkpoint has `visual.proj` and is refused).
"""

import pickle
import re
import warnings

import torch
from torch import nn

from metrics.clip import clip_text
from metrics.clip import modified_resnet

_METADATA_KEYS = ("input_resolution", "context_length", "vocab_size")
_OPTIONAL_SUFFIX = "num_batches_tracked"


class OpenAIClipResNet(nn.Module):
    """OpenAI's CLIP model with a ResNet tower; attribute names are the checkpoint's keys."""

    def __init__(self, vision_layers, vision_width: int, num_positions: int, embed_dim: int,
                 context_length: int, vocab_size: int, text_width: int, text_layers: int):
        super().__init__()
        self.visual = modified_resnet.ModifiedResNet(
            vision_layers, vision_width, embed_dim, heads=vision_width * 32 // 64,
            num_positions=num_positions)
        self.transformer = clip_text.Transformer(text_width, text_layers, text_width // 64)
        self.token_embedding = nn.Embedding(vocab_size, text_width)
        self.positional_embedding = nn.Parameter(torch.zeros(context_length, text_width))
        self.ln_final = nn.LayerNorm(text_width)
        self.text_projection = nn.Parameter(torch.zeros(text_width, embed_dim))
        self.logit_scale = nn.Parameter(torch.zeros([]))

    def encode_embeddings(self, prompts: torch.Tensor, eot_index: torch.Tensor) -> torch.Tensor:
        """Text features of (P, L, width) prompt embeddings, pooled at eot_index."""
        return clip_text.encode_embeddings(prompts, eot_index, self.positional_embedding,
                                           self.transformer, self.ln_final, self.text_projection)


def read_state_dict(path) -> dict:
    """The tensors of a TorchScript archive (OpenAI's format) or of a torch-saved state dict.

    Raises:
        ValueError: Neither format, or not a mapping of tensors.
    """
    try:
        with warnings.catch_warnings():  # torch 2.x flags TorchScript as deprecated; it loads
            warnings.simplefilter("ignore", FutureWarning)
            state = torch.jit.load(str(path), map_location="cpu").state_dict()
    except RuntimeError:
        try:
            state = torch.load(str(path), map_location="cpu", weights_only=True)
        except (pickle.UnpicklingError, EOFError, RuntimeError) as e:
            raise ValueError(f"{path}: neither a TorchScript archive nor a torch state dict "
                             f"({type(e).__name__}: {str(e)[:200]})") from e
    if not isinstance(state, dict) or not all(torch.is_tensor(v) for v in state.values()):
        raise ValueError(f"{path}: expected a state dict of tensors, found {type(state).__name__}")
    return {k: v for k, v in state.items() if k not in _METADATA_KEYS}


def _count_indices(state: dict, prefix: str) -> int:
    pattern = re.compile(re.escape(prefix) + r"(\d+)\.")
    return len({m.group(1) for k in state for m in [pattern.match(k)] if m})


def build_from_state_dict(state: dict) -> OpenAIClipResNet:
    """An OpenAIClipResNet shaped like `state` (random weights), as build_model infers it.

    Raises:
        ValueError: A ViT checkpoint, or tensors missing for the inference.
    """
    if "visual.proj" in state:
        raise ValueError("a CLIP ViT checkpoint (visual.proj); CLIP-IQA+ needs a ResNet (RN50)")
    try:
        layers = tuple(_count_indices(state, f"visual.layer{b}.") for b in (1, 2, 3, 4))
        return OpenAIClipResNet(
            vision_layers=layers,
            vision_width=state["visual.layer1.0.conv1.weight"].shape[0],
            num_positions=state["visual.attnpool.positional_embedding"].shape[0],
            embed_dim=state["text_projection"].shape[1],
            context_length=state["positional_embedding"].shape[0],
            vocab_size=state["token_embedding.weight"].shape[0],
            text_width=state["ln_final.weight"].shape[0],
            text_layers=_count_indices(state, "transformer.resblocks."))
    except KeyError as e:
        raise ValueError(f"not an OpenAI CLIP ResNet checkpoint: no tensor {e}") from e


def half_rounded_tensors(model: OpenAIClipResNet):
    """The tensors pyiqa's convert_weights holds in float16 while loading (see module doc)."""
    for module in model.modules():
        if isinstance(module, (nn.Conv2d, nn.Linear)):
            yield from (t for t in (module.weight, module.bias) if t is not None)
        elif isinstance(module, nn.MultiheadAttention):
            yield from (t for t in (module.in_proj_weight, module.in_proj_bias) if t is not None)
    yield model.text_projection


def load_openai_clip(path, device) -> OpenAIClipResNet:
    """Loads RN50.pt (or another OpenAI CLIP ResNet file) as pyiqa does; eval, float32.

    Raises:
        ValueError: Unreadable file, a ViT, or tensors that do not fit (missing,
            unexpected or misshapen).
    """
    state = read_state_dict(path)
    model = build_from_state_dict(state)
    expected = model.state_dict()
    state = {k: v.float() if v.is_floating_point() else v for k, v in state.items()}
    for key in expected:
        if key.endswith(_OPTIONAL_SUFFIX) and key not in state:
            state[key] = expected[key]
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as e:
        raise ValueError(f"{path}: does not fit an OpenAI CLIP ResNet: {str(e)[:400]}") from e
    with torch.no_grad():
        for tensor in half_rounded_tensors(model):
            tensor.copy_(tensor.half().float())
    model.requires_grad_(False)
    return model.to(torch.device(device)).eval()
