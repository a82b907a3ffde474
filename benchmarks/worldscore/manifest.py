"""artifact_manifest.json: every generated instance folder the run walked (its frames
folder, frame count, size, the digest the sample loop keyed it by, or its error)."""

from benchmarks.worldscore import layout
from proto import manifest_pb2


def build(benchmark_id, model_name, generated_root, items, samples_by_key
          ) -> manifest_pb2.ArtifactManifest:
    out = manifest_pb2.ArtifactManifest(benchmark_id=benchmark_id, model_name=model_name,
                                        root=str(generated_root))
    for item in items:
        if item.instance is None:
            continue
        frames = item.instance.path / layout.FRAMES
        files = sorted(frames.iterdir()) if frames.is_dir() else []
        art = out.artifacts.add(
            sample_id=item.key, split=item.movement, path=str(frames),
            kind=manifest_pb2.FRAME_DIRECTORY, layout="worldscore_output instance folder",
            size_bytes=sum(f.stat().st_size for f in files if f.is_file()))
        sample = samples_by_key.get(item.key)
        if sample is None:
            continue
        if sample.error:
            art.error = sample.error
            continue
        art.sha256 = sample.input_digest
        art.num_frames = int(sample.diagnostics.get("num_frames", 0))
        art.width = int(sample.diagnostics.get("width", 0))
        art.height = int(sample.diagnostics.get("height", 0))
    return out
