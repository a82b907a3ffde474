"""The model calls of one typical VMBench and one typical MemoBench sample, for model_costs.

Each case builds one model stack at its full official size with random weights (on the
`meta` device where the forward allows it, so nothing is allocated) and lists the calls
one sample makes: the input shape of each call and how many there are. The shapes follow
the official scripts as the specs in this repository's design notes describe them;
every assumption about a "typical" sample is written in the case's `assumptions`.

This module holds the case types and VMBench's cases; memobench_cost_cases MemoBench's.
"""

# Each case imports its model code when it is built (one model's imports at a time).
# pylint: disable=import-outside-toplevel

import contextlib
import dataclasses
from typing import Callable, Tuple

import torch

VM_FRAMES, VM_H, VM_W = 49, 480, 720
TYPICAL = ("49 frames, 480x720, 8 fps: the clips of the README's timing run "
           "(CogVideoX-5B, 1,050 videos)")


@dataclasses.dataclass(frozen=True)
class Call:
    """`count` calls per sample of `run(model, device)` (one forward)."""

    label: str
    count: float
    run: Callable


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    benchmark: str
    metrics: str
    precision: str           # what the official code runs the model in
    build: Callable = None   # () -> nn.Module; None: not built (see unavailable)
    calls: Tuple[Call, ...] = ()
    assumptions: str = ""
    devices: Tuple[str, ...] = ("meta",)
    unavailable: str = ""


def zeros(device, *shape, dtype=torch.float32):
    return torch.zeros(shape, device=device, dtype=dtype)


@contextlib.contextmanager
def meta_safe():
    """Replaces two value reads that the meta device cannot answer by FLOP-equivalent code.

    - transformers' sdpa mask helpers skip an all-ones mask after reading it
      (`padding_mask.all()`); here the mask is always built (same products).
    - mPLUG-Owl2's multiway modules route each token to its modality's twin (a nonzero on
      the modality map); the twins have the same shapes, so all tokens go through the
      first one: the same FLOPs.
    """
    from unittest import mock
    from transformers import masking_utils
    from metrics.qalign import llama_multiway

    def one_way(self, x, modality):
        del modality
        return self.multiway[0](x)

    with mock.patch.object(masking_utils, "_ignore_causal_mask_sdpa", lambda *a, **k: False), \
            mock.patch.object(masking_utils, "_ignore_bidirectional_mask_sdpa",
                              lambda *a, **k: False), \
            mock.patch.object(llama_multiway.Multiway, "forward", one_way):
        yield


# --- VMBench -------------------------------------------------------------------------

def _grounding_dino():
    from transformers import BertConfig, GroundingDinoForObjectDetection
    from metrics.detection import grounding_dino_config
    return GroundingDinoForObjectDetection(
        grounding_dino_config.SWINB.to_transformers(BertConfig())).eval()


def _grounding_dino_call(model, device):
    from metrics.detection import grounding_dino_text
    # "[CLS] horse . [SEP]": a one-word subject_noun caption.
    ids = torch.tensor([[101, 3586, 1012, 102]], device=device)
    with grounding_dino_text.official_text_in_transformers():
        model(pixel_values=zeros(device, 1, 3, 800, 1200), input_ids=ids,
              attention_mask=torch.ones_like(ids), token_type_ids=torch.zeros_like(ids))


def _sam_vit_h():
    from segment_anything import sam_model_registry
    return sam_model_registry["vit_h"]()


def _sam_call(sam, device):
    embeddings = sam.image_encoder(zeros(device, 1, 3, 1024, 1024))
    sparse, dense = sam.prompt_encoder(points=None, boxes=zeros(device, 1, 4), masks=None)
    sam.mask_decoder(image_embeddings=embeddings, image_pe=sam.prompt_encoder.get_dense_pe(),
                     sparse_prompt_embeddings=sparse, dense_prompt_embeddings=dense,
                     multimask_output=False)


def _cotracker3():
    from metrics.tracking.cotracker3 import config, model
    return model.CoTracker3Offline(config.OFFLINE_DEFAULT).eval()


def _cotracker_call(points):
    def run(model, device):
        model(zeros(device, 1, VM_FRAMES, 3, 384, 512), zeros(device, 1, points, 3), iters=6)
    return run


def _sam2_video():
    from transformers import Sam2VideoModel
    from metrics.segmentation import sam2_config
    return Sam2VideoModel(sam2_config.video_config(sam2_config.HIERA_L)).eval()


def _sam2_image_call(video_model, device):
    """SAM2ImagePredictor on a keyframe: the shared image encoder, one box, the SAM head."""
    from transformers import Sam2Model
    from metrics.segmentation import sam2_config
    with torch.device(device):
        image = Sam2Model(sam2_config.image_config(sam2_config.HIERA_L)).eval()
    image.requires_grad_(False)
    image(pixel_values=zeros(device, 1, 3, 1024, 1024), input_boxes=zeros(device, 1, 1, 4),
          multimask_output=False)
    del video_model


_SAM2_MEMORY_FRAMES = 4  # mean over a 7-frame segment of the memories it can attend to
_SAM2_POINTER_TOKENS = 4 * 4  # one object pointer per memory frame, 4 tokens of 64 each


def _sam2_propagated_frame(model, device):
    """One propagated frame: image encoder, memory attention, memory encoder (the mask
    decoder, a few MFLOPs, is left out)."""
    model.get_image_features(zeros(device, 1, 3, 1024, 1024))
    tokens = 64 * 64
    memory = _SAM2_MEMORY_FRAMES * tokens + _SAM2_POINTER_TOKENS
    model.memory_attention(current_vision_features=zeros(device, tokens, 1, 256),
                           current_vision_position_embeddings=zeros(device, tokens, 1, 256),
                           memory=zeros(device, memory, 1, 64),
                           memory_posision_embeddings=zeros(device, memory, 1, 64),
                           num_object_pointer_tokens=_SAM2_POINTER_TOKENS)
    model.memory_encoder(zeros(device, 1, 256, 64, 64), zeros(device, 1, 1, 1024, 1024))


def _videomae_g():
    from metrics.videomae import vit
    return vit.VideoClassifierViT(vit.VIT_G_CAS).eval()


def _qalign():
    from metrics.qalign import config, model
    return model.QAlignModel(config.FULL).eval()


_QALIGN_TEXT_TOKENS = 28  # the MSS prompt around <|image|>, LLaMA tokenizer (estimate)


def _qalign_call(model, device):
    """QAlignModel.forward for the 49 three-frame windows of one clip, written out (its
    placeholder search needs real token ids)."""
    from metrics.qalign import llama_multiway
    windows, frames = VM_FRAMES, 3
    features = model.encode_frames(zeros(device, windows * frames, 3, 448, 448))
    length = _QALIGN_TEXT_TOKENS + frames * features.shape[1]
    embeds = zeros(device, windows, length, model.config.hidden_size)
    modality = torch.zeros((windows, length), dtype=torch.long, device=device)
    modality[:, 10:10 + frames * features.shape[1]] = llama_multiway.IMAGE
    model.lm_head(model.model.decode(embeds, modality))


def _rtmdet():
    from metrics.pose import rtmdet
    return rtmdet.RTMDet(rtmdet.RtmdetConfig()).eval()


def _rtmpose():
    from metrics.pose import rtmpose
    return rtmpose.TopdownRTMPose(rtmpose.RtmposeConfig()).eval()


def vmbench_cases():
    typical = f"{VM_FRAMES} frames {VM_H}x{VM_W} at 8 fps"
    return (
        Case("GroundingDINO Swin-B + BERT", "vmbench", "PAS, TCS", "fp32", _grounding_dino,
             (Call("frame at 800x1200, 4-token caption", 1 + 7, _grounding_dino_call),),
             f"{typical}: PAS frame 0 + TCS keyframes range(0, 49, 7) = 7",
             devices=("meta", "cpu")),
        Case("SAM v1 ViT-H", "vmbench", "PAS", "fp32", _sam_vit_h,
             (Call("1024x1024 image + 1 box", 1, _sam_call),),
             "PAS: frame 0 only, one detection"),
        Case("CoTracker3 offline", "vmbench", "PAS, TCS", "fp32 (TCS: bf16 autocast)",
             _cotracker3,
             (Call("PAS background grid 30: 720 + 36 support points", 1, _cotracker_call(756)),
              Call("PAS subject grid 30: 180 + 36 support points", 1, _cotracker_call(216)),
              Call("TCS event grid 50: 500 + 36 points, forward + backward", 2,
                   _cotracker_call(536))),
             f"{typical} resized to 384x512, 6 iterations; subject covers 20% of the grid; "
             "PAS queries frame 0 (no backward pass); TCS: 1 vanish/emerge event per clip "
             "(data-dependent: 0 events costs 0, each event one forward + one backward)"),
        Case("SAM 2.1 Hiera-L", "vmbench", "TCS", "bf16 autocast", _sam2_video,
             (Call("image predictor on a keyframe, 1 box", 7, _sam2_image_call),
              Call("propagated frame: encoder + memory attention + memory encoder", 55,
                   _sam2_propagated_frame)),
             "7 keyframes with a detection; propagation yields frames s..s+7 of each "
             "segment (55 frame visits), memory of 4 frames + 4 object pointers on average, "
             "one object"),
        Case("RTMDet-m person", "vmbench", "OIS", "fp32", _rtmdet,
             (Call("640x640 letterboxed frame", VM_FRAMES,
                   lambda m, d: m(zeros(d, 1, 3, 640, 640))),), "every frame"),
        Case("RTMPose-m body7", "vmbench", "OIS", "fp32", _rtmpose,
             (Call("256x192 crop + its flip", VM_FRAMES,
                   lambda m, d: m(zeros(d, 2, 3, 256, 192))),),
             "one person box per frame (mmpose uses the whole frame when there is none)"),
        Case("VideoMAE v2 ViT-g/14 (CAS)", "vmbench", "CAS", "fp16 autocast", _videomae_g,
             (Call("10 views of 16x224x224 (batch 10)", 3,
                   lambda m, d: m(zeros(d, 10, 3, 16, 224, 224))),),
             "10 temporal x 3 spatial views per video"),
        Case("Q-Align one-align (mPLUG-Owl2 7B)", "vmbench", "MSS", "fp16", _qalign,
             (Call("49 windows x 3 frames at 448, one batch", 1, _qalign_call),),
             f"one window per frame; {_QALIGN_TEXT_TOKENS} text tokens (estimated), "
             "65 visual tokens per frame; logits at every position as the official forward"),
    )
