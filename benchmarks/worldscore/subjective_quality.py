"""subjective_quality: clip_iqa+ and clip_aesthetic on the anchor frames (spec §4.7).

Images as BaseMetric._process_image prepares them: each anchor frame (anchor_frame_idx,
frame 0 included) as a PIL RGB image, `transforms.Resize((512, 512))` (squashed,
bilinear) and ToTensor; each scored alone (`metric(img.unsqueeze(0)).item()`), the
instance score the mean over the frames.

* clip_iqa+: pyiqa `create_metric("clipiqa+")` = metrics.clip.clipiqa (CLIP RN50 at the
  image's own size, the learned prompts) on the 512x512 uint8 image: the same model and
  arithmetic pyiqa runs (as read at pyiqa 0.1.16; WorldScore pins no pyiqa version).
* clip_aesthetic: pyiqa `laion_aes` (archs/laion_aes_arch.py, read at pyiqa 0.1.16) on
  the 512x512 ToTensor image: `clip_preprocess_tensor` (torchvision tensor resize to
  224, bicubic, antialias=True; centre crop; OpenAI normalisation), OpenAI CLIP
  ViT-L/14 (QuickGELU) `encode_image`, `.float()`, L2 normalisation, the LAION MLP head
  = metrics.clip.aesthetic.tensor_scores on the same weights (transformers' converted
  openai/clip-vit-large-patch14). float32 on every device: pyiqa's `clip_model.to(x)`
  casts clip.load's float16 CUDA model to the float32 input's dtype.

Each image goes through the network alone, so with --sample_batch the anchor images of
several instances share one call per model (`frame_calls`; the batch's sums move the
scores by float rounding only).
"""

import functools

from benchmarks.common import calibration
from benchmarks.common import checkpoint_refs
from benchmarks.common import family
from benchmarks.common import model_recipe
from benchmarks.common import sample_batch
from benchmarks.worldscore import aspects
from benchmarks.worldscore import metric_specs
from benchmarks.worldscore import prompts
from proto import scorecard_pb2

IQA = metric_specs.metric_id("subjective_quality", "clip_iqa+")
AES = metric_specs.metric_id("subjective_quality", "clip_aesthetic")
METRIC_IDS = (IQA, AES)
SQUASH = (512, 512)
_TINY = "tiny random models of the official architectures through the real loaders"
AES_BACKEND = "laion-aes-pyiqa-tensor-preprocess"


def squashed_bgr(sample, index: int):
    """Frame `index` of a context or a loaded sample (its `rgb`) after Resize((512, 512))
    on the PIL image, as BGR uint8."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    from PIL import Image  # pylint: disable=import-outside-toplevel
    from torchvision import transforms  # pylint: disable=import-outside-toplevel
    rgb = np.asarray(transforms.Resize(SQUASH)(Image.fromarray(sample.rgb(index))))
    return np.ascontiguousarray(rgb[..., ::-1])


def squashed_tensor(ctx, index: int):
    """(1, 3, 512, 512) float32: `Compose([Resize((512, 512)), ToTensor()])(image)`."""
    from torchvision import transforms  # pylint: disable=import-outside-toplevel
    return transforms.ToTensor()(transforms.Resize(SQUASH)(ctx.image(index))).unsqueeze(0)


def bgr_to_tensor(frames_bgr):
    """ToTensor of the RGB images, stacked: (N, 3, H, W) float32 in [0, 1]."""
    import numpy as np  # pylint: disable=import-outside-toplevel
    import torch  # pylint: disable=import-outside-toplevel
    rgb = np.ascontiguousarray(np.stack(frames_bgr)[..., ::-1])
    return torch.from_numpy(rgb).permute(0, 3, 1, 2).float().div(255)


def _iqa_scores(model, images):
    from metrics.clip import clipiqa  # pylint: disable=import-outside-toplevel
    return clipiqa.frame_scores(images, model.get())


def _aesthetic_scores(model, images, batch_size: int = 32):
    from metrics.clip import aesthetic  # pylint: disable=import-outside-toplevel
    return [score for start in range(0, len(images), batch_size)
            for score in aesthetic.tensor_scores(bgr_to_tensor(images[start:start + batch_size]),
                                                 model.get(), model.device())]


def _anchors(image_data):
    return prompts.anchor_frames("clip_iqa+", image_data["anchor_frame_idx"])


def anchor_images(loaded):
    """The squashed BGR anchor images of a loaded static instance (ValueError otherwise)."""
    if "subjective_quality" not in aspects.ASPECTS_OF[loaded.instance.movement]:
        raise ValueError(f"{loaded.instance.movement} instances have no subjective_quality")
    return [squashed_bgr(loaded, i) for i in _anchors(loaded.instance.image_data)]


def _backends():
    iqa = scorecard_pb2.Backend(
        name="clipiqa+-rn50", official=True, checkpoint_id="openai RN50 + CLIP-IQA+ prompts",
        implementation="metrics/clip/clipiqa.py (CLIP-IQA+ prompts and head) on "
                       "open_clip's CLIP RN50 (metrics/clip/openai_clip.py)",
        note="pyiqa clipiqa+: the CLIP RN50 tower is open_clip's (open-clip-torch 3.3.0, "
             "OpenAI RN50.pt loaded as pyiqa's clip_model.load does); CLIP-IQA+'s learned "
             "prompts and head are worldeval's (metrics/clip/clipiqa.py)",
        parity=calibration.parity("clipiqa+-rn50", otherwise=_TINY))
    aes = scorecard_pb2.Backend(
        name=AES_BACKEND, official=True, checkpoint_id="openai/clip-vit-large-patch14 + "
        "sac+logos+ava1-l14-linearMSE.pth",
        implementation="metrics/clip/aesthetic.py (tensor_scores) + image_transform.py "
                       "(clip_preprocess_tensor)",
        note="pyiqa laion_aes re-implemented: clip_preprocess_tensor on the 512x512 tensor, "
             "CLIP ViT-L/14 (QuickGELU, transformers' converted OpenAI weights) in float32 "
             "on every device as pyiqa's clip_model.to(x) runs it, the LAION MLP head",
        parity=calibration.parity(AES_BACKEND, otherwise=(
            "the preprocessing against a direct torch computation; not run against pyiqa "
            "(its requirements are not in the lock)")))
    return iqa, aes


class SubjectiveQuality(family.Family):
    """One or both of the aspect's metrics (the runner builds one per metric)."""

    def __init__(self, models, backends, refs, metric_ids):
        super().__init__(backends[METRIC_IDS.index(metric_ids[0])],
                         tuple(r for rs in refs.values() for r in rs))
        self.metric_ids = tuple(metric_ids)
        self.name = "subjective_quality:" + "+".join(m.split(".")[1] for m in metric_ids)
        self._models, self._backends, self._refs = models, dict(zip(METRIC_IDS, backends)), refs

    def backend_for(self, metric_id):
        return self._backends[metric_id]

    def checkpoints_for(self, metric_id):
        return tuple(self._refs.get(metric_id, ()))

    def frame_calls(self):
        """The sample_batch.FrameCalls of its models: the anchor images of several
        instances through one call (all are 512x512)."""
        calls = []
        if IQA in self._models:
            calls.append(sample_batch.FrameCall(IQA, anchor_images, functools.partial(
                _iqa_scores, self._models[IQA])))
        if AES in self._models:
            calls.append(sample_batch.FrameCall(AES, anchor_images, functools.partial(
                _aesthetic_scores, self._models[AES])))
        return calls

    def compute(self, ctx) -> family.FamilyResult:
        from metrics.clip import aesthetic  # pylint: disable=import-outside-toplevel  (torch)
        anchors = _anchors(ctx.image_data)
        columns = {}
        for metric_id in self.metric_ids:  # shared calls' scores, or each image alone
            scores = ctx.shared.get(metric_id)
            if scores is None and metric_id == IQA:
                scores = [_iqa_scores(self._models[IQA], [squashed_bgr(ctx, i)])[0]
                          for i in anchors]
            elif scores is None:
                model, device = self._models[AES].get(), self._models[AES].device()
                scores = [aesthetic.tensor_scores(squashed_tensor(ctx, i), model, device)[0]
                          for i in anchors]
            columns[metric_id] = float(sum(scores) / len(scores))
        return family.FamilyResult(columns)


def build(config, metric_ids) -> family.Family:
    # pylint: disable=import-outside-toplevel  (torch)
    from metrics.clip import aesthetic
    from metrics.clip import clipiqa
    device = config.common.device  # each model a recipe: loaded where compute runs
    models, refs = {}, {}
    if IQA in metric_ids:
        rn50, rn50_ref = checkpoint_refs.resolve(clipiqa.CLIP_RN50, config.common, IQA)
        ctx, ctx_ref = checkpoint_refs.resolve(clipiqa.CLIPIQA_PLUS_PROMPTS, config.common, IQA)
        models[IQA] = model_recipe.prepared(
            lambda d: clipiqa.load_clipiqa(rn50.path, ctx.path, d), device, "clipiqa+")
        refs[IQA] = (rn50_ref, ctx_ref)
    if AES in metric_ids:
        tower, tower_ref = checkpoint_refs.resolve(aesthetic.CLIP_VIT_L14, config.common, AES)
        head, head_ref = checkpoint_refs.resolve(aesthetic.AESTHETIC_HEAD, config.common, AES)
        models[AES] = model_recipe.prepared(
            lambda d: aesthetic.load_aesthetic(tower.path, head.path, d, "quick_gelu"), device,
            "aesthetic")
        refs[AES] = (tower_ref, head_ref)
    return SubjectiveQuality(models, _backends(), refs, metric_ids)
