"""The stored official VBench CLIP / DINO run (official_runs/vbench_clip_dino.py) and the
videos it was made on, shared by vbench_clip_parity and vbench_dino_parity.

vbench_official.csv: per frame the shape, sum, sum of squares and 64 seeded values of
each tensor a network got (official_numbers' format; frames 0-11 are the 4 clips' frames
in order, 100 + i the aesthetic video's frame i). vbench_official.npz: every element of the
L2-normalised features, the head scores, the text tokens and the per-video dicts'
values. vbench_official.json: provenance, seeds and the fingerprints of the weights and
frames the run used (checked here, so that a changed generator reads as a stale record,
not as a parity difference).
"""

import contextlib
import hashlib
import json
import pathlib
from typing import Dict, List

import numpy as np

from benchmarks.common import paths
from benchmarks.vbench import dimension
from tools.calibration import frames as frames_lib
from tools.calibration import official_numbers

CSV = "tools/calibration/vbench_official.csv"
NPZ = "tools/calibration/vbench_official.npz"
JSON = "tools/calibration/vbench_official.json"
VBENCH_COMMIT = "45e79ec14e69a2187202c675d2dbce1a71843d53"
FPS = 8.0


def provenance(path: str = JSON) -> dict:
    """A VBench record's JSON (this module's by default), its upstream commit checked."""
    record = json.loads(paths.runfile(path).read_text(encoding="utf-8"))
    if VBENCH_COMMIT not in record["upstream"]["vbench"]:
        raise ValueError(f"{path} is of {record['upstream']['vbench']}, not {VBENCH_COMMIT}")
    return record


def arrays(path: str = NPZ) -> Dict[str, np.ndarray]:
    """A VBench record's npz (this module's by default), every array loaded."""
    with np.load(paths.runfile(path)) as data:
        return {k: data[k] for k in data.files}


def numbers() -> official_numbers.Official:
    return official_numbers.read(CSV)


def check_fingerprint(name: str, state) -> None:
    """Raises ValueError when `state` is not the weights the record was made with."""
    from tools.calibration import vbench_weights  # pylint: disable=import-outside-toplevel
    wanted = provenance()["weights_fingerprint"][name]
    if vbench_weights.fingerprint(state) != wanted:
        raise ValueError(f"{JSON} was made with other {name} weights: stale")


def clips() -> List[np.ndarray]:
    """The run's 4 RGB clips (T=3, H, W, 3), their digests checked.

    Raises:
        ValueError: A rendered clip is not the one the record was made on.
    """
    out = [np.ascontiguousarray(c[..., ::-1]) for c in frames_lib.frames_by_size()]
    digests = [hashlib.sha256(c.tobytes()).hexdigest() for c in out]
    if digests != provenance()["frames_sha256"]:
        raise ValueError(f"{JSON} was made on other frames: stale")
    return out


def video(rgb: np.ndarray, index: int, style: str = "") -> dimension.Video:
    """The official run's "/videos/clip<index>.mp4" as our dimensions see it."""
    return dimension.Video(rgb=rgb, fps=FPS, path=pathlib.Path(f"/videos/clip{index}.mp4"),
                           auxiliary={"appearance_style": style} if style else None)


def stats(tensors, name: str, first_frame: int = 0):
    """(ours, theirs) of official_numbers' stats of per-frame `tensors` vs tensor `name`."""
    table = numbers()
    theirs = [np.array([v for _, _, v in table[(first_frame + i, name)]])
              for i in range(len(tensors))]
    mine = [official_numbers.stats_like(t, table[(first_frame + i, name)])
            for i, t in enumerate(tensors)]
    return mine, theirs


def inputs_text() -> str:
    sizes = ", ".join(f"{w}x{h}" for h, w in frames_lib.SIZES)
    return (f"{len(frames_lib.SIZES)} RGB clips of {frames_lib.FRAMES_PER_SIZE} frames of the "
            f"//tools/fixtures room (seed {frames_lib.SEED}) at {sizes}, handed to the official "
            "load_video as decord's frames (decode not compared)")


@contextlib.contextmanager
def captured(module):
    """Every call of `module` inside the block: (positional args, keyword args, output),
    recorded by a forward hook that changes nothing (our code runs as it is)."""
    calls = []

    def keep(_, args, kwargs, output):
        calls.append((args, kwargs, output))
    handle = module.register_forward_hook(keep, with_kwargs=True)
    try:
        yield calls
    finally:
        handle.remove()
