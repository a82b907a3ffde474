"""The walker, the completeness rules as named problems, the dataset side and the cross check."""

import json

import pytest

from benchmarks.common.errors import InputError
from benchmarks.worldscore import aspects
from benchmarks.worldscore import dataset
from benchmarks.worldscore import layout
from tools.fixtures import worldscore_tree as tree

S = tree.static_entry("photorealistic", "indoor", "kitchen", "k01", ["move_left", "pan_left"])
D = tree.dynamic_entry("stylized", "rigid", "d01")


def _check(path, movement):
    [inst] = [i for i in layout.walk(path, movement)]
    return layout.check(inst)


def test_clean_instances_are_complete(tmp_path):
    tree.write_instance(tmp_path, S, frames_per_scene=5)
    tree.write_instance(tmp_path, D, frames_per_scene=5)
    s, d = _check(tmp_path, "static"), _check(tmp_path, "dynamic")
    assert s.key == "static/photorealistic/indoor/kitchen/k01" and s.complete, s.problems
    assert d.key == "dynamic/stylized/rigid/d01" and d.complete, d.problems
    assert s.frames == [f"{i:03d}.png" for i in range(9)]  # 2 scenes x (5 - 1) + 1
    assert not s.warnings and not d.warnings


def test_walk_order_and_files_between_levels_are_ignored(tmp_path):
    for name in ("b", "a", "c10", "c9"):
        tree.write_instance(tmp_path, tree.static_entry("s", "indoor", "cat", name))
    (tmp_path / "static" / "s" / "indoor" / "notes.txt").write_text("x")
    (tmp_path / "static" / "s" / "evaluation_mean.json").write_text("{}")
    keys = [i.parts[-1] for i in layout.walk(tmp_path, "static")]
    assert keys == ["a", "b", "c10", "c9"]  # sorted names, as sorted(x.name ...)
    assert layout.walk(tmp_path, "dynamic") == []


def test_missing_frames(tmp_path):
    tree.write_instance(tmp_path, S, frames_per_scene=5, frame_count=7)
    inst = _check(tmp_path, "static")
    assert not inst.exists
    [problem] = inst.problems
    assert "k01/frames: expected at least 9 .png/.jpg frames" in problem and "found 7" in problem


def test_extra_frames_crash_static_and_warn_dynamic(tmp_path):
    tree.write_instance(tmp_path, S, frames_per_scene=5, frame_count=10, cameras=10)
    inst = _check(tmp_path, "static")
    assert inst.exists and not inst.complete
    assert any("exactly 9 frames" in c and "found 10" in c for c in inst.crashes)
    tree.write_instance(tmp_path, D, frames_per_scene=5, frame_count=6)
    d = _check(tmp_path, "dynamic")
    assert d.complete and "the official evaluator uses all 6" in d.warnings[0]


def test_camera_data_problems(tmp_path):
    path = tree.write_instance(tmp_path, S, frames_per_scene=5, cameras=8)
    inst = _check(tmp_path, "static")
    assert inst.exists and not inst.complete
    assert "camera_data.json: expected 9 cameras_interp matrices" in inst.crashes[0]
    assert "found 8" in inst.crashes[0]
    (path / "camera_data.json").write_text(json.dumps({"cameras_interp": [[[1, 0], [0, 1]]] * 9}))
    assert "4x4 matrices" in _check(tmp_path, "static").crashes[0]
    (path / "camera_data.json").write_text("{not json")
    assert "camera_data.json: expected camera_data.json (valid JSON)" in _check(
        tmp_path, "static").crashes[0]
    (path / "camera_data.json").unlink()
    inst = _check(tmp_path, "static")
    assert not inst.exists and "camera_data.json: expected it" in inst.problems[0]


def test_frames_that_is_a_file(tmp_path):
    path = tree.write_instance(tmp_path, D)
    for frame in (path / "frames").iterdir():
        frame.unlink()
    (path / "frames").rmdir()
    (path / "frames").write_text("")
    assert "frames: expected a folder of frames, found a file" in _check(
        tmp_path, "dynamic").problems[0]


def test_image_data_problems(tmp_path):
    path = tree.write_instance(tmp_path, D)
    (path / "image_data.json").write_text(json.dumps({"total_frames": "9"}))
    assert "integer total_frames" in _check(tmp_path, "dynamic").problems[0]
    (path / "image_data.json").unlink()
    assert "image_data.json: expected the instance's image_data.json" in _check(
        tmp_path, "dynamic").problems[0]


def test_dynamic_frames_must_be_integer_named(tmp_path):
    path = tree.write_instance(tmp_path, D, frames_per_scene=5)
    (path / "frames" / "004.png").rename(path / "frames" / "last.png")
    inst = _check(tmp_path, "dynamic")
    assert inst.exists and not inst.complete
    assert "frames/last.png: expected integer-named frames" in inst.crashes[0]


def test_unpadded_frame_names_warn(tmp_path):
    path = tree.write_instance(tmp_path, D, frames_per_scene=12)
    for i in range(12):
        (path / "frames" / f"{i:03d}.png").rename(path / "frames" / f"{i}.png")
    inst = _check(tmp_path, "dynamic")
    assert inst.complete and "not zero-padded" in inst.warnings[0]
    assert inst.frames[:3] == ["0.png", "1.png", "10.png"]


def test_dataset_keys_and_cross_check(tmp_path):
    odd = tree.static_entry("stylized", "outdoor", "lake", "l01")
    odd["image"] = "static/images/lake/l01.v2.png"  # name = up to the first "."
    tree.write_dataset(tmp_path / "data", [S, odd], [D])
    static = dataset.load(tmp_path / "data", "static")
    assert [e.key for e in static] == ["static/photorealistic/indoor/kitchen/k01",
                                       "static/stylized/outdoor/lake/l01"]
    assert static[0].num_scenes == 2 and static[0].total_frames(50) == 99
    assert static[0].anchor_frame_idx(50) == [0, 49, 98]
    out = tmp_path / "out"
    tree.write_instance(out, S)
    tree.write_instance(out, tree.static_entry("s", "indoor", "extra", "x01"))
    found = [i.key for i in layout.walk(out, "static")]
    absent, extra = dataset.cross_check(static, found)
    assert absent == ["static/stylized/outdoor/lake/l01"]
    assert extra == ["static/s/indoor/extra/x01"]
    [d] = dataset.load(tmp_path / "data", "dynamic")
    assert dataset.mask_problems(tmp_path / "data", d) == []
    (tmp_path / "data" / "WorldScore-Dataset" / D["masks"][0]).unlink()
    assert "expected the first-frame object masks" in dataset.mask_problems(tmp_path / "data", d)[0]


@pytest.mark.parametrize("mutate,fragment", [
    (lambda e: e.pop("prompt_list"), "no prompt_list"),
    (lambda e: e.update(camera_path=["zoom"]), "camera_path, a list of layouts"),
    (lambda e: e.update(visual_movement="dynamic"), "visual_movement 'static'"),
    (lambda e: e.update(image="k01.png"), "image as <category>/<name>"),
])
def test_bad_dataset_entries_name_the_file(tmp_path, mutate, fragment):
    entry = dict(S)
    mutate(entry)
    tree.write_dataset(tmp_path, [entry])
    with pytest.raises(InputError, match="static.json") as e:
        dataset.load(tmp_path, "static")
    assert fragment in str(e.value) and "entry 0" in str(e.value)


def test_duplicate_dataset_entries_and_missing_file(tmp_path):
    tree.write_dataset(tmp_path, [S, S])
    with pytest.raises(InputError, match="each instance once"):
        dataset.load(tmp_path, "static")
    with pytest.raises(InputError, match="dynamic.json"):
        dataset.load(tmp_path / "nowhere", aspects.DYNAMIC)


def test_check_root_refuses_a_root_with_nothing_to_evaluate(tmp_path):
    """Missing, a file, empty, or no instance folder at the movements' depth: exit 2
    naming --generated_root and the path (not a run with every instance failed)."""
    (tmp_path / "file").write_text("x")
    (tmp_path / "empty").mkdir()
    (tmp_path / "shallow" / "static" / "photorealistic" / "indoor").mkdir(parents=True)
    for name, found in (("none", "found no such folder"), ("file", "found a file"),
                        ("empty", "found an empty folder"),
                        ("shallow", "found no instance folder under static/ or dynamic/ "
                                    "(it holds static)")):
        with pytest.raises(InputError) as raised:
            layout.check_root(tmp_path / name, aspects.VISUAL_MOVEMENTS)
        assert str(raised.value).startswith(f"{tmp_path / name}: expected a model's "
                                            "worldscore_output folder (--generated_root)")
        assert str(raised.value).endswith(found), str(raised.value)
    tree.write_instance(tmp_path / "ok", D)
    layout.check_root(tmp_path / "ok", aspects.VISUAL_MOVEMENTS)
    with pytest.raises(InputError, match=r"no instance folder under static/ \(it holds "
                                         r"dynamic\)"):
        layout.check_root(tmp_path / "ok", (aspects.STATIC,))
