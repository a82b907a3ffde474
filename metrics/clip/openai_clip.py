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

Here step 1 is ours (read_state_dict); steps 2 and 3 are open_clip's own
`open_clip.model.build_model_from_openai_state_dict(state, quick_gelu=True)` (the same
inference, convert_weights_to_fp16, then a strict load into `open_clip.model.CLIP`: its
ModifiedResNet and text Transformer have OpenAI's key names), followed by `.float()`.
BatchNorm's `num_batches_tracked` may be absent (it is unused in eval mode). Only ResNet
towers are supported (a ViT checkpoint has `visual.proj` and is refused).

Two things pyiqa's CLIP-IQA+ does that open_clip's forward methods do not:

* `image_features`: pyiqa runs the ResNet tower with `pos_embedding=False`, i.e. the
  attention pool without `attnpool.positional_embedding` (any input size works; the
  weight is loaded but unused). open_clip's AttentionPool2d always adds it, so the pool
  is called with a zero positional embedding of the input's length (x + 0 == x exactly)
  through torch.func.functional_call: open_clip's own pool, not a copy.
* `encode_embeddings`: the text tower starts from prompt embeddings (learned context
  spliced between token embeddings), not token ids: open_clip's `encode_text` minus its
  token-embedding lookup, pooled by open_clip's `text_global_pool` at the argmax of the
  original token ids (the first EOT).
"""

import pickle
import warnings

import torch
from torch import nn
from open_clip import model as open_clip_model
from open_clip import transformer as open_clip_transformer

IMPLEMENTATION = "open_clip 3.3.0 CLIP (ModifiedResNet + text Transformer, OpenAI keys)"
_METADATA_KEYS = ("input_resolution", "context_length", "vocab_size")
_OPTIONAL_SUFFIX = "num_batches_tracked"


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


def load_openai_clip(path, device) -> nn.Module:
    """Loads RN50.pt (or another OpenAI CLIP ResNet file) as pyiqa does; eval, float32.

    Returns:
        open_clip.model.CLIP, keyed like OpenAI's model.

    Raises:
        ValueError: Unreadable file, a ViT, or tensors that do not fit (missing,
            unexpected or misshapen).
    """
    state = read_state_dict(path)
    try:
        model = build_from_state_dict(state)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from e
    model.float().requires_grad_(False)
    return model.to(torch.device(device)).eval()


def build_from_state_dict(state: dict) -> nn.Module:
    """open_clip's CLIP shaped like `state` (OpenAI keys) holding its tensors, float16-rounded
    as OpenAI's convert_weights leaves them (the model's dtypes: call .float() after).

    Raises:
        ValueError: A ViT checkpoint, or tensors missing, unexpected or misshapen.
    """
    if "visual.proj" in state:
        raise ValueError("a CLIP ViT checkpoint (visual.proj); CLIP-IQA+ needs a ResNet (RN50)")
    state = dict(state)
    for key in [k for k in state if k.endswith(".running_mean")]:
        state.setdefault(key[:-len("running_mean")] + _OPTIONAL_SUFFIX,
                         torch.tensor(0, dtype=torch.long))
    try:
        return open_clip_model.build_model_from_openai_state_dict(state, quick_gelu=True)
    except KeyError as e:
        raise ValueError(f"not an OpenAI CLIP ResNet checkpoint: no tensor {e}") from e
    except (AssertionError, RuntimeError, IndexError) as e:
        raise ValueError(f"does not fit an OpenAI CLIP ResNet: "
                         f"{type(e).__name__}: {str(e)[:400]}") from e


def image_features(model: nn.Module, pixels: torch.Tensor) -> torch.Tensor:
    """The ResNet tower without positional embedding: (N, 3, H, W) normalised -> (N, E)."""
    visual = model.visual
    x = visual.stem(pixels.type(visual.conv1.weight.dtype))
    x = visual.layer4(visual.layer3(visual.layer2(visual.layer1(x))))
    return attention_pool(visual.attnpool, x)


def attention_pool(pool: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """open_clip's AttentionPool2d on (N, C, H, W) with a zero positional embedding."""
    zero = torch.zeros(x.shape[2] * x.shape[3] + 1, x.shape[1], dtype=x.dtype, device=x.device)
    return torch.func.functional_call(pool, {"positional_embedding": zero}, (x,))


def encode_embeddings(model: nn.Module, prompts: torch.Tensor,
                      token_ids: torch.Tensor) -> torch.Tensor:
    """Text features of (P, L, width) prompt embeddings, pooled at each row's argmax token."""
    x = prompts + model.positional_embedding.to(prompts.dtype)
    x = model.transformer(x, attn_mask=model.attn_mask)
    x = model.ln_final(x)
    pooled = open_clip_transformer.text_global_pool(x, token_ids, "argmax")
    return pooled @ model.text_projection
