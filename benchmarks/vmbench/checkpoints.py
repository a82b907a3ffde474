"""The checkpoints of VMBench's official model backends (spec §3), importable
without torch. Files are those the official scripts read from `<repo>/.cache/`; the
resolver finds them under --checkpoint_dir/<name>/, in the Hugging Face cache, or
downloads them at the pinned revision.

Pins: the spec gives no revision or digest for GD-ML/VMBench, so its files stay at
`main` with no sha256 (the trust gate reports them UNPINNED_CHECKPOINT), except SAM
ViT-H, whose file is Meta's release `sam_vit_h_4b8939.pth` (2,564,550,879 bytes, sha256
a7bf3b02...; the same digest is published by many independent users of that file): a
different file under that name is refused. bert-base-uncased is pinned to the revision
whose vocab.txt has sha256 07eced37... (the tokenizer is what GroundingDINO takes from
it; its BERT weights come from the GroundingDINO checkpoint).
"""

from benchmarks.common import model_pins
from metrics.checkpoints import resolver

_HUB = "GD-ML/VMBench"

GROUNDING_DINO_SWINB = resolver.CheckpointSpec(
    name="vmbench_groundingdino_swinb", filename="groundingdino_swinb_cogcoor.pth",
    hf_repo=_HUB, license="Apache-2.0 (IDEA-Research/GroundingDINO)",
    approx_size_bytes=939_440_816)
BERT_BASE_UNCASED = model_pins.BERT_BASE_UNCASED
SAM_VIT_H = resolver.CheckpointSpec(
    name="vmbench_sam_vit_h", filename="sam_vit_h_4b8939.pth", hf_repo=_HUB,
    sha256="a7bf3b02f3ebf1267aba913ff637d9a2d5c33d3173bb679e46d9f338c26f262e",
    size_bytes=2_564_550_879, license="Apache-2.0 (facebookresearch/segment-anything)")
SAM2_1_HIERA_L = resolver.CheckpointSpec(
    name="vmbench_sam2_1_hiera_large", filename="sam2.1_hiera_large.pt", hf_repo=_HUB,
    license="Apache-2.0 (facebookresearch/sam2)",
    approx_size_bytes=897_787_592)
COTRACKER3_OFFLINE = resolver.CheckpointSpec(
    name="vmbench_cotracker3_offline", filename="scaled_offline.pth", hf_repo=_HUB,
    license="CC-BY-NC 4.0 (facebookresearch/co-tracker)",
    approx_size_bytes=101_809_200)

# CAS: VideoMAE v2 ViT-g/14 with VMBench's 5-way head (what run_class_finetuning.py's
# --finetune would load; the shipped commonsense_adherence_score.py never loads it).
VIT_G_CAS = resolver.CheckpointSpec(
    name="vmbench_vit_g_cas", filename="vit_g_vmbench.pt", hf_repo=_HUB,
    license="MIT (OpenGVLab/VideoMAEv2 code); the weights' licence is not stated",
    approx_size_bytes=4_046_471_188)

PAS = (GROUNDING_DINO_SWINB, BERT_BASE_UNCASED, SAM_VIT_H, COTRACKER3_OFFLINE)
TCS = (GROUNDING_DINO_SWINB, BERT_BASE_UNCASED, SAM2_1_HIERA_L, COTRACKER3_OFFLINE)
CAS = (VIT_G_CAS,)

# --- MSS (spec §4.5): Q-Align one-align, a whole Hugging Face snapshot -----------------
# No revision or digest is known offline, so it stays at `main` unpinned (the trust gate
# reports it). The weights derive from LLaMA-2 (Q-Align's model_zoo README: its licence
# applies to commercial use); the Q-Align code is under the S-Lab License 1.0.
Q_ALIGN_ONE_ALIGN = resolver.CheckpointSpec(
    name="qalign_one_align", filename="config.json",
    hf_repo="q-future/one-align", snapshot=True,
    license="MIT (q-future/one-align model card, not verified offline); LLaMA-2 licence "
            "for commercial use",
    # 8,204,550,144 tensor elements in 16-bit (as 7B-class hub checkpoints are stored;
    # the official loader reads them as float16): an estimate, not the published size.
    approx_size_bytes=16_409_100_288)

MSS = (Q_ALIGN_ONE_ALIGN,)

# --- OIS (spec §3, §4.2): RTMDet-m person detector + RTMPose-m body7 --------------------
# Not in GD-ML/VMBench: object_integrity_score.py's default arguments are these
# download.openmmlab.com URLs (fetched at run time upstream). OpenMMLab names each file
# by the first 8 hex digits of its sha256, so that prefix is the pin (the resolver checks
# it; the full digest is not published). Sizes: not published; estimated from the
# architectures' float32 state dicts (metrics/pose at full size).
RTMDET_M_PERSON = resolver.CheckpointSpec(
    name="vmbench_rtmdet_m_person",
    filename="rtmdet_m_8xb32-100e_coco-obj365-person-235e8209.pth",
    url="https://download.openmmlab.com/mmpose/v1/projects/rtmpose/"
        "rtmdet_m_8xb32-100e_coco-obj365-person-235e8209.pth",
    sha256="235e8209", license="Apache-2.0 (open-mmlab/mmpose, mmdetection)",
    approx_size_bytes=109_464_924)
RTMPOSE_M_BODY7 = resolver.CheckpointSpec(
    name="vmbench_rtmpose_m_body7",
    filename="rtmpose-m_simcc-body7_pt-body7_420e-256x192-e48f03d0_20230504.pth",
    url="https://download.openmmlab.com/mmpose/v1/projects/rtmposev1/"
        "rtmpose-m_simcc-body7_pt-body7_420e-256x192-e48f03d0_20230504.pth",
    sha256="e48f03d0", license="Apache-2.0 (open-mmlab/mmpose)",
    approx_size_bytes=54_443_372)

OIS = (RTMDET_M_PERSON, RTMPOSE_M_BODY7)
