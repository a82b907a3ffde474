"""Every generated-output layout of spec §2.6 is discovered, in upstream order."""

import pytest

from benchmarks.common.errors import InputError
from benchmarks.memobench import generated


def _touch(path, data=b"x"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_synthetic_layouts(tmp_path):
    root = tmp_path / "Synthetic"
    _touch(root / "Barnyard" / "Barnyard_001" / "frames" / "00000.png")
    _touch(root / "Barnyard" / "Barnyard_002" / "samples-rgb" / "0.png")
    _touch(root / "Barnyard" / "Barnyard_003" / "00000.png")
    _touch(root / "Barnyard" / "Barnyard_004" / "video.mp4")
    _touch(root / "CityPark_5" / "frames" / "1.png")          # flat, unpadded number
    _touch(root / "Havana_001.mp4")                             # flat video
    _touch(root / "Havana_001" / "frames" / "1.png")            # shadowed by the flat video
    (root / "Barnyard" / "notes").mkdir()
    _touch(root / "Barnyard" / "Barnyard_009" / "readme.txt")   # nothing readable: reported
    clips = generated.discover_synthetic(root)
    got = {(c.clip_id, c.source.relative_to(root).as_posix(), c.layout) for c in clips}
    assert got == {
        ("Barnyard_001", "Barnyard/Barnyard_001/frames", "{scene}/{clip}/frames"),
        ("Barnyard_002", "Barnyard/Barnyard_002/samples-rgb", "{scene}/{clip}/samples-rgb"),
        ("Barnyard_003", "Barnyard/Barnyard_003", "{scene}/{clip}/*.png"),
        ("Barnyard_004", "Barnyard/Barnyard_004/video.mp4", "{scene}/{clip}/video.mp4"),
        ("Barnyard_009", "Barnyard/Barnyard_009/frames", "{scene}/{clip}"),
        ("CityPark_005", "CityPark_5/frames", "{clip}/frames"),
        ("Havana_001", "Havana_001.mp4", "{clip}.mp4"),
    }
    assert all(c.split == "synthetic" for c in clips)
    assert {c.scene for c in clips} == {"Barnyard", "CityPark", "Havana"}


def test_real_layouts(tmp_path):
    root = tmp_path / "Real"
    _touch(root / "001" / "frames" / "00001.png")
    _touch(root / "real_2" / "0001.png")       # Open-Sora
    _touch(root / "003" / "video.mp4")
    _touch(root / "4.mp4")
    _touch(root / "notes" / "x.png")
    clips = generated.discover_real(root)
    assert [(c.clip_id, c.layout) for c in clips] == [
        ("001", "{NNN}/frames"), ("003", "{NNN}/video.mp4"), ("004", "{NNN}.mp4"),
        ("002", "{NNN}/*.png")]
    assert all(c.scene == "real" for c in clips)


def test_missing_root_names_the_path(tmp_path):
    with pytest.raises(InputError, match="Synthetic: expected a folder of generated synthetic clips"):
        generated.discover_synthetic(tmp_path / "Synthetic")


def test_a_missing_or_file_root_names_the_split_and_the_mode_flag(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError) as raised:
        generated.discover_real(tmp_path / "Real")
    assert "generated real clips" in str(raised.value)
    assert "--mode=synthetic" in str(raised.value)
    assert str(raised.value).endswith("found no such directory")
    with pytest.raises(InputError) as raised:
        generated.discover_synthetic(tmp_path / "file")
    assert "--mode=real" in str(raised.value) and str(raised.value).endswith("found a file")


def _unlistable(monkeypatch, *names):
    """Makes folders with these names raise PermissionError when listed (chmod 000 does
    not stop root, which the tests may run as)."""
    real = generated.pathlib.Path.iterdir

    def iterdir(self):
        if self.name in names:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(generated.pathlib.Path, "iterdir", iterdir)


def test_an_unlistable_scene_or_frames_folder_is_one_clip_not_a_crash(tmp_path, monkeypatch):
    root = tmp_path / "Synthetic"
    _touch(root / "Barnyard" / "Barnyard_001" / "frames" / "00000.png")
    _touch(root / "CityPark" / "CityPark_001" / "frames" / "00000.png")
    _touch(root / "Havana" / "Havana_001" / "frames" / "00000.png")
    _unlistable(monkeypatch, "CityPark", "frames")
    clips = {c.clip_id: c for c in generated.discover_synthetic(root)}
    assert set(clips) == {"Barnyard_001", "CityPark", "Havana_001"}
    assert clips["CityPark"].source == root / "CityPark"
    assert "PermissionError" in clips["CityPark"].error
    # An unlistable frames/ is still the clip's source: loading it names the error.
    assert clips["Havana_001"].source == root / "Havana" / "Havana_001" / "frames"
    assert not clips["Havana_001"].error


def test_an_unlistable_root_is_bad_input(tmp_path, monkeypatch):
    root = tmp_path / "Synthetic"
    root.mkdir()
    _unlistable(monkeypatch, "Synthetic")
    with pytest.raises(InputError, match=r"Synthetic: expected .*cannot be listed"):
        generated.discover_synthetic(root)


def test_folders_and_videos_not_taken_as_clips_are_named(tmp_path):
    root = tmp_path / "Synthetic"
    _touch(root / "Barnyard" / "Barnyard_001" / "frames" / "00000.png")
    _touch(root / "Barnyard" / "-Barnyard_002" / "frames" / "00000.png")
    _touch(root / "Barnyard" / "Barnyard_003 copy" / "frames" / "00000.png")
    _touch(root / "Barnyard" / "notes.txt")                     # not a folder or video: quiet
    _touch(root / "Barnyard_004 copy" / "frames" / "00000.png")  # a clip folder at the root
    _touch(root / "clip.mp4")
    _touch(root / "Barnyard" / "Barnyard_005.mp4")             # a flat video, not at the root
    skipped = []
    clips = generated.discover_synthetic(root, skipped)
    assert [c.clip_id for c in clips] == ["Barnyard_001"]
    assert [s.split(": ", 1)[0] for s in skipped] == [
        str(root / "Barnyard" / "-Barnyard_002"), str(root / "Barnyard" / "Barnyard_003 copy"),
        str(root / "Barnyard" / "Barnyard_005.mp4"), str(root / "Barnyard_004 copy"),
        str(root / "clip.mp4")]
    assert all(": not evaluated: " in s and "{Scene}_{NNN}" in s for s in skipped)
    assert "a {clip}.mp4 is read at the root only" in skipped[2]
    real = tmp_path / "Real"
    _touch(real / "001" / "frames" / "00001.png")
    _touch(real / "001 copy" / "frames" / "00001.png")
    _touch(real / "x.mp4")
    skipped = []
    assert [c.clip_id for c in generated.discover_real(real, skipped)] == ["001"]
    assert [s.split(": ", 1)[0] for s in skipped] == [str(real / "001 copy"),
                                                      str(real / "x.mp4")]


def test_sources_not_read_are_named_in_the_clips_warnings(tmp_path):
    root = tmp_path / "Synthetic"
    clip = root / "Barnyard" / "Barnyard_001"
    _touch(clip / "frames" / "00000.png")
    _touch(clip / "video.mp4")
    _touch(clip / "Barnyard_001.mp4")
    _touch(root / "Barnyard" / "Barnyard_002" / "frames" / "00000.png")
    _touch(root / "Havana_001.mp4")
    _touch(root / "Havana_001" / "frames" / "1.png")
    clips = {c.clip_id: c for c in generated.discover_synthetic(root)}
    assert clips["Barnyard_001"].source == clip / "video.mp4"  # the choice is unchanged
    assert clips["Barnyard_001"].warnings == (
        f"{clip}: read video.mp4; also there, not read: frames/, Barnyard_001.mp4 (the "
        "first of video.mp4, frames/, samples-rgb/, the folder's own images is read, as "
        "discovery reads a clip folder)",)
    assert clips["Barnyard_002"].warnings == ()
    [flat] = clips["Havana_001"].warnings
    assert flat.startswith(f"{root / 'Havana_001'}: a folder of the same clip as Havana_001.mp4")
    real = tmp_path / "Real"
    _touch(real / "7.mp4")
    _touch(real / "real_7" / "0001.png")
    [clip7] = generated.discover_real(real)
    assert clip7.source == real / "7.mp4" and "real_7: a folder" in clip7.warnings[0]
