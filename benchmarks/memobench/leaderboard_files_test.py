"""Finding and reading the official per-step files as leaderboard.py does."""

import math

import pytest

from benchmarks.common.errors import InputError
from benchmarks.memobench import leaderboard_files as files_lib
from benchmarks.memobench import leaderboard_fixture as fixture


def test_canonical_map_is_leaderboard_py_s():
    assert files_lib.canonical_key("LingBot-World") == "lingbot-world"
    assert files_lib.canonical_key("Lingbot") == "lingbot-world"
    assert files_lib.canonical_key("StableVirtualCamera") == "stable-virtual-camera"
    assert files_lib.canonical_key("CogVideoX") == "cogvideo"
    assert files_lib.canonical_key("My-Model") == "my-model"  # else lower-cased
    assert files_lib.display_name("stable-virtual-camera") == "SVC"
    assert files_lib.display_name("my-model") == "my-model"
    assert len(files_lib.CANONICAL_KEY) == 17 and len(files_lib.MODEL_DISPLAY_NAMES) == 8
    assert set(files_lib.CANONICAL_KEY.values()) == set(files_lib.MODEL_DISPLAY_NAMES)
    assert files_lib.keys_for("SVC") == {"svc", "stable-virtual-camera"}


def test_load_all_merges_steps_by_model_key(tmp_path):
    models = files_lib.load_all(**fixture.build_tree(tmp_path))
    assert list(models) == ["lingbot-world", "mymodel", "stable-virtual-camera", "wan2.2"]
    lingbot = models["lingbot-world"]
    assert lingbot.eval.path.parent.name == "LingBot-World"
    assert lingbot.ors.path.parent.name == "LingBot-World"
    assert lingbot.vqa.path.name == "lingbot-world"  # "Lingbot" is skipped
    assert models["wan2.2"].eval.path.name == "eval_both.csv"  # the newer file
    assert models["wan2.2"].vqa.path.name == "wan2.2"  # not wan2.2_old
    assert models["stable-virtual-camera"].eval is None
    assert models["mymodel"].ors is None and models["mymodel"].vqa is None


def test_two_folders_of_one_model_keep_the_later_and_say_so(tmp_path):
    fixture.write_ors_csv(tmp_path / "LingBot-World" / "ors_scores.csv", fixture.SOME_CLIPS, 1)
    fixture.write_ors_csv(tmp_path / "lingbot-world" / "ors_scores.csv", fixture.SOME_CLIPS[:2], 2)
    found = files_lib.load_root("ors", tmp_path, "--ors_dir")
    assert found["lingbot-world"].path.parent.name == "lingbot-world"  # sorts after "L..."
    assert len(found["lingbot-world"].frame) == 2
    assert "keeps the later, lingbot-world" in found["lingbot-world"].notes[0]


def test_equal_times_pick_the_later_name(tmp_path):
    for name in ("eval_a.csv", "eval_b.csv"):
        fixture.set_mtime(fixture.write_eval_csv(tmp_path / name, fixture.SOME_CLIPS, 1), 1e9)
    assert files_lib.latest_eval_csv(tmp_path).name == "eval_b.csv"


def test_vqa_cells_leaderboard_py_skips_or_crashes_on(tmp_path):
    folder = tmp_path / "m"
    fixture.write_vqa_dir(folder, ["Barnyard_001"], 1)
    (folder / "Havana-1.csv").write_text(
        "scene,video_id,folder,Evaluation,score\n"
        "Havana,1,Havana_001,[],not json\n"                       # skipped silently
        "Havana,2,Havana_002,[],\n"                               # empty: TypeError upstream
        "Havana,3,Havana_003,[],0.5\n"                            # a number: TypeError upstream
        "Havana,8,Havana_008,[],\"[1, 2]\"\n"                     # a list: an all-NaN row
        "Havana,9,Havana_009,[],\"{\"\"Physics Adherence\"\": null}\"\n")  # None: left empty
    (folder / "broken.csv").write_bytes(b"\xff\xfe\x00")
    found = files_lib.read_vqa_dir(folder)
    frame = found.frame.set_index("video_id")
    assert list(frame.index) == ["1", "8", "9"]
    assert all(math.isnan(v) for v in frame.loc["8", ["InstructionFollowing", "PhysicsAdherence"]])
    assert math.isnan(frame.loc["9", "PhysicsAdherence"])
    notes = "\n".join(found.notes)
    assert notes.count("raises TypeError") == 2 and "None is not a number" in notes


def test_find_model_in_a_model_folder_or_a_root(tmp_path):
    roots = fixture.build_tree(tmp_path)
    found, name = files_lib.find_model("ors", roots["ors_dir"] / "wan2.2", None, "--ors_dir")
    assert name == "wan2.2" and len(found.frame) == 5
    found, name = files_lib.find_model("ors", roots["ors_dir"], "SVC", "--ors_dir")
    assert name == "stable-virtual-camera"
    found, name = files_lib.find_model("vqa", roots["vqa_dir"], "LingBot-World", "--vqa_dir")
    assert found.path.name == "lingbot-world"
    with pytest.raises(InputError, match="--model_name to choose"):
        files_lib.find_model("eval", roots["eval_dir"], None, "--eval_dir")
    with pytest.raises(InputError, match="models lingbot-world, .*wan2.2"):
        files_lib.find_model("eval", roots["eval_dir"], "Nobody", "--eval_dir")
    with pytest.raises(InputError, match="no such folder"):
        files_lib.find_model("vqa", tmp_path / "absent", "M", "--vqa_dir")


def test_malformed_step_files_name_the_path(tmp_path):
    (tmp_path / "eval_both.csv").write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match=r"eval_both\.csv.*no id, data_type"):
        files_lib.read_eval_csv(tmp_path / "eval_both.csv")
    (tmp_path / "ors_scores.csv").write_text("clip,ors\nx,0.1\n")
    with pytest.raises(InputError, match=r"ors_scores\.csv.*no clip_id, data_type"):
        files_lib.read_ors_csv(tmp_path / "ors_scores.csv")
