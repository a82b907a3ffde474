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
    _touch(real / "007.mp4")  # {NNN}.mp4, zfill(3): run_eval.py skips the clip's folders
    _touch(real / "real_7" / "0001.png")
    _touch(real / "7" / "frames" / "0001.png")
    [clip7] = generated.discover_real(real)
    assert clip7.source == real / "007.mp4" and not clip7.error
    assert [w.split(": ", 1)[0] for w in clip7.warnings] == [str(real / "7"),
                                                             str(real / "real_7")]
    assert all("a folder of the same clip as 007.mp4, not read" in w for w in clip7.warnings)


_AMBIGUOUS = ("one source of generated clip 007 (run_eval.py would evaluate each of these "
              "as its own clip 007, so which one is meant cannot be told: keep one)")


@pytest.mark.parametrize("names", [
    ("7.mp4", "real_007/0001.png"),          # the case found: two clips named 007
    ("7.mp4", "real_7/0001.png"),            # 7.mp4 is not 007.mp4: run_eval.py reads both
    ("7.mp4", "007/frames/0001.png"),
    ("007/frames/0001.png", "real_7/0001.png"),
    ("7.mp4", "007.mp4"),
])
def test_two_real_sources_of_one_clip_are_one_clip_in_error(tmp_path, names):
    """run_eval.py evaluates each as a clip 007 of its own: not determinable, so the one
    clip 007 is an error naming both (no second clip of the same id)."""
    real = tmp_path / "Real"
    _touch(real / "001" / "frames" / "00001.png")
    for name in names:
        _touch(real / name)
    clips = generated.discover_real(real)
    assert sorted(c.clip_id for c in clips) == ["001", "007"]
    [clip] = [c for c in clips if c.clip_id == "007"]
    paths = sorted(str(real / name.split("/")[0]) for name in names)
    assert clip.expected == _AMBIGUOUS and clip.warnings == ()
    assert clip.error == "2: " + ", ".join(paths)
    assert not [c for c in clips if c.clip_id == "001"][0].error


def test_a_synthetic_clip_spelt_two_ways_reads_the_sheet_spelling(tmp_path):
    """run_eval.py matches a clip by its sheet name (Barnyard_002); Barnyard_2.mp4 it
    never evaluates: read the folder, and name the other in a warning."""
    root = tmp_path / "Synthetic"
    _touch(root / "Barnyard" / "Barnyard_002" / "frames" / "00000.png")
    _touch(root / "Barnyard_2.mp4")
    _touch(root / "CityPark_01" / "frames" / "00000.png")
    _touch(root / "CityPark" / "CityPark_1" / "frames" / "00000.png")
    clips = {c.clip_id: c for c in generated.discover_synthetic(root)}
    assert sorted(clips) == ["Barnyard_002", "CityPark_001"]
    barnyard = clips["Barnyard_002"]
    assert barnyard.source == root / "Barnyard" / "Barnyard_002" / "frames"
    assert not barnyard.error
    assert barnyard.warnings == (
        f"{root / 'Barnyard_2.mp4'}: another source of clip Barnyard_002, not read "
        "(run_eval.py knows the clip only as Barnyard_002)",)
    # Neither spelling is the sheet's: which one is meant cannot be told.
    assert clips["CityPark_001"].error == "2: " + ", ".join(
        sorted([str(root / "CityPark" / "CityPark_1"), str(root / "CityPark_01")]))


def test_a_nested_and_a_flat_folder_of_one_synthetic_clip_are_an_error(tmp_path):
    root = tmp_path / "Synthetic"
    _touch(root / "Barnyard" / "Barnyard_002" / "frames" / "00000.png")
    _touch(root / "Barnyard_002" / "frames" / "00000.png")
    [clip] = generated.discover_synthetic(root)
    assert clip.clip_id == "Barnyard_002"
    assert clip.expected.startswith("one source of generated clip Barnyard_002")
    assert clip.error == "2: " + ", ".join(
        sorted([str(root / "Barnyard" / "Barnyard_002"), str(root / "Barnyard_002")]))
