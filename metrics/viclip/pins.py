"""The pinned checkpoints of the ViCLIP family (the convention: metrics/checkpoints)."""

from metrics.checkpoints import resolver

# ViCLIP InternVid-10M-FLT and the CLIP BPE vocabulary its tokenizer reads.
VICLIP = resolver.CheckpointSpec(
    name="viclip_internvid_10m_flt", filename="ViClip-InternVid-10M-FLT.pth",
    url="https://pjlab-gvm-data.oss-cn-shanghai.aliyuncs.com/internvideo/viclip/ViClip-InternVid-10M-FLT.pth",
    license="Apache-2.0 (OpenGVLab/InternVideo; not verified offline)")
CLIP_BPE = resolver.CheckpointSpec(
    name="clip_bpe_vocab", filename="bpe_simple_vocab_16e6.txt.gz",
    url="https://raw.githubusercontent.com/openai/CLIP/main/clip/bpe_simple_vocab_16e6.txt.gz",
    license="MIT (openai/CLIP)")
