"""VMBench's checkpoints (spec §3), importable without torch: the files its official
scripts read from `<repo>/.cache/` (hub GD-ML/VMBench), OIS's two download.openmmlab.com
files, and which metric loads which. The model families that read them live under
metrics/ (detection, segmentation, tracking, videomae, pose, qalign); the files and their
`vmbench_*` --checkpoint_dir folder names are VMBench's, so their specs are here.

Pins: the spec gives no revision or digest for GD-ML/VMBench, so its files stay at
`main` with no sha256 (the trust gate reports them UNPINNED_CHECKPOINT), except SAM
ViT-H (Meta's release `sam_vit_h_4b8939.pth`, pinned by sha256). bert-base-uncased is
GroundingDINO's tokenizer, one pin for every benchmark (metrics.detection.pins).
"""

from metrics.checkpoints import resolver
from metrics.detection import pins as detection_pins
from metrics.qalign import pins as qalign_pins

# PAS/TCS: GroundingDINO Swin-B (cogcoor) as GD-ML/VMBench ships it (no revision or
# digest given: unpinned).
GROUNDING_DINO_SWINB = resolver.CheckpointSpec(
    name="vmbench_groundingdino_swinb", filename="groundingdino_swinb_cogcoor.pth",
    hf_repo="GD-ML/VMBench", license="Apache-2.0 (IDEA-Research/GroundingDINO)",
    approx_size_bytes=939_440_816)
BERT_BASE_UNCASED = detection_pins.BERT_BASE_UNCASED
# PAS: Meta's release sam_vit_h_4b8939.pth as GD-ML/VMBench ships it (2,564,550,879
# bytes, sha256 a7bf3b02...; the same digest is published by many independent users of
# that file): a different file under that name is refused.
SAM_VIT_H = resolver.CheckpointSpec(
    name="vmbench_sam_vit_h", filename="sam_vit_h_4b8939.pth", hf_repo="GD-ML/VMBench",
    sha256="a7bf3b02f3ebf1267aba913ff637d9a2d5c33d3173bb679e46d9f338c26f262e",
    size_bytes=2_564_550_879, license="Apache-2.0 (facebookresearch/segment-anything)")
# TCS: SAM 2.1 Hiera-L as GD-ML/VMBench ships it (no revision or digest given: unpinned).
SAM2_1_HIERA_L = resolver.CheckpointSpec(
    name="vmbench_sam2_1_hiera_large", filename="sam2.1_hiera_large.pt",
    hf_repo="GD-ML/VMBench", license="Apache-2.0 (facebookresearch/sam2)",
    approx_size_bytes=897_787_592)
# PAS/TCS: CoTracker3 offline as GD-ML/VMBench ships it (unpinned).
COTRACKER3_OFFLINE = resolver.CheckpointSpec(
    name="vmbench_cotracker3_offline", filename="scaled_offline.pth", hf_repo="GD-ML/VMBench",
    license="CC-BY-NC 4.0 (facebookresearch/co-tracker)",
    approx_size_bytes=101_809_200)
# CAS: VideoMAE v2 ViT-g/14 with VMBench's 5-way head (what run_class_finetuning.py's
# --finetune would load; the shipped commonsense_adherence_score.py never loads it), as
# GD-ML/VMBench ships it (unpinned).
VIT_G_CAS = resolver.CheckpointSpec(
    name="vmbench_vit_g_cas", filename="vit_g_vmbench.pt", hf_repo="GD-ML/VMBench",
    license="MIT (OpenGVLab/VideoMAEv2 code); the weights' licence is not stated",
    approx_size_bytes=4_046_471_188)
# MSS (spec §4.5): Q-Align one-align, a whole Hugging Face snapshot.
Q_ALIGN_ONE_ALIGN = qalign_pins.Q_ALIGN_ONE_ALIGN
# OIS (spec §3, §4.2): RTMDet-m person detector + RTMPose-m body7; not in GD-ML/VMBench:
# object_integrity_score.py's default arguments are these download.openmmlab.com URLs.
# OpenMMLab names each file by the first 8 hex digits of its sha256, so that prefix is the
# pin (the resolver checks it; the full digest is not published). Sizes: not published;
# estimated from the architectures' float32 state dicts (metrics/pose at full size).
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

PAS = (GROUNDING_DINO_SWINB, BERT_BASE_UNCASED, SAM_VIT_H, COTRACKER3_OFFLINE)
TCS = (GROUNDING_DINO_SWINB, BERT_BASE_UNCASED, SAM2_1_HIERA_L, COTRACKER3_OFFLINE)
CAS = (VIT_G_CAS,)
MSS = (Q_ALIGN_ONE_ALIGN,)
OIS = (RTMDET_M_PERSON, RTMPOSE_M_BODY7)
