"""GroundingDINO's text side as the official code computes it, inside transformers' model.

transformers 5.18's GroundingDinoModel.forward departs from the official code in two
places on the text path, both of which move every output:

- `generate_masks_with_special_tokens_and_transfer_map` gives each delimiter token
  position 0 instead of its place in its phrase ("red sphere." -> 0 0 1 0 0, officially
  0 0 1 2 0); the position ids feed BERT and the text position embedding.
- `encode_sinusoidal_position_embedding` returns the input's dtype, so the long text
  position ids get an int64 embedding (sines and cosines truncated to 0 or 1).

`official_text_in_transformers()` swaps in the official versions for the duration of a
forward call (module globals; not thread-safe across concurrent forwards).
"""

import contextlib
from typing import Tuple

import torch
from transformers.models.grounding_dino import modeling_grounding_dino


def official_text_masks(input_ids: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """The official `generate_masks_with_special_tokens_and_transfer_map` (bertwarper.py).

    Each run of tokens up to and including a delimiter ([CLS], [SEP], ".", "?") attends
    within itself, with position ids 0, 1, ... counted from the previous delimiter; the
    first and last token attend to themselves with position 0. (As in the official loop,
    the previous delimiter is not reset between rows of a batch.)

    transformers 5.18's vectorised version gives the delimiter itself position 0 instead
    of its place in the run ("red sphere." -> 0 0 1 0 0, officially 0 0 1 2 0), which
    moves BERT's output and the text position embedding; GroundingDino.forward uses this
    one (grounding_dino_test pins the difference).

    Returns:
        (attention mask (B, N, N) bool, position ids (B, N) long).
    """
    batch, length = input_ids.shape
    special = torch.isin(input_ids, torch.tensor(modeling_grounding_dino.SPECIAL_TOKENS,
                                                 device=input_ids.device))
    mask = torch.eye(length, device=input_ids.device).bool().unsqueeze(0).repeat(batch, 1, 1)
    positions = torch.zeros((batch, length), dtype=torch.long, device=input_ids.device)
    previous = 0
    for row, col in torch.nonzero(special).tolist():
        if col in (0, length - 1):
            mask[row, col, col] = True
            positions[row, col] = 0
        else:
            mask[row, previous + 1:col + 1, previous + 1:col + 1] = True
            positions[row, previous + 1:col + 1] = torch.arange(0, col - previous)
        previous = col
    return mask, positions


def _float_positions(theirs):
    """transformers' sine embedding, computed from float positions.

    transformers 5.18's `encode_sinusoidal_position_embedding` returns its result in the
    input's dtype, so the long text position ids get an int64 embedding (every sine and
    cosine truncated to 0 or 1); the official `get_sine_pos_embed` keeps float32. Float
    inputs (the query boxes) are passed through unchanged.
    """
    def embed(positions, *args, **kwargs):
        if not positions.is_floating_point():
            positions = positions.float()
        return theirs(positions, *args, **kwargs)
    return embed


@contextlib.contextmanager
def official_text_in_transformers():
    """transformers' GroundingDinoModel.forward with the official text masks, position
    ids and float text position embedding (two transformers 5.18 deviations)."""
    masks, sine = ("generate_masks_with_special_tokens_and_transfer_map",
                   "encode_sinusoidal_position_embedding")
    theirs = {name: getattr(modeling_grounding_dino, name) for name in (masks, sine)}
    setattr(modeling_grounding_dino, masks, official_text_masks)
    setattr(modeling_grounding_dino, sine, _float_positions(theirs[sine]))
    try:
        yield
    finally:
        for name, function in theirs.items():
            setattr(modeling_grounding_dino, name, function)
