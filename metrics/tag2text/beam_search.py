"""Beam search as transformers 4.33.2 runs it for Tag2Text's captioner (the version VBench
pins: Vchitect/VBench@45e79ec requirements.txt `transformers==4.33.2`;
`GenerationMixin.beam_search` with `BeamSearchScorer`, length_penalty 1.0,
early_stopping False, one hypothesis kept), written here from that behaviour:

* beams start at scores (0, -1e9, -1e9, ...) per batch item;
* each step: log-softmax of the last position's logits; the eos logit set to -inf while
  the sequence (prompt included) is shorter than `min_length`; the repetition penalty
  (a no-op at 1.0, applied anyway); plus the beam's running score; the top 2 x beams over
  (beam, token) per item, in descending order;
* walking those candidates in order: an eos candidate among the first `beams` closes a
  hypothesis (the sequence without the eos) scored sum / its length; an eos ranked lower
  is skipped; any other token continues a beam, until `beams` beams are filled;
* an item is done once it holds `beams` hypotheses and its worst is >= the best
  candidate score / (current length + 1); a done item's rows continue with pad tokens;
* the search stops when every item is done or the sequences reach `max_length`; the
  open beams of unfinished items are then added as hypotheses (score / length);
* the best hypothesis (highest score; the later added on a tie) is returned; sequences
  are padded with pad to the longest + 1 (at most max_length), and a sequence shorter
  than that gets the eos after its last token.

`step(input_ids) -> logits (rows, length, vocab)` is called on the whole prefix at
every step (no cache), as upstream's decoder runs.
"""

import dataclasses
from typing import Callable, List, Tuple

import torch
from torch.nn import functional as F

INITIAL_OTHER_BEAM_SCORE = -1e9


@dataclasses.dataclass(frozen=True)
class Settings:
    num_beams: int
    max_length: int
    min_length: int
    repetition_penalty: float
    eos_token_id: int
    pad_token_id: int


@dataclasses.dataclass
class _Hypotheses:
    beams: int
    entries: List[Tuple[float, torch.Tensor]] = dataclasses.field(default_factory=list)
    worst: float = 1e9

    def add(self, tokens: torch.Tensor, sum_logprobs: float) -> None:
        score = sum_logprobs / tokens.shape[-1]
        if len(self.entries) < self.beams or score > self.worst:
            self.entries.append((score, tokens))
            if len(self.entries) > self.beams:
                ranked = sorted((s, i) for i, (s, _) in enumerate(self.entries))
                del self.entries[ranked[0][1]]
                self.worst = ranked[1][0]
            else:
                self.worst = min(score, self.worst)

    def is_done(self, best_sum_logprobs: float, length: int) -> bool:
        return len(self.entries) >= self.beams and self.worst >= best_sum_logprobs / length


def _repetition_penalty(input_ids: torch.Tensor, scores: torch.Tensor,
                        penalty: float) -> torch.Tensor:
    seen = torch.gather(scores, 1, input_ids)
    seen = torch.where(seen < 0, seen * penalty, seen / penalty)
    return scores.scatter(1, input_ids, seen)


def search(step: Callable[[torch.Tensor], torch.Tensor], input_ids: torch.Tensor,
           settings: Settings) -> Tuple[torch.Tensor, List[float]]:
    """Best sequence per batch item, (items, length) int64, prompt included, and its
    score (sum of log-probabilities / length: 4.33.2's `sequences_scores`).

    Args:
      step: the decoder on (items * beams, length) ids; beam rows of an item adjacent.
      input_ids: (items * beams, prompt length), each item's prompt repeated per beam.
    """
    beams = settings.num_beams
    rows = input_ids.shape[0]
    items = rows // beams
    beam_scores = torch.zeros(items, beams, dtype=torch.float, device=input_ids.device)
    beam_scores[:, 1:] = INITIAL_OTHER_BEAM_SCORE
    beam_scores = beam_scores.view(-1)
    hyps = [_Hypotheses(beams) for _ in range(items)]
    done = [False] * items
    while True:
        logits = step(input_ids)[:, -1, :]
        scores = F.log_softmax(logits, dim=-1)
        if input_ids.shape[-1] < settings.min_length:
            scores[:, settings.eos_token_id] = -float("inf")
        if settings.repetition_penalty != 1.0:
            scores = _repetition_penalty(input_ids, scores, settings.repetition_penalty)
        scores = scores + beam_scores[:, None].expand_as(scores)
        vocab = scores.shape[-1]
        top_scores, top = torch.topk(scores.view(items, beams * vocab), 2 * beams, dim=1,
                                     largest=True, sorted=True)
        top_beams = torch.div(top, vocab, rounding_mode="floor")
        top_tokens = top % vocab
        next_scores = torch.zeros(items, beams, dtype=top_scores.dtype)
        next_tokens = torch.zeros(items, beams, dtype=torch.long)
        next_rows = torch.zeros(items, beams, dtype=torch.long)
        length = input_ids.shape[-1] + 1
        for item in range(items):
            if done[item]:
                next_tokens[item, :] = settings.pad_token_id
                continue
            filled = 0
            for rank in range(2 * beams):
                token = int(top_tokens[item, rank])
                row = item * beams + int(top_beams[item, rank])
                if token == settings.eos_token_id:
                    if rank < beams:
                        hyps[item].add(input_ids[row].clone(), top_scores[item, rank].item())
                else:
                    next_scores[item, filled] = top_scores[item, rank]
                    next_tokens[item, filled] = token
                    next_rows[item, filled] = row
                    filled += 1
                if filled == beams:
                    break
            done[item] = done[item] or hyps[item].is_done(top_scores[item].max().item(),
                                                          length)
        beam_scores = next_scores.view(-1).to(input_ids.device)
        input_ids = torch.cat([input_ids[next_rows.view(-1).to(input_ids.device)],
                               next_tokens.view(-1, 1).to(input_ids.device)], dim=-1)
        if all(done) or input_ids.shape[-1] >= settings.max_length:
            break
    for item in range(items):
        if not done[item]:
            for b in range(beams):
                row = item * beams + b
                hyps[item].add(input_ids[row], beam_scores[row].item())
    winners = [sorted(h.entries, key=lambda e: e[0])[-1] for h in hyps]
    best = [tokens for _, tokens in winners]
    lengths = [len(b) for b in best]
    width = min(max(lengths) + 1, settings.max_length)
    out = input_ids.new_full((items, width), settings.pad_token_id)
    for i, tokens in enumerate(best):
        out[i, :lengths[i]] = tokens
        if lengths[i] < width:
            out[i, lengths[i]] = settings.eos_token_id
    return out, [score for score, _ in winners]
