"""Which pinned checkpoints each of VMBench's official model backends loads (spec §3),
importable without torch. The pins live beside their model family under metrics/
(metrics/<family>/pins.py); this module says which metric loads which and re-exports
each pin under the name VMBench's code uses. Files are those the official scripts read
from `<repo>/.cache/` (hub GD-ML/VMBench), except OIS's (download.openmmlab.com).

Pins: the spec gives no revision or digest for GD-ML/VMBench, so its files stay at
`main` with no sha256 (the trust gate reports them UNPINNED_CHECKPOINT), except SAM
ViT-H (Meta's release `sam_vit_h_4b8939.pth`, pinned by sha256). bert-base-uncased is
GroundingDINO's tokenizer, one pin for every benchmark (metrics.detection.pins).
"""

from metrics.detection import pins as detection_pins
from metrics.pose import pins as pose_pins
from metrics.qalign import pins as qalign_pins
from metrics.segmentation import pins as segmentation_pins
from metrics.tracking import pins as tracking_pins
from metrics.videomae import pins as videomae_pins

GROUNDING_DINO_SWINB = detection_pins.GROUNDING_DINO_SWINB
BERT_BASE_UNCASED = detection_pins.BERT_BASE_UNCASED
SAM_VIT_H = segmentation_pins.SAM_VIT_H
SAM2_1_HIERA_L = segmentation_pins.SAM2_1_HIERA_L
COTRACKER3_OFFLINE = tracking_pins.COTRACKER3_OFFLINE
# CAS: VideoMAE v2 ViT-g/14 with VMBench's 5-way head (what run_class_finetuning.py's
# --finetune would load; the shipped commonsense_adherence_score.py never loads it).
VIT_G_CAS = videomae_pins.VIT_G_CAS
# MSS (spec §4.5): Q-Align one-align, a whole Hugging Face snapshot.
Q_ALIGN_ONE_ALIGN = qalign_pins.Q_ALIGN_ONE_ALIGN
# OIS (spec §3, §4.2): RTMDet-m person detector + RTMPose-m body7; not in GD-ML/VMBench:
# object_integrity_score.py's default arguments are these download.openmmlab.com URLs.
RTMDET_M_PERSON = pose_pins.RTMDET_M_PERSON
RTMPOSE_M_BODY7 = pose_pins.RTMPOSE_M_BODY7

PAS = (GROUNDING_DINO_SWINB, BERT_BASE_UNCASED, SAM_VIT_H, COTRACKER3_OFFLINE)
TCS = (GROUNDING_DINO_SWINB, BERT_BASE_UNCASED, SAM2_1_HIERA_L, COTRACKER3_OFFLINE)
CAS = (VIT_G_CAS,)
MSS = (Q_ALIGN_ONE_ALIGN,)
OIS = (RTMDET_M_PERSON, RTMPOSE_M_BODY7)
