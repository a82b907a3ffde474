"""Which pinned checkpoints each of MiraBench's model metrics loads (spec §3, §4), as the
official code names them (mira-space/Miradata @ 7ad0579: evaluation/__init__.py and the
files it reads under `--ckpt_path`). The pins themselves live beside their model family
under metrics/ (metrics/<family>/pins.py; CLIP's in metrics/clip); this module only says
which metric loads which, and re-exports each pin under the name MiraBench's code uses.

Pins: the official code downloads every file by URL with no digest, and no file was
downloadable here, so every spec has sha256 "" (the trust gate reports UNPINNED_CHECKPOINT)
and sizes are estimated from the official state dicts where we built them (approx).
Where the official code reads something our loaders do not (OpenAI CLIP's JIT archives via
`clip.load`), the spec names what we read and why it is the same weights.
"""

from metrics.aesthetic import pins as aesthetic_pins
from metrics.clip import aesthetic
from metrics.clip import frame_similarity
from metrics.dino import pins as dino_pins
from metrics.flow import pins as flow_pins
from metrics.frame_interpolation import pins as amt_pins
from metrics.i3d import pins as i3d_pins
from metrics.iqa import pins as iqa_pins
from metrics.tracking import pins as tracking_pins
from metrics.viclip import pins as viclip_pins

# temporal_dino_consistency: torch.hub.load("facebookresearch/dino:main", "dino_vitb16").
DINO_VITB16 = dino_pins.DINO_VITB16
# temporal_clip_consistency: clip.load("ViT-B/32") (the openai/CLIP package). The same
# OpenAI weights as transformers' conversion, read by metrics.clip.vision (quick_gelu:
# the openai package always builds QuickGELU).
CLIP_VIT_B32 = frame_similarity.CLIP_VIT_B32
# aesthetic_quality: clip.load("ViT-L/14") plus LAION-AI/aesthetic-predictor's linear head.
CLIP_VIT_L14 = aesthetic.CLIP_VIT_L14
LAION_AESTHETIC_LINEAR = aesthetic_pins.LAION_AESTHETIC_LINEAR
# dynamic_degree: princeton-vl RAFT raft-things.pth (inside RAFT's models.zip).
RAFT_THINGS = flow_pins.RAFT_THINGS
# tracking_strength: torch.hub.load("facebookresearch/co-tracker", "cotracker2_online").
COTRACKER2 = tracking_pins.COTRACKER2
# temporal_motion_smoothness: AMT-S (third_party/amt/cfgs/AMT-S.yaml).
AMT_S = amt_pins.AMT_S
# imaging_quality: pyiqa MUSIQ with the SPAQ weights (the URL the official code wgets).
MUSIQ_SPAQ = iqa_pins.MUSIQ_SPAQ
# camera/main_object/background/style alignment, overall_consistency: ViCLIP + CLIP BPE.
VICLIP = viclip_pins.VICLIP
CLIP_BPE = viclip_pins.CLIP_BPE
# fvd & kvd: InceptionI3d(400), the VideoGPT-style weights at the revision the code pins.
I3D_400 = i3d_pins.I3D_400

TEMPORAL_DINO_CONSISTENCY = (DINO_VITB16,)
TEMPORAL_CLIP_CONSISTENCY = (CLIP_VIT_B32,)
AESTHETIC_QUALITY = (CLIP_VIT_L14, LAION_AESTHETIC_LINEAR)
DYNAMIC_DEGREE = (RAFT_THINGS,)
TRACKING_STRENGTH = (COTRACKER2,)
MOTION_SMOOTHNESS = (AMT_S,)
IMAGING_QUALITY = (MUSIQ_SPAQ,)
TEXT_VIDEO_ALIGNMENT = (VICLIP, CLIP_BPE)
FVD = (I3D_400,)
ALL = (TEMPORAL_DINO_CONSISTENCY + TEMPORAL_CLIP_CONSISTENCY + AESTHETIC_QUALITY
       + DYNAMIC_DEGREE + TRACKING_STRENGTH + MOTION_SMOOTHNESS + IMAGING_QUALITY
       + TEXT_VIDEO_ALIGNMENT + FVD)
