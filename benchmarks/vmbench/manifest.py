"""artifact_manifest.json: every <index>.mp4 the run found, with size and digest."""

import cv2

from proto import manifest_pb2


def build(benchmark_id, model_name, video_dir, layout, samples_by_id
          ) -> manifest_pb2.ArtifactManifest:
    out = manifest_pb2.ArtifactManifest(benchmark_id=benchmark_id, model_name=model_name,
                                        root=str(video_dir))
    for prompt, path in layout.videos:
        art = out.artifacts.add(sample_id=prompt.index, path=str(path), layout="flat <index>.mp4",
                                kind=manifest_pb2.VIDEO_FILE, size_bytes=path.stat().st_size)
        sample = samples_by_id.get(prompt.index)
        if sample is None:
            continue
        if sample.error:
            art.error = sample.error
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
