"""Step 1 family: ImageRewardScore (ImageReward-v1.0 on 5 frames with the clip's prompt).

The prompt follows run_eval.py (benchmarks.memobench.prompts): synthetic clips from
--prompt_src_syn, else the phase sheet's prompt column; real clips only from
--prompt_src_real. A clip without a prompt gets no value (an empty CSV cell, as
upstream) and its reason in the sample's `unavailable`.
"""

import pathlib
from typing import Optional, Tuple

from benchmarks.memobench import prompts as prompts_lib
from benchmarks.common import checkpoint_refs
from benchmarks.common import model_recipe
from benchmarks.common import sample_batch
from benchmarks.common import scorecard as card_lib
from benchmarks.common import calibration
from benchmarks.memobench.step1 import family
from benchmarks.memobench.step1 import visual_quality
from metrics.checkpoints import resolver
from proto import scorecard_pb2

METRIC = "ImageRewardScore"
BACKEND_NAME = "image-reward-v1.0"
IMAGE_EMBEDS = "ImageRewardScore:image_embeds"  # the shared rows' name (ctx.shared)
CHECKPOINT_ID = "THUDM/ImageReward (ImageReward.pt, med_config.json) + bert-base-uncased vocab.txt"
_NOTE = ("BLIP ViT-L/16 + BERT cross-encoder + MLP rebuilt on transformers' BlipVisionModel / "
         "BlipTextModel from ImageReward.pt's keys (metrics/imagereward); the 5 sampled frames "
         "share one batched call (upstream: one call per frame); with --sample_batch the image "
         "tower's calls are shared across clips, the text encoder runs per clip")


def backend(note: str = "") -> scorecard_pb2.Backend:
    return scorecard_pb2.Backend(name=BACKEND_NAME, official=True, checkpoint_id=CHECKPOINT_ID,
                                 note=_NOTE + (f"; {note}" if note else ""),
                                 parity=calibration.parity(BACKEND_NAME))


def _path(value: Optional[str]) -> Optional[pathlib.Path]:
    return pathlib.Path(value) if value else None


def build(settings) -> Tuple[Optional[family.Family], Optional[Tuple[str, scorecard_pb2.Backend]]]:
    """(family, None) when ImageReward loads, else (None, (reason, backend)).

    Raises:
        InputError: --prompt_src_syn / --prompt_src_real names a file that does not exist.
    """
    sources = prompts_lib.load_prompt_sources(_path(settings.prompt_src_syn),
                                              _path(settings.prompt_src_real))
    card_backend = backend(sources.describe())
    try:
        from metrics.imagereward import reward_model  # pylint: disable=import-outside-toplevel
        found = [checkpoint_refs.resolve(spec, settings, METRIC) for spec in (
            reward_model.IMAGE_REWARD, reward_model.MED_CONFIG, reward_model.BERT_VOCAB)]
        paths = [f.path for f, _ in found]
        # Loaded now in a local run; on Ray by each actor, on its device.
        model = model_recipe.prepared(
            lambda device: reward_model.load_image_reward(*paths, device), settings.device,
            "image_reward")
    except (resolver.CheckpointUnavailable, ValueError, OSError) as e:
        return None, (f"ImageReward (THUDM/ImageReward) unavailable: {e}", card_backend)

    def compute(ctx: family.ClipContext) -> family.FamilyResult:
        prompt, origin = sources.prompt_for(ctx.gt.split, ctx.gt.clip_id, ctx.gt.prompt)
        if not visual_quality.has_prompt(prompt):
            # run_eval.py leaves ImageRewardScore None too when a clip has no prompt.
            return family.FamilyResult({METRIC: None},
                                       {METRIC: f"{card_lib.OFFICIAL_GAP}no prompt: {origin}"})
        return family.FamilyResult({METRIC: visual_quality.image_reward(
            ctx.frames, prompt, model.get(), embeds=ctx.shared.get(IMAGE_EMBEDS)).score})

    def frames(loaded):
        """The clip's sampled frames, for the image tower's shared calls (none: no prompt)."""
        prompt, _ = sources.prompt_for(loaded.gt.split, loaded.gt.clip_id, loaded.gt.prompt)
        if not visual_quality.has_prompt(prompt):
            raise ValueError("no prompt")  # compute says so
        indices = visual_quality.image_reward_indices(len(loaded.frames))
        return [loaded.frames[i] for i in indices]

    def embeds(frames):
        from metrics.imagereward import scoring  # pylint: disable=import-outside-toplevel
        return scoring.image_embeds(model.get(), frames).cpu().numpy()

    # Each frame is resized and cropped to the ViT's input by the transform: any sizes.
    call = sample_batch.FrameCall(IMAGE_EMBEDS, frames, embeds)
    return family.FunctionFamily("image_reward", (METRIC,), compute, card_backend,
                                 tuple(ref for _, ref in found),
                                 frame_calls=lambda step: [call]), None
