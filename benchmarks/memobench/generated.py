"""Finding a model's generated clips in the layouts run_eval.py discovers (spec §2.6).

Synthetic root (e.g. output/{model}/Synthetic):
    {Scene}/{Scene}_{NNN}/frames/*.png    nested + frames/ (the documented layout)
    {Scene}_{NNN}/frames/*.png            flat + frames/
    .../{clip}/samples-rgb/*.png          Stable Virtual Camera
    .../{clip}/*.png                      frames directly in the clip folder
    .../{clip}/video.mp4                  one video per clip folder
    {Scene}_{NNN}.mp4                     flat videos at the root
Real root (e.g. output/{model}/Real): {NNN}/..., real_{NNN}/... (Open-Sora), {NNN}.mp4.

Deviations, for friendliness, that change no number: clip numbers are normalised to
three digits (`Barnyard_1` is `Barnyard_001`), and .jpg frames count as frames
(run_eval.py looks only for .png when discovering, then reads .png/.jpg alike).
"""

import dataclasses
import pathlib
import re
from typing import List, Optional

from benchmarks.common.errors import InputError
from benchmarks.memobench.dataset import REAL, SYNTHETIC
from metrics.video import frames as frames_lib

_CLIP_RE = re.compile(r"^(.+)_(\d+)$")
_REAL_RE = re.compile(r"^(?:real_)?(\d+)$")
_FRAME_SUBDIRS = ("frames", "samples-rgb")


@dataclasses.dataclass(frozen=True)
class GeneratedClip:
    clip_id: str
    split: str
    scene: str
    source: pathlib.Path   # frame folder or video file
    layout: str
    # Set when discovery could not look inside (an unreadable scene folder): the clip
    # (named after the folder) is then that sample's error row, and the run goes on.
    error: str = ""


def _has_frames(folder: pathlib.Path) -> bool:
    try:
        return any(p.suffix.lower() in frames_lib.IMAGE_EXTENSIONS for p in folder.iterdir()
                   if p.is_file())
    except OSError:
        return True  # unreadable: chosen as the source, so the clip's load names the error


def _listing(folder: pathlib.Path):
    """The folder's entries, sorted; OSError as it comes (the caller decides)."""
    return sorted(folder.iterdir())


def _clip_source(clip_dir: pathlib.Path, prefix: str):
    """(source, layout) of one clip folder, or None when it holds no frames or video."""
    video = clip_dir / "video.mp4"
    if video.is_file():
        return video, prefix + "/video.mp4"
    for sub in _FRAME_SUBDIRS:
        if (clip_dir / sub).is_dir() and _has_frames(clip_dir / sub):
            return clip_dir / sub, f"{prefix}/{sub}"
    if _has_frames(clip_dir):
        return clip_dir, prefix + "/*.png"
    return None


def _synthetic_id(name: str) -> Optional[str]:
    m = _CLIP_RE.match(name)
    return f"{m.group(1)}_{int(m.group(2)):03d}" if m else None


def discover_synthetic(root: pathlib.Path) -> List[GeneratedClip]:
    """Synthetic clips under `root`, in run_eval.py's order (sorted names)."""
    _check_root(root, SYNTHETIC)
    clips = []
    for top in _listing(root):
        if top.is_file() and top.suffix == ".mp4" and _synthetic_id(top.stem):
            cid = _synthetic_id(top.stem)
            clips.append(GeneratedClip(cid, SYNTHETIC, cid.rsplit("_", 1)[0], top, "{clip}.mp4"))
            continue
        if not top.is_dir():
            continue
        if _synthetic_id(top.name):
            if (root / (top.name + ".mp4")).exists():
                continue  # the flat video of the same clip wins, as upstream
            cid = _synthetic_id(top.name)
            source, layout = _clip_source(top, "{clip}") or (top / "frames", "{clip}")
            clips.append(GeneratedClip(cid, SYNTHETIC, cid.rsplit("_", 1)[0], source, layout))
            continue
        try:
            clip_dirs = _listing(top)
        except OSError as e:
            clips.append(GeneratedClip(top.name, SYNTHETIC, top.name, top, "{scene}",
                                       f"{type(e).__name__}: {e}"))
            continue
        for clip_dir in clip_dirs:
            cid = _synthetic_id(clip_dir.name)
            if not cid or not clip_dir.is_dir():
                continue
            found = _clip_source(clip_dir, "{scene}/{clip}")
            # A clip folder with nothing readable is kept, so that its error is reported.
            source, layout = found or (clip_dir / "frames", "{scene}/{clip}")
            clips.append(GeneratedClip(cid, SYNTHETIC, cid.rsplit("_", 1)[0], source, layout))
    return clips


def discover_real(root: pathlib.Path) -> List[GeneratedClip]:
    """Real clips under `root`: {NNN}/, real_{NNN}/ and {NNN}.mp4."""
    _check_root(root, REAL)
    clips = []
    for top in _listing(root):
        if top.is_file() and top.suffix == ".mp4" and top.stem.isdigit():
            clips.append(GeneratedClip(top.stem.zfill(3), REAL, REAL, top, "{NNN}.mp4"))
            continue
        m = _REAL_RE.match(top.name)
        if not (m and top.is_dir()):
            continue
        cid = m.group(1).zfill(3)
        if (root / (cid + ".mp4")).exists() or (root / (m.group(1) + ".mp4")).exists():
            continue
        source, layout = _clip_source(top, "{NNN}") or (top / "frames", "{NNN}")
        clips.append(GeneratedClip(cid, REAL, REAL, source, layout))
    return clips


_LAYOUT = {SYNTHETIC: "output/<model>/Synthetic with {Scene}/{Scene}_{NNN}/frames/*.png",
           REAL: "output/<model>/Real with {NNN}/frames/*.png or {NNN}.mp4"}
_OTHER_MODE = {SYNTHETIC: "real", REAL: "synthetic"}


def _check_root(root: pathlib.Path, split: str) -> None:
    found = None
    if not root.is_dir():
        found = "a file" if root.exists() else "no such directory"
    else:
        try:
            _listing(root)
        except OSError as e:
            found = f"a folder that cannot be listed ({type(e).__name__}: {e})"
    if found:
        raise InputError(root, f"a folder of generated {split} clips (e.g. {_LAYOUT[split]}; "
                         f"pass --mode={_OTHER_MODE[split]} to evaluate the other split "
                         "alone)", found)
