"""artifact_manifest.json: every generated clip the run found, with size and digest."""

import cv2

from metrics.video import frames as frames_lib
from proto import manifest_pb2


def _probe(source):
    """(width, height, fps) of a clip at native resolution, from its first frame."""
    if source.is_dir():
        image = frames_lib.read_image(frames_lib.list_frame_files(source)[0])
        return image.shape[1], image.shape[0], 0.0
    cap = cv2.VideoCapture(str(source))
    try:
        return (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)),
                float(cap.get(cv2.CAP_PROP_FPS)))
    finally:
        cap.release()


def build(benchmark_id: str, model_name: str, clips, samples_by_key) -> manifest_pb2.ArtifactManifest:
    """One Artifact per discovered clip; facts come from its (possibly resumed) sample."""
    out = manifest_pb2.ArtifactManifest(benchmark_id=benchmark_id, model_name=model_name)
    for clip in clips:
        art = out.artifacts.add(
            sample_id=clip.clip_id, split=clip.split, path=str(clip.source), layout=clip.layout,
            kind=manifest_pb2.FRAME_DIRECTORY if clip.source.is_dir() else manifest_pb2.VIDEO_FILE)
        unreadable = ""
        try:
            if clip.source.exists():
                files = list(clip.source.iterdir()) if clip.source.is_dir() else [clip.source]
                art.size_bytes = sum(f.stat().st_size for f in files if f.is_file())
        except OSError as e:  # an unreadable folder: listed with size 0 and why
            art.size_bytes = 0
            unreadable = f"{clip.source}: cannot be read ({e.strerror or e})"
        sample = samples_by_key.get((clip.split, clip.clip_id))
        if unreadable and (sample is None or not sample.error):
            art.error = unreadable
            continue
        if sample is None:
            continue
        if sample.error:
            art.error = sample.error
            continue
        art.sha256 = sample.input_digest
        art.num_frames = int(sample.diagnostics.get("num_frames", 0))
        art.width, art.height, art.fps = _probe(clip.source)
    return out
