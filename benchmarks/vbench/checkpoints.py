"""Which pinned checkpoints each VBench dimension loads (spec §4's table), as the official
code names them (Vchitect/VBench@45e79ec vbench/utils.py:236-372 and the files it reads
under $VBENCH_CACHE_DIR). The pins themselves live beside their model family under
metrics/ (metrics/<family>/pins.py; CLIP's in metrics/clip); this module only says which
dimension loads which.

Where our loaders read another form of the same weights than the official code (OpenAI
CLIP's JIT archives via `clip.load`: we read the transformers conversion of the same
OpenAI weights), the pin's module says so.
"""

from metrics.aesthetic import pins as aesthetic_pins
from metrics.clip import aesthetic
from metrics.clip import frame_similarity
from metrics.dino import pins as dino_pins
from metrics.flow import pins as flow_pins
from metrics.frame_interpolation import pins as amt_pins
from metrics.iqa import pins as iqa_pins
from metrics.viclip import pins as viclip_pins

# subject_consistency: torch.hub 'facebookresearch/dino:main' dino_vitb16 (local mode:
# dino_model/dino_vitbase16_pretrain.pth).
SUBJECT_CONSISTENCY = (dino_pins.DINO_VITB16,)
# background_consistency: clip.load('ViT-B/32').
BACKGROUND_CONSISTENCY = (frame_similarity.CLIP_VIT_B32,)
# appearance_style: clip.load('ViT-B/32') image and text towers, clip.tokenize (the CLIP
# BPE vocabulary).
APPEARANCE_STYLE = (frame_similarity.CLIP_VIT_B32, viclip_pins.CLIP_BPE)
# aesthetic_quality: clip.load('ViT-L/14') + LAION's sa_0_4_vit_l_14_linear.pth.
AESTHETIC_QUALITY = (aesthetic.CLIP_VIT_L14, aesthetic_pins.LAION_AESTHETIC_LINEAR)
# imaging_quality: pyiqa MUSIQ with pyiqa_model/musiq_spaq_ckpt-358bb6af.pth.
IMAGING_QUALITY = (iqa_pins.MUSIQ_SPAQ,)
# motion_smoothness: amt_model/amt-s.pth (cfgs/AMT-S.yaml).
MOTION_SMOOTHNESS = (amt_pins.AMT_S,)
# dynamic_degree (and the static filter): raft_model/models/raft-things.pth.
DYNAMIC_DEGREE = (flow_pins.RAFT_THINGS,)
# temporal_style, overall_consistency: ViCLIP/ViClip-InternVid-10M-FLT.pth and
# ViCLIP/bpe_simple_vocab_16e6.txt.gz.
VICLIP = (viclip_pins.VICLIP, viclip_pins.CLIP_BPE)

ALL = tuple(dict.fromkeys(
    SUBJECT_CONSISTENCY + BACKGROUND_CONSISTENCY + APPEARANCE_STYLE + AESTHETIC_QUALITY
    + IMAGING_QUALITY + MOTION_SMOOTHNESS + DYNAMIC_DEGREE + VICLIP))
