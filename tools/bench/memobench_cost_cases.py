"""MemoBench's model calls for one typical sample (see model_cost_cases for the types)."""

# Each case imports its model code when it is built (one model's imports at a time).
# pylint: disable=import-outside-toplevel

from unittest import mock

import torch

from tools.bench.model_cost_cases import Call, Case, meta_safe, zeros

MEMO_FRAMES, MEMO_H, MEMO_W = 81, 369, 640
MEMO_NATIVE_H, MEMO_NATIVE_W = 480, 832
MEMO_H_PHASE, MEMO_R_PHASE = 27, 54
TYPICAL = ("81 generated frames at 480x832 (Step 1 reads them resized to 640 on the long "
           "side: 369x640), phase boundaries h=27, r=54 (exit and re-entry at 1/3 and 2/3 "
           "of the GT clip)")


def _raft_large():
    from metrics.flow import raft
    return raft.build_raft_large().eval()


def _clip_vision(**sizes):
    from transformers import CLIPVisionConfig, CLIPVisionModelWithProjection
    return CLIPVisionModelWithProjection(CLIPVisionConfig(hidden_act="gelu", **sizes)).eval()


def _aesthetic():
    from metrics.clip import aesthetic
    model = torch.nn.Module()
    # openai/clip-vit-large-patch14's vision tower and the LAION MLP head.
    model.tower = _clip_vision(hidden_size=1024, intermediate_size=4096, num_hidden_layers=24,
                               num_attention_heads=16, patch_size=14, image_size=224,
                               projection_dim=768)
    model.head = aesthetic.build_head()
    return model.eval()


def _aesthetic_call(model, device):
    model.head(model.tower(pixel_values=zeros(device, 1, 3, 224, 224)).image_embeds)


def _clip_rn50():
    from open_clip import model as open_clip_model
    # OpenAI RN50.pt as metrics.clip.openai_clip builds it: open_clip's CLIP, layers
    # (3, 4, 6, 3), width 64, 7x7 attention pool, 1024-d embedding, text tower 512 wide, 12 layers.
    return open_clip_model.CLIP(
        1024, open_clip_model.CLIPVisionCfg(layers=(3, 4, 6, 3), width=64, image_size=224),
        open_clip_model.CLIPTextCfg(context_length=77, vocab_size=49408, width=512, heads=8,
                                    layers=12), quick_gelu=True).eval()


def _clip_rn50_call(model, device):
    from metrics.clip import openai_clip
    openai_clip.image_features(model, zeros(device, 1, 3, MEMO_H, MEMO_W))


def _dinov2_base():
    from transformers import Dinov2Config, Dinov2Model
    return Dinov2Model(Dinov2Config(hidden_size=768, num_hidden_layers=12,
                                    num_attention_heads=12, patch_size=14,
                                    image_size=518)).eval()


def _depth_anything_small():
    from transformers import (
        DepthAnythingConfig, DepthAnythingForDepthEstimation, Dinov2Config)
    backbone = Dinov2Config(hidden_size=384, num_hidden_layers=12, num_attention_heads=6,
                            patch_size=14, image_size=518, out_indices=[3, 6, 9, 12],
                            reshape_hidden_states=False)
    return DepthAnythingForDepthEstimation(DepthAnythingConfig(
        backbone_config=backbone, reassemble_hidden_size=384,
        neck_hidden_sizes=[48, 96, 192, 384], fusion_hidden_size=64,
        head_hidden_size=32)).eval()


def _image_reward():
    from transformers import BlipVisionConfig
    from metrics.imagereward import reward_model
    vision = BlipVisionConfig(hidden_size=1024, intermediate_size=4096, num_hidden_layers=24,
                              num_attention_heads=16, image_size=224, patch_size=16,
                              hidden_act="gelu", layer_norm_eps=1e-6, attention_dropout=0.0)
    # BLIP's med_config.json (BERT-base, cross-attention) + the [DEC] and [ENC] tokens.
    med = {"vocab_size": 30524, "hidden_size": 768, "intermediate_size": 3072,
           "num_hidden_layers": 12, "num_attention_heads": 12,
           "max_position_embeddings": 512, "layer_norm_eps": 1e-12}
    return reward_model.ImageRewardModel(vision, reward_model.text_config(med, 1024)).eval()


def _image_reward_call(model, device):
    ids = torch.zeros((1, 35), dtype=torch.long, device=device)
    model(zeros(device, 1, 3, 224, 224), ids, torch.ones_like(ids))


def _lpips_alex():
    from metrics.lpips import lpips
    # The lpips package's LPIPS(net="alex"), random trunk and lin layers (no file read).
    return lpips.LearnedPerceptualImagePatchSimilarity().eval()


def _sam3():
    from transformers import Sam3Config, Sam3Model
    model = Sam3Model(Sam3Config()).eval()
    # The clip's prompt features, computed once before counting (the prompt call counts it).
    device = next(model.parameters()).device
    ids = torch.zeros((1, 32), dtype=torch.long, device=device)
    with torch.no_grad(), meta_safe():
        model.cost_prompt = (ids, model.get_text_features(input_ids=ids).pooler_output)
    return model


def _sam3_prompt(model, device):
    model.get_text_features(input_ids=torch.zeros((1, 32), dtype=torch.long, device=device))


def _sam3_frame(model, device):
    from metrics.segmentation import sam3
    ids, features = model.cost_prompt
    prompt = sam3.PromptFeatures("subject", ids, features, ids != sam3.PAD_TOKEN_ID)
    encode = model.detr_encoder.forward

    def encoder_with_known_shape(*args, vision_features, **kwargs):
        # The decoder reads the feature map's height and width as numbers; on the meta
        # device they are given from the features' shape.
        out = encode(*args, vision_features=vision_features, **kwargs)
        out.spatial_shapes = torch.tensor([list(vision_features[0].shape[-2:])])
        return out

    with mock.patch.object(model.detr_encoder, "forward", encoder_with_known_shape):
        # pylint: disable-next=protected-access
        sam3._grounding(model, zeros(device, 1, 3, 1008, 1008), prompt)


def memobench_cases():
    frames = (f"{MEMO_FRAMES} frames, Step 1 at {MEMO_H}x{MEMO_W}, "
              f"h={MEMO_H_PHASE} r={MEMO_R_PHASE}")
    sampled = len(range(0, MEMO_FRAMES, 4))
    return (
        Case("RAFT-large (torchvision)", "memobench", "MotionSmoothness", "fp32", _raft_large,
             (Call("frame pair 376x640 (padded to /8), 12 updates", 12,
                   lambda m, d: m(zeros(d, 1, 3, 376, 640), zeros(d, 1, 3, 376, 640))),),
             f"{frames}: V frames 0..24 and R frames 54..78 every 4th: 6 + 6 pairs"),
        Case("CLIP ViT-L/14 + LAION aesthetic MLP", "memobench", "VisualQuality",
             "fp32", _aesthetic,
             (Call("224x224 crop", sampled, _aesthetic_call),),
             f"every 4th frame: {sampled}"),
        Case("CLIP RN50 (CLIP-IQA+)", "memobench", "VisualQuality", "fp32", _clip_rn50,
             (Call(f"{MEMO_H}x{MEMO_W} frame", sampled,
                   lambda m, d: _clip_rn50_call(m, d)),),
             f"every 4th frame at its 640-max size (no resize): {sampled}; the two prompts' "
             "text features once per process (not counted)"),
        Case("DINOv2 ViT-B/14", "memobench", "ObjIdentityConsistency", "fp32", _dinov2_base,
             (Call("224x224 crop", 10,
                   lambda m, d: m(pixel_values=zeros(d, 1, 3, 224, 224))),),
             "generated frame 0 + 9 frames of the R phase"),
        Case("Depth Anything V2 Small", "memobench", "Geo3DConsistency", "fp32",
             _depth_anything_small,
             (Call("518x896 (aspect kept, /14)", 6,
                   lambda m, d: m(pixel_values=zeros(d, 1, 3, 518, 896))),),
             "3 frames of V + 3 of R"),
        Case("ImageReward v1.0 (BLIP ViT-L + BERT)", "memobench", "ImageRewardScore", "fp32",
             _image_reward, (Call("224x224 frame + 35-token prompt", 5, _image_reward_call),),
             "5 frames, synthetic clips only (real ones have no parsable prompt file)"),
        Case("LPIPS AlexNet", "memobench", "GT_*_LPIPS", "fp32", _lpips_alex,
             (Call(f"pair at {MEMO_H}x{MEMO_W}", MEMO_FRAMES + 28 + 28 + 27,
                   lambda m, d: m(zeros(d, 1, 3, MEMO_H, MEMO_W),
                                  zeros(d, 1, 3, MEMO_H, MEMO_W))),),
             "every frame of ALL (81), O (28), H (28), R (27) against GT resized to it"),
        Case("CLIP ViT-B/32", "memobench", "GTRevisitSim (not a leaderboard column)", "fp32",
             lambda: _clip_vision(projection_dim=512),
             (Call("224x224 crop", 6, lambda m, d: m(pixel_values=zeros(d, 1, 3, 224, 224))),),
             "3 generated + 3 GT frames"),
        Case("SAM 3 (transformers Sam3Config defaults)", "memobench", "ORS", "fp32 (TF32 on)",
             _sam3,
             (Call("text prompt, once per clip", 1, _sam3_prompt),
              Call("1008x1008 frame: vision, geometry, DETR encoder/decoder, masks",
                   MEMO_FRAMES - MEMO_R_PHASE,
                   _sam3_frame)),
             f"every generated frame r..N-1 at native {MEMO_NATIVE_H}x{MEMO_NATIVE_W} "
             f"resized to 1008: {MEMO_FRAMES - MEMO_R_PHASE}"),
        Case("MapAnything (apache)", "memobench", "CameraControllability", "bf16 autocast",
             unavailable="not built here: the mapanything package is not in worldeval's lock "
             "(metrics/camera/mapanything_poses.py drives it when installed); its "
             "architecture is not in this repository"),
        Case("Gemini 3.1 Pro (VQA)", "memobench", "VQA IF/OB/CM/PA", "API",
             unavailable="a remote API (google-genai Files API + generate), 45 synthetic "
             "clips; no local model, does not scale with GPUs"),
    )
