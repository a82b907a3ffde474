"""The meta CSV's rows: video_idx as a video index, a named folder that is unusable, a
CSV with no row, and the official average_score.csv over rows whose video_idx is text."""

import pandas as pd
import pytest

from benchmarks.common.errors import InputError
from benchmarks.mirabench import layout
from benchmarks.mirabench import official_files


def _meta(path, *cells):
    """A meta CSV whose video_idx cells are `cells` (None: empty), each naming g/1.mp4."""
    rows = "".join(f"{'' if c is None else c},g/1.mp4,caption\n" for c in cells)
    path.write_text("video_idx,video_path,short_caption\n" + rows)
    return path


def test_integers_are_video_indices_and_other_values_are_their_rows_errors(tmp_path):
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "1.mp4").write_bytes(b"x")
    meta = _meta(tmp_path / "m.csv", "1", "007", "8.0", "abc", "../../x", "-3", "2.5", None)
    rows = layout.rows(meta, tmp_path / "g")
    assert [r.video_idx for r in rows] == ["1", "7", "8", "abc", "../../x", "-3", "2.5",
                                           "(row 9)"]
    assert [bool(r.problem) for r in rows] == [False] * 3 + [True] * 5
    assert rows[0].source == tmp_path / "g" / "1.mp4"
    # An unusable row is never looked up on disk (../../x stays a value, not a path).
    assert all(r.source is None for r in rows[3:])
    message = str(InputError(*rows[4].problem))
    assert message.startswith(f"{meta}: expected a non-negative integer video_idx on row 6")
    assert message.endswith("found '../../x'")
    missing = str(InputError(*rows[7].problem))
    assert "a video_idx on row 9" in missing and "the value is missing" in missing


def test_two_empty_video_idx_are_two_errors_not_a_repeat(tmp_path):
    rows = layout.rows(_meta(tmp_path / "m.csv", "1", None, None), None)
    assert [r.video_idx for r in rows] == ["1", "(row 3)", "(row 4)"]


def test_a_repeated_video_idx_is_bad_input(tmp_path):
    with pytest.raises(InputError, match="repeated: 1"):
        layout.read_meta(_meta(tmp_path / "m.csv", "1", "01"))


def test_a_header_only_meta_csv_is_bad_input(tmp_path):
    meta = _meta(tmp_path / "m.csv")
    with pytest.raises(InputError, match=r"m\.csv: expected at least one video row .*"
                                         r"found a header and no rows"):
        layout.read_meta(meta)


def test_check_folder(tmp_path):
    layout.check_folder(None, "--generated_dir")  # not given: the rows' video_path
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "1.mp4").write_bytes(b"x")
    layout.check_folder(tmp_path / "full", "--generated_dir")
    (tmp_path / "empty").mkdir()
    (tmp_path / "file").write_text("x")
    for name, found in (("none", "no such folder"), ("empty", "an empty folder"),
                        ("file", "a file")):
        with pytest.raises(InputError) as raised:
            layout.check_folder(tmp_path / name, "--gt_dir")
        assert str(raised.value).startswith(str(tmp_path / name))
        assert "--gt_dir" in str(raised.value) and str(raised.value).endswith(found)


def test_averages_skip_a_text_video_id():
    """The mean is over the metric columns (the official dict drops video_id after it):
    a text video_id cannot make it raise."""
    frame = official_files.video_frame(
        [("1", {"dynamic_degree": 2.0}), ("abc", {}), ("", {}), ("2", {"dynamic_degree": 4.0})],
        ["dynamic_degree"])
    assert official_files.averages(frame, {}) == {"dynamic_degree": 3.0}
    assert list(pd.Series(frame["video_id"]))[1:3] == ["abc", ""]
