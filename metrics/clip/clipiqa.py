"""CLIP-IQA+ as pyiqa's `create_metric("clipiqa+")`, per frame.

pyiqa (`pyiqa/archs/clipiqa_arch.py` CLIPIQA(model_type="clipiqa+", backbone="RN50",
pos_embedding=False), read at pyiqa 0.1.16 and at the older revision that hard-coded
the GitHub release URL; both agree on everything below):

* CLIP RN50 with OpenAI's weights, built by open_clip (metrics.clip.openai_clip), always
  float32;
* input: RGB in [0, 1] at its own size (no resize, no crop), normalised with the OpenAI
  CLIP mean/std; the ResNet's attention pool runs without positional embedding;
* text: `PromptLearner`. The prompts "X X ... X Good photo.." and "X ... X Bad photo.."
  (16 "X") are tokenized by OpenAI's BPE (`clip.tokenize`, context 77) and embedded;
  each prompt becomes [SOT] + ctx[:8] + the 3 tokens "good|bad", "photo", ".." + ctx[8:]
  + [EOT, padding], ctx being the learned context of
  CLIP-IQA+_learned_prompts-603f3273.pth: (16, 512) shared by both prompts, or
  (2, 16, 512) one per prompt (PromptLearner takes both; secondary sources describe
  the released file as 16 x 512, not seen here); then the text transformer, pooled at
  the EOT position of the *original* token ids (unchanged by the splice: 1 + 16 + 3);
* score: `softmax(exp(logit_scale) * norm(img) @ norm(txt).T)` over the (good, bad)
  pair, probability of "good" (pyiqa reshapes to (N, pairs, 2) and averages the one pair).

The token ids of the two prompts are constants here (PROMPT_TOKENS): they are what
OpenAI's tokenizer (`clip/simple_tokenizer.py` with bpe_simple_vocab_16e6.txt.gz, as
shipped by the openai-clip package pyiqa depends on) gives for these fixed strings,
read off that tokenizer once: "x</w>" 343, "good</w>" 886, "bad</w>" 2103,
"photo</w>" 1125, "..</w>" 852, SOT 49406, EOT 49407; zero padding. No vocabulary file
is needed at run time. (transformers' CLIPTokenizer for openai/clip-vit-* gives the same
BPE ids but pads with EOT instead of 0: harmless under the causal mask, yet not the
official tensor; the constants avoid both the difference and a download.)

Frames go `batch_size` at a time (equal to one call per frame up to float rounding);
how a benchmark reduces a clip's frame scores is the benchmark's.
"""

import dataclasses
import pickle
from typing import List, Sequence

import numpy as np
import torch

from metrics import device as device_lib
from metrics.checkpoints import resolver
from metrics.clip import openai_clip
from metrics.video import sampling

CLIP_RN50 = resolver.CheckpointSpec(
    name="openai_clip_rn50",
    filename="RN50.pt",
    url=("https://openaipublic.azureedge.net/clip/models/"
         "afeb0e10f9e5a86da6080e35cf09123aca3b358a0c3e3b6c78a7b63bc04b6762/RN50.pt"),
    sha256="afeb0e10f9e5a86da6080e35cf09123aca3b358a0c3e3b6c78a7b63bc04b6762",
    license="MIT",
)

# Current pyiqa (0.1.16 read) fetches it from this Hugging Face repository (older
# versions: the GitHub release v0.1-weights of chaofengc/IQA-PyTorch, same file name). The "-603f3273" suffix
# follows the torch.hub <name>-<sha256 prefix> convention, but pyiqa never checks it and
# it could not be verified here, so the file is not pinned: its digest is recorded.
CLIPIQA_PLUS_PROMPTS = resolver.CheckpointSpec(
    name="clipiqa_plus_prompts",
    filename="CLIP-IQA+_learned_prompts-603f3273.pth",
    hf_repo="chaofengc/IQA-PyTorch-Weights",
    license="PolyForm-Noncommercial-1.0.0 (pyiqa) / S-Lab-1.0 (CLIP-IQA)",
)

OPENAI_CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
OPENAI_CLIP_STD = (0.26862954, 0.26130258, 0.27577711)
CONTEXT_LENGTH = 77
N_CTX = 16
NAME_LEN = 3  # "good|bad", "photo", ".." (pyiqa's hard-coded name_lens)
SOT, EOT = 49406, 49407
PROMPT_TOKENS = (  # [SOT, "x" * 16, class words, EOT], zero-padded to 77 by prompt_token_ids
    (SOT,) + (343,) * N_CTX + (886, 1125, 852, EOT),   # "X ... X Good photo.."
    (SOT,) + (343,) * N_CTX + (2103, 1125, 852, EOT),  # "X ... X Bad photo.."
)
DEFAULT_BATCH_SIZE = 8


def _pyiqa_cudnn_flags():
    """pyiqa's InferenceModel.forward runs every metric under these cuDNN settings."""
    return torch.backends.cudnn.flags(enabled=True, benchmark=False, deterministic=True)


def prompt_token_ids() -> torch.Tensor:
    """clip.tokenize of the two prompts: (2, 77) int64, zero-padded."""
    ids = torch.zeros(len(PROMPT_TOKENS), CONTEXT_LENGTH, dtype=torch.long)
    for row, tokens in enumerate(PROMPT_TOKENS):
        ids[row, :len(tokens)] = torch.tensor(tokens)
    return ids


def load_learned_context(path) -> torch.Tensor:
    """The learned context: a torch-saved (16, width) or (2, 16, width) tensor, as float32.

    Raises:
        ValueError: Not a torch file, not a tensor, or not 16 context vectors.
    """
    try:
        ctx = torch.load(str(path), map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, EOFError, RuntimeError) as e:
        raise ValueError(f"{path}: not a readable torch file ({e})") from e
    if not torch.is_tensor(ctx):
        raise ValueError(f"{path}: expected a tensor of learned prompts, found "
                         f"{type(ctx).__name__}")
    if ctx.dim() not in (2, 3) or ctx.shape[-2] != N_CTX or (ctx.dim() == 3 and ctx.shape[0] != 2):
        raise ValueError(f"{path}: expected ({N_CTX}, width) or (2, {N_CTX}, width) learned "
                         f"prompts, found shape {tuple(ctx.shape)}")
    return ctx.float()


def prompt_embeddings(token_embedding: torch.Tensor, ctx: torch.Tensor) -> torch.Tensor:
    """PromptLearner.get_prompts_with_middle_class: (2, 77, width) prompt embeddings.

    Args:
        token_embedding: (vocab, width) token embedding table.
        ctx: (16, width) or (2, 16, width) learned context.
    """
    embedded = token_embedding[prompt_token_ids().to(token_embedding.device)]
    ctx = ctx.to(embedded)
    if ctx.dim() == 2:
        ctx = ctx.unsqueeze(0).expand(len(PROMPT_TOKENS), -1, -1)
    prefix, suffix = embedded[:, :1], embedded[:, 1 + N_CTX:]
    half = N_CTX // 2
    return torch.cat([prefix, ctx[:, :half], suffix[:, :NAME_LEN], ctx[:, half:],
                      suffix[:, NAME_LEN:]], dim=1)


@dataclasses.dataclass
class ClipIqaModel:
    """The RN50 image tower, the two prompts' text features and CLIP's logit scale."""

    clip: torch.nn.Module  # open_clip.model.CLIP (see metrics.clip.openai_clip)
    text_features: torch.Tensor  # (2, embed_dim), unnormalised: good, bad
    device: torch.device


def build_clipiqa(clip: torch.nn.Module, ctx: torch.Tensor) -> ClipIqaModel:
    """Computes the two prompts' text features once (PromptLearner.forward) on clip's device.

    Raises:
        ValueError: The learned context's width is not the text tower's.
    """
    width = clip.token_embedding.weight.shape[1]
    if ctx.shape[-1] != width:
        raise ValueError(f"learned prompts are {ctx.shape[-1]}-d, the CLIP text tower is "
                         f"{width}-d")
    device = clip.token_embedding.weight.device
    with torch.no_grad():
        prompts = prompt_embeddings(clip.token_embedding.weight, ctx.to(device))
        text_features = openai_clip.encode_embeddings(clip, prompts,
                                                      prompt_token_ids().to(device))
    return ClipIqaModel(clip, text_features, device)


def load_clipiqa(rn50_path, prompts_path, device) -> ClipIqaModel:
    """Loads RN50.pt and the learned prompts onto `device`.

    Raises:
        ValueError: A file that is unreadable or does not fit (see openai_clip).
    """
    clip = openai_clip.load_openai_clip(rn50_path, device)
    try:
        return build_clipiqa(clip, load_learned_context(prompts_path))
    except ValueError as e:
        raise ValueError(f"{prompts_path}: {e}") from e


def good_probability(image_features: torch.Tensor, text_features: torch.Tensor,
                     logit_scale: torch.Tensor) -> torch.Tensor:
    """CLIP.forward + CLIPIQA.forward after the towers: (N, E), (2, E), () -> (N,)."""
    image_features = image_features / image_features.norm(dim=-1, keepdim=True)
    text_features = text_features / text_features.norm(dim=-1, keepdim=True)
    logits = logit_scale.exp() * image_features @ text_features.t()
    probs = logits.reshape(logits.shape[0], -1, 2).softmax(dim=-1)
    return probs[..., 0].mean(dim=1)


def frames_to_pixels(frames_bgr: Sequence[np.ndarray]) -> torch.Tensor:
    """torchvision ToTensor of each frame's RGB, stacked: (N, 3, H, W) float32 in [0, 1].

    Raises:
        ValueError: No frames, or frames that are not (H, W, 3) uint8 of one size.
    """
    frames = [np.asarray(f) for f in frames_bgr]
    if not frames:
        raise ValueError("expected at least one frame")
    for frame in frames:
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"expected (H, W, 3) uint8 BGR frames, got {frame.shape} "
                             f"{frame.dtype}")
        if frame.shape != frames[0].shape:
            raise ValueError(f"frames differ in size: {frame.shape} vs {frames[0].shape}")
    rgb = np.ascontiguousarray(np.stack(frames)[..., ::-1])
    return torch.from_numpy(rgb).permute(0, 3, 1, 2).float().div(255)


def normalize(pixels: torch.Tensor) -> torch.Tensor:
    """CLIPIQA.forward's first step: (x - OpenAI mean) / OpenAI std, per channel."""
    mean = torch.tensor(OPENAI_CLIP_MEAN, dtype=torch.float32).view(1, 3, 1, 1).to(pixels)
    std = torch.tensor(OPENAI_CLIP_STD, dtype=torch.float32).view(1, 3, 1, 1).to(pixels)
    return (pixels - mean) / std


def frame_scores(frames_bgr: Sequence[np.ndarray], model: ClipIqaModel,
                 batch_size: int = DEFAULT_BATCH_SIZE) -> List[float]:
    """pyiqa's clipiqa+ output for each frame (not clipped), batch_size frames per call."""
    if batch_size <= 0:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    scores: List[float] = []
    for start in range(0, len(frames_bgr), batch_size):
        pixels = device_lib.to_device(frames_to_pixels(frames_bgr[start:start + batch_size]),
                                     model.device)
        with torch.no_grad(), _pyiqa_cudnn_flags():
            features = openai_clip.image_features(model.clip, normalize(pixels))
            probs = good_probability(features, model.text_features, model.clip.logit_scale)
        scores += [float(p) for p in probs.cpu()]
    return scores


def strided_frame_scores(frames_bgr: Sequence[np.ndarray], sample_step: int,
                         model: ClipIqaModel,
                         batch_size: int = DEFAULT_BATCH_SIZE) -> sampling.FrameScores:
    """The outputs (not clipped) for frames 0, step, 2*step, ... (iter_indices(0, N-1, step)).

    Raises:
        ValueError: If sample_step is not a positive int.
    """
    indices = sampling.iter_indices(0, len(frames_bgr) - 1, sample_step, len(frames_bgr))
    if not indices:
        return sampling.FrameScores([], [])
    return sampling.FrameScores(
        indices, frame_scores([frames_bgr[i] for i in indices], model, batch_size))
