"""layout on the synthetic tree (tools/fixtures/physics_iq_tree.py): every problem named."""

import shutil

import numpy as np
import pytest

from benchmarks.common.errors import InputError
from benchmarks.physics_iq import layout
from tools.fixtures import physics_iq_tree as tree_lib

SPEC = tree_lib.TreeSpec(models=("follows",))


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    return tree_lib.write_tree(tmp_path_factory.mktemp("piq") / "tree", SPEC).root


@pytest.fixture()
def tree(pristine, tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(pristine, root)
    return root


def _lay_out(root, model="follows", **kw):
    return layout.lay_out(root / "physics-IQ-benchmark", root / "descriptions.csv",
                          root / "generated" / model if model else None, **kw)


def _video(path, frames=150, fps=30.0):
    tree_lib.write_video(path, np.full((frames, 96, 128, 3), 90, np.uint8), fps)


def _testing(root, name):
    return root / "physics-IQ-benchmark/split-videos/testing/30FPS" / name


def test_all_found(tree):
    laid = _lay_out(tree)
    assert (laid.problems, laid.refused, laid.upstream_stops) == ((), (), ())
    assert laid.fps == 30.0 and laid.fps_folder == "30FPS" and laid.resample_from is None
    assert [s.id for s in laid.samples] == [f"{i:04d}" for i in range(1, 10)]
    for s, row in zip(laid.samples, tree_lib.rows()):
        assert s.name == row.generated_name == s.generated.name  # upstream's renamed name
        assert int(s.take2_id) == int(s.id) + 198 and s.category == row.scenario.category
        assert s.real_take1.is_file() and s.real_take2.is_file() and s.switch_frame.is_file()
        assert "_take-2_" in s.real_take2.name and s.mask_take2.name.startswith(s.take2_id)
    assert not laid.masks_present and any("to be generated" in n for n in laid.notes)
    laid.raise_if_refused()


def test_missing_takes_are_all_named(tree):
    gone = [_testing(tree, tree_lib.rows()[k].testing_name(30)) for k in (1, 10, 11)]
    for path in gone:
        path.unlink()
    laid = _lay_out(tree)
    assert sorted(p.path for p in laid.refused) == sorted(str(p) for p in gone)
    with pytest.raises(InputError) as err:
        laid.raise_if_refused()
    assert all(str(p) in str(err.value) for p in gone)


def test_missing_masks_when_the_folder_exists(pristine, tmp_path):
    root = tree_lib.write_tree(tmp_path / "t", SPEC, mask_writer=lambda v, m: shutil.copy(v, m)
                               ).root
    masks = root / "physics-IQ-benchmark/video-masks/real/30FPS"
    dropped = [masks / tree_lib.rows()[k].mask_name(30) for k in (0, 12)]
    for path in dropped:
        path.unlink()
    laid = _lay_out(root)
    assert laid.masks_present
    assert [p.path for p in laid.refused] == [str(p) for p in dropped]


def test_wrong_length_and_fps_per_sample(tree):
    folder = tree / "generated/follows"
    short = next(folder.glob("0002_*.mp4"))
    _video(short, frames=149)
    slow = next(folder.glob("0005_*.mp4"))
    _video(slow, frames=120, fps=24.0)  # 5.0 s, but another frame rate
    laid = _lay_out(tree)
    by_id = {s.id: s for s in laid.samples}
    assert by_id["0002"].generated is None and "4.967 s" in by_id["0002"].generated_why
    assert by_id["0005"].generated is None and "24.0" in by_id["0005"].generated_why
    assert {p.path for p in laid.problems} == {str(short), str(slow)}
    assert sum(s.generated is not None for s in laid.samples) == 7
    assert laid.refused == () and laid.fps == 30.0
    assert any("inconsistent FPS" in s for s in laid.upstream_stops)
    assert any("4.967 s" in s for s in laid.upstream_stops)


def test_prefix_gap(tree):
    next((tree / "generated/follows").glob("0004_*.mp4")).unlink()
    laid = _lay_out(tree)
    gap = [s for s in laid.samples if s.generated is None]
    assert [s.id for s in gap] == ["0004"] and "0004_*.mp4" in gap[0].generated_why
    assert [p.sample for p in laid.problems] == ["0004"]
    assert any("found 8 videos but expected 9" in s for s in laid.upstream_stops)
    assert any("does not start with 0004_" in s for s in laid.upstream_stops)


def test_extra_files(tree):
    folder = tree / "generated/follows"
    (folder / "notes.txt").write_text("x")
    _video(folder / "0010_extra.mp4")
    shutil.copy(next(folder.glob("0003_*.mp4")), folder / "0003_copy.mp4")
    laid = _lay_out(tree)
    paths = {p.path: p for p in laid.problems}
    assert "not ending in .mp4" in paths[str(folder / "notes.txt")].found
    assert paths[str(folder / "0010_extra.mp4")].found == "an extra file"
    assert str(folder / "0003_copy.mp4") in paths
    assert [s.id for s in laid.samples if s.generated is None] == ["0003"]
    assert any("Only .mp4" not in s and "not an .mp4" in s for s in laid.upstream_stops)


def test_subset_descriptions_decide(tree):
    text = (tree / "descriptions.csv").read_text().splitlines()
    kept = [line for line in text if "dye-spreads" not in line]
    (tree / "descriptions.csv").write_text("\n".join(kept) + "\n")
    laid = _lay_out(tree)
    assert len(laid.samples) == 6 and laid.refused == ()
    assert {p.found for p in laid.problems} == {"an extra file"}  # 0007..0009 generated
    assert any("6 real videos the descriptions do not name" in n for n in laid.notes)


def test_unpaired_row_refused(tree):
    text = (tree / "descriptions.csv").read_text().splitlines()
    (tree / "descriptions.csv").write_text("\n".join(text[:-1]) + "\n")  # last take-2 row
    laid = _lay_out(tree)
    assert len(laid.refused) == 1 and "take-2 row" in laid.refused[0].expected
    assert len(laid.samples) == 8


@pytest.mark.parametrize("fps, folder, refused", [
    (23.976, "23FPS", True), (29.97, "29FPS", True), (24.0, "24FPS", False),
    (30.4, "30FPS", False)])
def test_int_fps_paths_round_fps_mask_names(tree, fps, folder, refused):
    """Spec §2/§11.10: paths use int(fps); upstream's mask writer names masks round(fps)."""
    laid = _lay_out(tree, model=None, fps=fps)
    assert laid.fps_folder == folder
    quirk = [p for p in laid.refused if "round(fps)" in p.expected]
    assert bool(quirk) == refused
    if refused:
        assert f"writes {round(fps)}FPS" in quirk[0].found
    assert (laid.resample_from is not None) == (folder != "30FPS")
