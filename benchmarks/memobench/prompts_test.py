"""Tests for benchmarks.memobench.prompts on files shaped like MemoBench's and the models'.

The rules are run_eval.py's load_prompt_map_synthetic / load_prompt_map_real and the
precedence in _add_synthetic_clip / discover_clips_real. The real_metadata.csv case
pins an upstream quirk: that shipped file has no video_folder/id column, so it gives
no prompt. The test fails if the reader is "fixed" to accept video_id.
"""

import pandas as pd
import pytest

from benchmarks.common.errors import InputError
from benchmarks.memobench import phase_sheets
from benchmarks.memobench import prompts

_GLASS = ("A first-person view of a clear glass of water on a table with a colorful "
          "effervescent tablet fizzing as it dissolves. The camera smoothly pans to the left.")

# The first rows of MemoBench's data/sam3_metadata/real_metadata.csv (its real header).
REAL_METADATA = (
    "video_id,subject,full_image_path,prompt\n"
    f'1,a clear glass of water,data/Real_Raw/001/FRAMES/frame_0001.jpg,"{_GLASS}"\n'
    f'2,a clear glass of water,data/Real_Raw/002/FRAMES/frame_0001.jpg,"{_GLASS}"\n'
    '24,a tube of expanding foam adhesive,data/Real_Raw/024/FRAMES/frame_0001.jpg,"A tube."\n')

SYNTHETIC_METADATA = (  # data/sam3_metadata/synthetic_metadata.csv's header
    "scene,video_id,subject,exr_path,prompt\n"
    'Barnyard,1,person,data/Synthetic_processed/Barnyard/Barnyard_001/RGB1/a.jpg,'
    '"The camera sees another person(subject) crossing from the left to right."\n')


def _write(path, text):
    path.write_text(text)
    return path


def test_real_metadata_csv_gives_no_prompt_as_upstream(tmp_path):
    table = prompts.read_real_prompts(_write(tmp_path / "real_metadata.csv", REAL_METADATA))
    assert table.prompts == {}  # video_id is not video_folder or id: run_eval.py returns {}
    assert "video_folder / id" in table.note and "video_id" in table.note
    sources = prompts.load_prompt_sources(None, tmp_path / "real_metadata.csv")
    prompt, origin = sources.prompt_for("real", "001", "")
    assert prompt == "" and "only --prompt_src_real" in origin and "video_id" in origin


def test_real_csv_with_id_column(tmp_path):
    csv = _write(tmp_path / "prompts_real.csv",  # Open-Sora's shape: id, prompt
                 'id,prompt\n1,"a glass"\n2.0, padded \nreal_004,"skipped: not a number"\n'
                 '5,\n6,nan\n7,"NaN"\n')
    table = prompts.read_real_prompts(csv)
    assert table.prompts == {"001": "a glass", "002": "padded"}


def test_real_csv_video_folder_wins_over_id(tmp_path):
    csv = _write(tmp_path / "metadata.csv",  # LingBot/Wan2.2 shape
                 'video_folder,id,prompt\n001,999,"from video_folder"\n12,998,"twelve"\n')
    assert prompts.read_real_prompts(csv).prompts == {"001": "from video_folder",
                                                     "012": "twelve"}


def test_synthetic_csv_rules(tmp_path):
    csv = _write(tmp_path / "metadata.csv",
                 "video_folder,prompt,skip\n"
                 'Barnyard_001,"  a fox runs  ",no\n'
                 'Barnyard_002,"skipped",YES\n'
                 'Barnyard_003,nan,\n'
                 'Barnyard_004,,no\n'
                 'CityPark_005,"kept: skip is empty",\n')
    table = prompts.read_synthetic_prompts(csv)
    assert table.prompts == {"Barnyard_001": "a fox runs",
                             "CityPark_005": "kept: skip is empty"}


def test_synthetic_metadata_csv_does_not_parse_either(tmp_path):
    table = prompts.read_synthetic_prompts(
        _write(tmp_path / "synthetic_metadata.csv", SYNTHETIC_METADATA))
    assert table.prompts == {} and "video_folder" in table.note


def _phase_sheet(tmp_path):
    path = tmp_path / "Synthetic_ExitReenter.xlsx"
    pd.DataFrame({
        "video_folder": ["Barnyard_001", "Barnyard_002", "Barnyard_003", "Barnyard_004"],
        "exits": [100, 120, 90, 80], "re-enter": [200, 220, 190, 180],
        "skip": ["no", "no", "no", "yes"],
        "prompt": ["sheet prompt one", "sheet prompt two", None, "skipped row"],
    }).to_excel(path, index=False)
    return phase_sheets.read_synthetic_sheet(path)


def test_synthetic_precedence_csv_then_phase_sheet(tmp_path):
    rows = _phase_sheet(tmp_path)
    assert "Barnyard_004" not in rows
    assert rows["Barnyard_003"].prompt == "nan"  # str(NaN).strip(), as run_eval.py reads it
    csv = _write(tmp_path / "syn.csv", 'video_folder,prompt,skip\nBarnyard_001,"from csv",no\n'
                 'Barnyard_002,"csv row skipped",yes\n')
    sources = prompts.load_prompt_sources(csv, None)
    assert sources.prompt_for("synthetic", "Barnyard_001", rows["Barnyard_001"].prompt) == (
        "from csv", str(csv))
    prompt, origin = sources.prompt_for("synthetic", "Barnyard_002", rows["Barnyard_002"].prompt)
    assert prompt == "sheet prompt two" and "phase sheet" in origin
    assert sources.prompt_for("synthetic", "Barnyard_003", rows["Barnyard_003"].prompt)[0] == "nan"
    without_csv = prompts.load_prompt_sources(None, None)
    assert without_csv.prompt_for("synthetic", "Barnyard_001", "sheet prompt one")[0] == (
        "sheet prompt one")
    prompt, origin = without_csv.prompt_for("synthetic", "Barnyard_009", "")
    assert prompt == "" and "empty for Barnyard_009" in origin


def test_unreadable_csv_gives_no_prompts(tmp_path):
    path = tmp_path / "prompts.csv"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe")
    table = prompts.read_real_prompts(path)
    assert table.prompts == {} and "not readable as CSV" in table.note
    assert prompts.read_synthetic_prompts(_write(tmp_path / "empty.csv", "")).prompts == {}


def test_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        prompts.load_prompt_sources(tmp_path / "nope.csv", None)
    with pytest.raises(InputError, match="no such file"):
        prompts.load_prompt_sources(None, tmp_path / "nope.csv")


def test_describe_names_the_sources(tmp_path):
    real = _write(tmp_path / "real_metadata.csv", REAL_METADATA)
    text = prompts.load_prompt_sources(None, real).describe()
    assert "synthetic from the synthetic phase sheet's prompt column" in text
    assert f"real from {real} (0 prompts)" in text
    assert "real clips are not scored" in prompts.load_prompt_sources(None, None).describe()


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
