"""artifact_manifest.json: every <index>.mp4 the run found, with size and digest.

A found entry that cannot be read (a link to nothing, a symlink loop, a folder named
like a video) is listed too, with size 0 and its error: the sample's error row where the
run scored it, else what is there instead. It never stops the manifest.
"""

import cv2

from metrics.video import frames as frames_lib
from proto import manifest_pb2


def _unreadable(path) -> str:
    """The error of an entry that is no readable file (the shared decoder's words)."""
    return str(frames_lib.FrameInputError(path, "a readable <index>.mp4 video file",
                                          frames_lib.not_a_file(path)))


def build(benchmark_id, model_name, video_dir, layout, samples_by_id
          ) -> manifest_pb2.ArtifactManifest:
    out = manifest_pb2.ArtifactManifest(benchmark_id=benchmark_id, model_name=model_name,
                                        root=str(video_dir))
    for prompt, path in layout.videos:
        art = out.artifacts.add(sample_id=prompt.index, path=str(path), layout="flat <index>.mp4",
                                kind=manifest_pb2.VIDEO_FILE)
        sample = samples_by_id.get(prompt.index)
        try:
            readable = path.is_file()
            art.size_bytes = path.stat().st_size if readable else 0
        except OSError:
            readable = False
        if sample is not None and sample.error:
            art.error = sample.error
            continue
        if not readable:
            art.error = _unreadable(path)
            continue
        if sample is None:
            continue
        art.sha256 = sample.input_digest
        art.num_frames = int(sample.diagnostics.get("num_frames", 0))
        capture = cv2.VideoCapture(str(path))
        try:
            art.width = int(capture.get(cv2.CAP_PROP_FRAME_WIDTH))
            art.height = int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT))
            art.fps = float(capture.get(cv2.CAP_PROP_FPS))
        finally:
            capture.release()
    return out
