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

Nothing is passed over in silence. A clip folder holding several sources is read from
the first of video.mp4, frames/, samples-rgb/, its own images (and a flat {clip}.mp4
wins over a {clip}/ folder), as before; the others, and any other video in the folder,
are named in the clip's `warnings` (its input warnings once scored). A folder or video
that is not taken as a clip (`Barnyard_001 copy`, `-Barnyard_001`: a clip name is
{Scene}_{NNN} with the scene starting with a letter or digit; Real: {NNN}, real_{NNN})
is named, with why, in the `skipped` list the caller passes (the runner's notes).

One clip, one source. A Real {NNN}.mp4 (three digits) hides every folder of its clip,
as run_eval.py skips them; any other pair of sources of one clip (`7.mp4` and
`real_007/`, `007/` and `real_7/`) run_eval.py evaluates twice, as two clips of the same
id, so which one is meant cannot be told: the clip is then an error naming them all.
Synthetic: run_eval.py knows a clip only by its sheet name (Barnyard_001), so where one
source has that name and the others another spelling (Barnyard_1), the first is read
and the others are named in its warnings; two sources of the same name (a nested and a
flat clip folder) are an error naming both.
"""

import dataclasses
import pathlib
import re
from typing import List, Optional, Tuple

from benchmarks.common.errors import InputError
from benchmarks.memobench.dataset import REAL, SYNTHETIC
from metrics.video import frames as frames_lib

_CLIP_RE = re.compile(r"^([A-Za-z0-9].*)_(\d+)$")
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
    # Other sources of the same clip that are not read (named, with the one read).
    warnings: Tuple[str, ...] = ()
    # What the clip's input should have been, where `error` is set.
    expected: str = "a readable folder of generated clips"


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


_ORDER = ("the first of video.mp4, frames/, samples-rgb/, the folder's own images is "
          "read, as discovery reads a clip folder")


def _others(clip_dir: pathlib.Path, source: pathlib.Path) -> Tuple[str, ...]:
    """A warning naming the clip folder's sources other than `source` (none: ())."""
    found = []
    if (clip_dir / "video.mp4").is_file() and source != clip_dir / "video.mp4":
        found.append("video.mp4")
    for sub in _FRAME_SUBDIRS:
        if (clip_dir / sub).is_dir() and source != clip_dir / sub and _has_frames(clip_dir / sub):
            found.append(f"{sub}/")
    if source != clip_dir and _has_frames(clip_dir):
        found.append("the folder's own images")
    try:
        found += [p.name for p in _listing(clip_dir) if p.name != "video.mp4" and p.is_file()
                  and p.suffix.lower() in frames_lib.VIDEO_EXTENSIONS]
    except OSError:
        pass
    if not found:
        return ()
    return (f"{clip_dir}: read {source.relative_to(clip_dir).as_posix() or '.'}; also "
            f"there, not read: {', '.join(found)} ({_ORDER})",)


def _flat_wins(folder: pathlib.Path, video: pathlib.Path) -> str:
    return (f"{folder}: a folder of the same clip as {video.name}, not read (a flat "
            "{clip}.mp4 is read instead of its {clip}/ folder, as upstream)")


def _synthetic_id(name: str) -> Optional[str]:
    m = _CLIP_RE.match(name)
    return f"{m.group(1)}_{int(m.group(2)):03d}" if m else None


def _skip(skipped: Optional[List[str]], path: pathlib.Path, why: str) -> None:
    if skipped is not None:
        skipped.append(f"{path}: {why}")


_SYNTHETIC_NAME = "{Scene}_{NNN}, the scene starting with a letter or digit"


def discover_synthetic(root: pathlib.Path,
                       skipped: Optional[List[str]] = None) -> List[GeneratedClip]:
    """Synthetic clips under `root`, in run_eval.py's order (sorted names); the folders
    and videos not taken as clips are added to `skipped` (each "path: why")."""
    _check_root(root, SYNTHETIC)
    clips = []
    for top in _listing(root):
        if top.is_file() and top.suffix == ".mp4" and _synthetic_id(top.stem):
            cid = _synthetic_id(top.stem)
            shadowed = root / top.stem
            clips.append(GeneratedClip(
                cid, SYNTHETIC, cid.rsplit("_", 1)[0], top, "{clip}.mp4",
                warnings=(_flat_wins(shadowed, top),) if shadowed.is_dir() else ()))
            continue
        if not top.is_dir():
            if top.suffix.lower() in frames_lib.VIDEO_EXTENSIONS:
                _skip(skipped, top, "not evaluated: " + (
                    "a flat clip video is read only as .mp4" if _synthetic_id(top.stem) else
                    f"a video whose name is not a clip's ({_SYNTHETIC_NAME}, .mp4)"))
            continue
        if _synthetic_id(top.name):
            if (root / (top.name + ".mp4")).exists():
                continue  # the flat video of the same clip wins, as upstream (its warning)
            cid = _synthetic_id(top.name)
            found = _clip_source(top, "{clip}")
            source, layout = found or (top / "frames", "{clip}")
            clips.append(GeneratedClip(cid, SYNTHETIC, cid.rsplit("_", 1)[0], source, layout,
                                       warnings=_others(top, source) if found else ()))
            continue
        try:
            clip_dirs = _listing(top)
        except OSError as e:
            clips.append(GeneratedClip(top.name, SYNTHETIC, top.name, top, "{scene}",
                                       f"{type(e).__name__}: {e}"))
            continue
        before, passed = len(clips), []
        for clip_dir in clip_dirs:
            cid = _synthetic_id(clip_dir.name)
            if not cid or not clip_dir.is_dir():
                if clip_dir.is_dir():
                    passed.append((clip_dir, f"not evaluated: a folder in scene folder "
                                   f"{top.name} whose name is not a clip's ({_SYNTHETIC_NAME})"))
                elif clip_dir.suffix.lower() in frames_lib.VIDEO_EXTENSIONS:
                    passed.append((clip_dir, f"not evaluated: a video in scene folder "
                                   f"{top.name} (a scene folder holds clip folders, "
                                   "{Scene}_{NNN}/ with frames/ or video.mp4; a {clip}.mp4 "
                                   "is read at the root only)"))
                continue
            found = _clip_source(clip_dir, "{scene}/{clip}")
            # A clip folder with nothing readable is kept, so that its error is reported.
            source, layout = found or (clip_dir / "frames", "{scene}/{clip}")
            clips.append(GeneratedClip(cid, SYNTHETIC, cid.rsplit("_", 1)[0], source, layout,
                                       warnings=_others(clip_dir, source) if found else ()))
        if len(clips) == before and (not passed or _clip_source(top, "")):
            # No clip inside, and it holds a clip's frames or video, or nothing to name:
            # the folder itself is what was meant.
            _skip(skipped, top, "not evaluated: a folder whose name is not a clip's "
                  f"({_SYNTHETIC_NAME}) and that holds no clip folder")
            continue
        for path, why in passed:
            _skip(skipped, path, why)
    return _one_per_clip(clips, lambda clip: _named(clip).name in (clip.clip_id,
                                                                  clip.clip_id + ".mp4"))


def _named(clip: GeneratedClip) -> pathlib.Path:
    """The clip folder or flat video whose name made the clip."""
    inside = ("video.mp4",) + _FRAME_SUBDIRS
    return clip.source.parent if clip.source.name in inside else clip.source


def _one_per_clip(clips: List[GeneratedClip], official_name) -> List[GeneratedClip]:
    """`clips` with one clip per id, where the first of it stood (see the docstring).

    official_name(clip): whether run_eval.py reads that source under the clip's id.
    """
    by_id = {}
    for clip in clips:
        by_id.setdefault(clip.clip_id, []).append(clip)
    out = []
    for clip in clips:
        same = by_id.pop(clip.clip_id, None)
        if same is None:
            continue  # a later source of a clip already placed
        if len(same) == 1:
            out.append(clip)
            continue
        read = [c for c in same if official_name(c)]
        names = ", ".join(str(_named(c)) for c in same)
        if len(read) == 1:
            others = ", ".join(str(_named(c)) for c in same if c is not read[0])
            out.append(dataclasses.replace(read[0], warnings=read[0].warnings + (
                f"{others}: another source of clip {clip.clip_id}, not read (run_eval.py "
                f"knows the clip only as {_named(read[0]).name})",)))
            continue
        out.append(dataclasses.replace(
            clip, warnings=(), expected=(
                f"one source of generated clip {clip.clip_id} (run_eval.py would evaluate "
                f"each of these as its own clip {clip.clip_id}, so which one is meant "
                "cannot be told: keep one)"),
            error=f"{len(same)}: {names}"))
    return out


def discover_real(root: pathlib.Path, skipped: Optional[List[str]] = None
                  ) -> List[GeneratedClip]:
    """Real clips under `root`: {NNN}/, real_{NNN}/ and {NNN}.mp4; the folders and videos
    not taken as clips are added to `skipped` (each "path: why")."""
    _check_root(root, REAL)
    clips = []
    listing = _listing(root)
    for top in listing:
        if top.is_file() and top.suffix == ".mp4" and top.stem.isdigit():
            cid = top.stem.zfill(3)
            # run_eval.py skips a clip folder when {NNN}.mp4 (its zfill(3) id) exists.
            shadowed = [d for d in listing if cid == top.stem and d.is_dir()
                        and _REAL_RE.match(d.name)
                        and _REAL_RE.match(d.name).group(1).zfill(3) == cid]
            clips.append(GeneratedClip(cid, REAL, REAL, top, "{NNN}.mp4",
                                       warnings=tuple(_flat_wins(d, top) for d in shadowed)))
            continue
        m = _REAL_RE.match(top.name)
        if not (m and top.is_dir()):
            if top.is_dir():
                _skip(skipped, top, "not evaluated: a folder whose name is not a real "
                      "clip's ({NNN} or real_{NNN})")
            elif top.suffix.lower() in frames_lib.VIDEO_EXTENSIONS:
                _skip(skipped, top, "not evaluated: a video whose name is not a real "
                      "clip's ({NNN}.mp4)")
            continue
        cid = m.group(1).zfill(3)
        if (root / (cid + ".mp4")).exists():
            continue  # the flat video wins, as upstream (its clip's warning names this)
        found = _clip_source(top, "{NNN}")
        source, layout = found or (top / "frames", "{NNN}")
        clips.append(GeneratedClip(cid, REAL, REAL, source, layout,
                                   warnings=_others(top, source) if found else ()))
    return _one_per_clip(clips, lambda clip: False)


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
