"""Tests for benchmarks.memobench.ors.metadata: prompts, clip ids, where the CSVs are."""

import pytest

from benchmarks.common.errors import InputError
from benchmarks.memobench.ors import metadata

# Shaped like data/sam3_metadata's prompts (spec §2.4, §6): "(subject)" glued to the
# noun or after a space, the phrase ending at the first '.' or ',' after it.
PROMPTS = {
    "First person view as a walker on a gravel road is moving straight ahead and sees "
    "another cyclist(subject) crossing from the left to right. Observer passes the subject "
    "(exits FOV) and re-sees the subject in its FOV.":
        "another cyclist(subject) crossing from the left to right",
    "First person view as a person standing in a market sees a goat (subject) in the "
    "front-left walking right, while a dog in front sits. As the observer turns, the "
    "subject exits the FOV and re-sees the subject.":
        "a goat (subject) in the front-left walking right",
    "First person view as a hawk Sees a rabbit(SUBJECT) hopping away":
        "a rabbit(SUBJECT) hopping away",
    "Observer walks and sees a cart, then a boat(subject) drifting slowly.":
        "a cart, then a boat(subject) drifting slowly",
    "It sees a kite(subject) .": "a kite(subject)",
}


@pytest.mark.parametrize("prompt", sorted(PROMPTS))
def test_subject_phrase_of_real_shaped_prompts(prompt):
    assert metadata.extract_subject_phrase(prompt) == PROMPTS[prompt]


@pytest.mark.parametrize("prompt", [
    "A first-person view of a glass of water on a table.",   # real prompts: no "(subject)"
    "sees a fox without the marker",
    "",
])
def test_no_phrase_falls_back_to_the_subject(prompt):
    assert metadata.extract_subject_phrase(prompt) is None
    row = metadata.MetadataRow("Barnyard_001", "synthetic", "Barnyard", "fox", prompt)
    assert row.text_prompt == "fox"


def test_real_clips_use_the_subject_column():
    row = metadata.MetadataRow("001", "real", "real", "a clear glass of water",
                               "A first-person view of ... it sees a cup(subject) here.")
    assert row.text_prompt == "a clear glass of water"


def _write(folder, synthetic=None, real=None):
    folder.mkdir(parents=True, exist_ok=True)
    if synthetic is not None:
        (folder / "synthetic_metadata.csv").write_text(synthetic, encoding="utf-8")
    if real is not None:
        (folder / "real_metadata.csv").write_text(real, encoding="utf-8")
    return folder


SYNTHETIC_CSV = (
    "scene,video_id,subject,exr_path,prompt\r\n"
    "Barnyard,1,person,data/x.jpg,First person view ... sees another person(subject) "
    "crossing from the left to right. Observer re-sees the subject.\r\n"
    'Middle_Age,12,tractor,data/y.jpg,"First view, it sees a tractor (subject) in front '
    'driving, then ..."\r\n')
REAL_CSV = ("video_id,subject,full_image_path,prompt\r\n"
            '7,a clear glass of water,data/Real_Raw/007/FRAMES/frame_0001.jpg,"A view, ok."\r\n'
            "164,a lit candle,data/z.jpg,\r\n")


def test_read_metadata_clip_ids_and_prompts(tmp_path):
    rows = metadata.read_metadata(_write(tmp_path, SYNTHETIC_CSV, REAL_CSV))
    assert sorted(rows) == [("real", "007"), ("real", "164"), ("synthetic", "Barnyard_001"),
                            ("synthetic", "Middle_Age_012")]
    barnyard = rows[("synthetic", "Barnyard_001")]
    assert (barnyard.scene, barnyard.subject) == ("Barnyard", "person")
    assert barnyard.text_prompt == "another person(subject) crossing from the left to right"
    tractor = rows[("synthetic", "Middle_Age_012")]
    assert tractor.text_prompt == "a tractor (subject) in front driving"
    candle = rows[("real", "164")]
    assert (candle.scene, candle.prompt, candle.text_prompt) == ("real", "", "a lit candle")


def test_one_csv_is_enough(tmp_path):
    rows = metadata.read_metadata(_write(tmp_path, real=REAL_CSV))
    assert {k[0] for k in rows} == {"real"}


def test_missing_csvs_bad_ids_and_columns(tmp_path):
    with pytest.raises(InputError, match="synthetic_metadata.csv and/or real_metadata.csv"):
        metadata.read_metadata(tmp_path / "nothing")
    with pytest.raises(InputError, match="integer video_id"):
        metadata.read_metadata(_write(tmp_path / "a", "scene,video_id,subject\r\nX,Barn_1,fox\r\n"))
    with pytest.raises(InputError, match="no subject"):
        metadata.read_metadata(_write(tmp_path / "b", real="video_id,prompt\r\n1,p\r\n"))


def test_metadata_dir_precedence(tmp_path, monkeypatch):
    monkeypatch.delenv(metadata.METADATA_DIR_ENV, raising=False)
    assert metadata.metadata_dir(tmp_path) == tmp_path / "sam3_metadata"
    monkeypatch.setenv(metadata.METADATA_DIR_ENV, str(tmp_path / "env"))
    assert metadata.metadata_dir(tmp_path) == tmp_path / "env"
    assert metadata.metadata_dir(tmp_path, tmp_path / "flag") == tmp_path / "flag"


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
