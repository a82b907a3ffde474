"""The checkpoints of MiraBench's model metrics (spec §3, §4), as the official code names
them (mira-space/Miradata @ 7ad0579: evaluation/__init__.py and the files it reads under
`--ckpt_path`). CLIP ViT-L/14 is metrics.clip.aesthetic's spec (that import brings torch).

Pins: the official code downloads every file by URL with no digest, and no file was
downloadable here, so every spec has sha256 "" (the trust gate reports UNPINNED_CHECKPOINT)
and sizes are estimated from the official state dicts where we built them (approx).
Where the official code reads something our loaders do not (OpenAI CLIP's JIT archives via
`clip.load`), the spec names what we read and why it is the same weights.

Build: benchmarks/mirabench/BUILD.bazel (the runner's package) declares this module's
py_library `:checkpoints` (deps //metrics/checkpoints:resolver, //metrics/clip:aesthetic_lib).
"""

import dataclasses
from typing import Optional

from metrics.checkpoints import resolver
from metrics.clip import aesthetic

# temporal_dino_consistency: torch.hub.load("facebookresearch/dino:main", "dino_vitb16"),
# whose hubconf loads this state dict (strict=True) into vit_base(patch_size=16).
DINO_VITB16 = resolver.CheckpointSpec(
    name="dino_vitb16", filename="dino_vitbase16_pretrain.pth",
    url="https://dl.fbaipublicfiles.com/dino/dino_vitbase16_pretrain/dino_vitbase16_pretrain.pth",
    license="Apache-2.0 (facebookresearch/dino)", approx_size_bytes=343_194_624)

# temporal_clip_consistency: clip.load("ViT-B/32") (the openai/CLIP package). The same
# OpenAI weights as transformers' conversion, read by metrics.clip.vision (quick_gelu:
# the openai package always builds QuickGELU).
CLIP_VIT_B32 = resolver.CheckpointSpec(
    name="clip_vit_base_patch32", filename="model.safetensors",
    hf_repo="openai/clip-vit-base-patch32", snapshot=True, license="MIT")

# aesthetic_quality: clip.load("ViT-L/14") plus LAION-AI/aesthetic-predictor's linear head
# (nn.Linear(768, 1) state dict: weight, bias). The official code wgets ".../blob/main/
# sa_0_4_vit_l_14_linear.pth?raw=true"; GitHub serves the same file at /raw/main/ (no "?"
# for the shell to glob in the fetch command).
CLIP_VIT_L14 = aesthetic.CLIP_VIT_L14
LAION_AESTHETIC_LINEAR = resolver.CheckpointSpec(
    name="laion_aesthetic_linear_l14", filename="sa_0_4_vit_l_14_linear.pth",
    url="https://github.com/LAION-AI/aesthetic-predictor/raw/main/sa_0_4_vit_l_14_linear.pth",
    license="MIT (LAION-AI/aesthetic-predictor)", approx_size_bytes=3_076)

# dynamic_degree: princeton-vl RAFT raft-things.pth. Upstream ships it only inside
# models.zip (RAFT download_models.sh, the URL the official code wgets); the resolver
# downloads single files, so this spec's fetch command unzips the member.
@dataclasses.dataclass(frozen=True)
class ZipMemberSpec(resolver.CheckpointSpec):
    """A checkpoint published only as a member of a zip archive."""

    archive_url: str = ""
    member: str = ""

    def fetch_command(self, checkpoint_dir: Optional[str] = None) -> str:
        target = checkpoint_dir or "<checkpoint_dir>"
        archive = f"/tmp/{self.name}.zip"
        return (f"mkdir -p {target}/{self.name} && curl -L {self.archive_url} -o {archive} && "
                f"unzip -j -o {archive} {self.member} -d {target}/{self.name}")


RAFT_THINGS = ZipMemberSpec(
    name="raft_things", filename="raft-things.pth",
    archive_url="https://dl.dropboxusercontent.com/s/4j4z58wuv8o0mfz/models.zip",
    member="models/raft-things.pth",
    license="BSD-3-Clause (princeton-vl/RAFT)", approx_size_bytes=21_045_384)


# tracking_strength: torch.hub.load("facebookresearch/co-tracker", "cotracker2_online").
COTRACKER2 = resolver.CheckpointSpec(
    name="cotracker2", filename="cotracker2.pth", hf_repo="facebook/cotracker",
    license="CC-BY-NC 4.0 (facebookresearch/co-tracker)")

# temporal_motion_smoothness: AMT-S (third_party/amt/cfgs/AMT-S.yaml).
AMT_S = resolver.CheckpointSpec(
    name="amt_s", filename="amt-s.pth", hf_repo="lalala125/AMT",
    license="CC-BY-NC-SA 4.0 (MCG-NKU/AMT)")

# imaging_quality: pyiqa MUSIQ with the SPAQ weights (pyiqa release v0.1-weights; the URL
# the official code wgets). Unpinned: "358bb6af" looks like torchvision's digest prefix,
# but pyiqa downloads with hash_prefix=None (utils/download_util.py, 0.1.16) and publishes
# no digest, so nothing says what it is. Size: 27,125,825 float32 tensors (metrics.iqa.musiq).
MUSIQ_SPAQ = resolver.CheckpointSpec(
    name="musiq_spaq", filename="musiq_spaq_ckpt-358bb6af.pth",
    url=("https://github.com/chaofengc/IQA-PyTorch/releases/download/v0.1-weights/"
         "musiq_spaq_ckpt-358bb6af.pth"),
    license="Apache-2.0 (google-research/musiq weights via pyiqa; not verified offline)",
    approx_size_bytes=108_503_300)

# camera/main_object/background/style alignment, overall_consistency: ViCLIP + CLIP BPE.
VICLIP = resolver.CheckpointSpec(
    name="viclip_internvid_10m_flt", filename="ViClip-InternVid-10M-FLT.pth",
    url="https://pjlab-gvm-data.oss-cn-shanghai.aliyuncs.com/internvideo/viclip/ViClip-InternVid-10M-FLT.pth",
    license="Apache-2.0 (OpenGVLab/InternVideo; not verified offline)")
CLIP_BPE = resolver.CheckpointSpec(
    name="clip_bpe_vocab", filename="bpe_simple_vocab_16e6.txt.gz",
    url="https://raw.githubusercontent.com/openai/CLIP/main/clip/bpe_simple_vocab_16e6.txt.gz",
    license="MIT (openai/CLIP)")

# fvd & kvd: InceptionI3d(400), the VideoGPT-style weights at the revision the code pins.
I3D_400 = resolver.CheckpointSpec(
    name="i3d_pretrained_400", filename="i3d_pretrained_400.pt",
    url=("https://huggingface.co/spaces/LanguageBind/Open-Sora-Plan-v1.0.0/resolve/"
         "e6c5bbf4aa122dc17923279a48e19a81a00be197/opensora/eval/fvd/videogpt/i3d_pretrained_400.pt"),
    license="Apache-2.0 (piergiaj/pytorch-i3d; not verified offline)")

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
