"""The ViCLIP text-video cosine that temporal_style and overall_consistency both compute
(spec §5.1, §5.2, §9 quirks 2 and 13; upstream vbench/temporal_style.py:43-65,
vbench/overall_consistency.py:43-64 at 45e79ec: the same code, only the prompt suites
differ).

Upstream per video: `read_frames_decord_by_fps(path, num_frames=8, sample="middle")`:
8 "middle" indices of the vlen frames (utils.get_frame_indices: edges =
linspace(0, vlen, n + 1).astype(int), index (edges[k] + edges[k+1] - 1) // 2, padded
with the last index when vlen < 8), as a uint8 (8, 3, H, W) tensor; `clip_transform(224)`
on that uint8 tensor (bicubic Resize antialias=False rounds and clamps back to uint8,
CenterCrop, / 255, CLIP normalisation); `encode_vision(frames[None], test=True)`,
L2-normalised; the entry's prompt through `encode_text` (ViCLIP's tokenizer at a
32-token context, truncated with EOT forced last), L2-normalised; the score is the raw
cosine `clip_feat @ text_feat.T` (no x100). Aggregate = mean over videos.

Here: metrics.viclip (our ViCLIP network loading the official file strictly, its
tokenizer over the official BPE file, `inputs.pixel_values` with antialias=False and
`middle_frame_indices`), fp32 as upstream. Difference: our frames are one OpenCV decode
of the whole video (the pixels decord gives for these codecs), indexed after decoding;
upstream's `get_batch` decodes only those frames (same pixels: decoding is sequential).
"""

from benchmarks.vbench import dimension
from benchmarks.vbench.dimensions import transforms
from metrics.viclip import inputs
from metrics.viclip import similarity

NUM_FRAMES = 8  # read_frames_decord_by_fps(num_frames=8)


def compute(video: dimension.Video, scorer: similarity.ViClipScorer) -> dimension.Value:
    """cos(ViCLIP video embedding of the 8 middle frames, ViCLIP text embedding of
    video.prompt) (module doc).

    Args:
        video: Every frame of the video (T >= 1) and its prompt.
        scorer: metrics.viclip.similarity.ViClipScorer(
            metrics.viclip.loader.load_viclip(<metrics.viclip.pins.VICLIP>, device),
            metrics.viclip.tokenizer.load_tokenizer(<metrics.viclip.pins.CLIP_BPE>),
            device) with antialias False (clip_transform's explicit setting).

    Raises:
        ValueError: Bad frames, an empty prompt, a scorer with antialias on, or a model
            not built for 8 frames.
    """
    rgb = transforms.checked(video.rgb)
    if not video.prompt:
        raise ValueError(f"{video.path}: no prompt; temporal_style and overall_consistency "
                         "score the video against its prompt")
    if scorer.antialias:
        raise ValueError("clip_transform resizes with antialias=False; this scorer antialiases")
    if scorer.model.config.num_frames != NUM_FRAMES:
        raise ValueError(f"VBench feeds ViCLIP {NUM_FRAMES} frames, this model takes "
                         f"{scorer.model.config.num_frames}")
    picked = rgb[inputs.middle_frame_indices(len(rgb), NUM_FRAMES)]
    video_embedding = similarity.video_embedding(picked, scorer)
    return dimension.Value(similarity.cosine(video_embedding,
                                             similarity.text_embedding(video.prompt, scorer)))
