"""prompts.py against upstream's generator (physiq @ 023e069): byte for byte on our edge-case
data.yaml (testdata/prompts_edge.yaml; upstream's outputs stored beside it), by sha256 on
upstream's own data.yaml when ../shared/data has it, each quirk on its own, bad input, and
prompts_main. testdata/prompts_official.json says how the references were produced."""

import hashlib
import json
import os
import pathlib

import pytest
from absl import flags

from benchmarks.common import app_main
from benchmarks.common.errors import InputError
from benchmarks.physics_iq_verified import prompts, prompts_main
from benchmarks.physics_iq_verified import runner

HERE = pathlib.Path(__file__).parent
TESTDATA = HERE / "testdata"
EDGE = TESTDATA / "prompts_edge.yaml"
OFFICIAL = json.loads((TESTDATA / "prompts_official.json").read_text(encoding="utf-8"))
# Where the real data.yaml is looked for (upstream's, never committed).
ENV = "PHYSICS_IQ_SHARED_DATA"
KEYS = [(v, True) for v in prompts.VARIANTS] + [(t, False) for t in prompts.TEMPLATES]


def _key(variant, suffix):
    return variant if suffix else f"{variant}_noaction_suffix"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _scene(**fields):
    base = dict(name="s", category="c", description="", subject_action="Act.",
                scene_description="", pre_action="", postfix="", takes=((1, (("left", 1),)),))
    return prompts.Scene(**{**base, **fields})


def _yaml(tmp_path, text):
    path = tmp_path / "data.yaml"
    path.write_text(text, encoding="utf-8")
    return path


# --- upstream's bytes -----------------------------------------------------------------

def test_edge_input_is_the_one_the_references_were_made_from():
    assert _sha(EDGE.read_bytes()) == OFFICIAL["edge"]["input_sha256"]


@pytest.mark.parametrize("variant,suffix", KEYS)
def test_edge_byte_equal_to_upstream(variant, suffix):
    recorded = OFFICIAL["edge"]["outputs"][_key(variant, suffix)]
    expected = (HERE / recorded["file"]).read_bytes()
    assert _sha(expected) == recorded["sha256"]
    ours = prompts.render(EDGE, variant, suffix)
    assert ours == expected
    assert len(prompts.table(prompts.load(EDGE), variant, suffix)) == recorded["rows"]


def test_official_table_is_consistent():
    real = OFFICIAL["real"]
    assert set(real["outputs"]) == {_key(v, s) for v, s in KEYS}
    assert all(o["rows"] == 396 for o in real["outputs"].values())  # 66 scenes x 2 takes x 3
    # No scene has a postfix: --no-action-suffix changes nothing on the real file.
    for template in prompts.TEMPLATES:
        assert real["outputs"][template] == real["outputs"][f"{template}_noaction_suffix"]
    shipped, outputs = real["shipped"], real["outputs"]
    assert shipped["descriptions/best_practice/descriptions_base.csv"] == outputs["base"]["sha256"]
    assert shipped["descriptions/descriptions_original.csv"] == outputs["original"]["sha256"]
    # The runner accepts every upstream variant as the Verified track's descriptions file.
    assert set(shipped.values()) <= set(runner.OFFICIAL_DESCRIPTIONS)
    assert {o["sha256"] for o in outputs.values()} <= set(runner.OFFICIAL_DESCRIPTIONS)
    assert OFFICIAL["upstream"]["commit"].startswith("023e069")


def _real_data_yaml() -> pathlib.Path:
    if os.environ.get(ENV):
        folder = pathlib.Path(os.environ[ENV])
    else:
        checkout = pathlib.Path(os.path.realpath(__file__)).parents[2]
        folder = checkout.parent / "shared" / "data" / "physics_iq"
    path = folder / "data.yaml"
    if not path.is_file():
        pytest.skip(f"upstream's descriptions/data.yaml not found at {path} (set ${ENV} to "
                    "its folder); the sha256 table is still checked by "
                    "test_official_table_is_consistent")
    return path


@pytest.mark.parametrize("variant,suffix", KEYS)
def test_real_data_yaml_matches_upstream_sha256(variant, suffix):
    path = _real_data_yaml()
    assert _sha(path.read_bytes()) == OFFICIAL["real"]["input_sha256"], f"{path} is not 023e069's"
    recorded = OFFICIAL["real"]["outputs"][_key(variant, suffix)]
    rows = prompts.table(prompts.load(path), variant, suffix, path)
    assert len(rows) == recorded["rows"]
    assert _sha(prompts.to_csv(rows)) == recorded["sha256"]


# --- each quirk on its own -------------------------------------------------------------

def test_base_order_and_only_empty_strings_dropped():
    scene = _scene(pre_action="Pre.", scene_description="Scene.")
    assert prompts.prompt(scene, "base") == " ".join(
        [prompts.CAMERA, prompts.STYLE, prompts.SETUP_ONLY, "Pre.", "Scene.", "Act."])
    spaced = prompts.prompt(_scene(pre_action=" ", subject_action=" Act. "), "base")
    assert spaced.endswith(prompts.SETUP_ONLY + "  " + "  Act. ")  # kept, not stripped


def test_pvideo_and_sora2_layouts():
    scene = _scene(pre_action="Pre.", scene_description="Scene.")
    assert prompts.prompt(scene, "pvideo") == ", ".join(
        ["Act.", "Pre. Scene.", prompts.CAMERA, prompts.STYLE, prompts.SETUP_ONLY])
    assert prompts.prompt(_scene(), "pvideo").startswith("Act., " + prompts.CAMERA)
    assert prompts.prompt(scene, "sora2") == (
        f"Style: {prompts.STYLE}\n\nPre. Scene. {prompts.SETUP_ONLY}\n\nCinematography:\n"
        f"{prompts.CAMERA}\n\nActions:\n- Act.")


def test_missing_subject_action_is_no_error_and_postfix_gets_a_leading_space():
    scene = _scene(subject_action="", postfix="Post.")
    assert prompts.action(scene) == " Post."
    assert prompts.prompt(scene, "base").endswith(prompts.SETUP_ONLY + "  Post.")
    assert prompts.prompt(_scene(subject_action=""), "sora2").endswith("Actions:\n- ")
    assert prompts.prompt(scene, "base", action_suffix=False) == " ".join(
        [prompts.CAMERA, prompts.STYLE, prompts.SETUP_ONLY])
    assert prompts.action(_scene(postfix="Post.")) == "Act. Post."


def test_original_is_description_not_factual(tmp_path):
    path = _yaml(tmp_path, "scenes:\n- {scene: s, category: c, description: D, "
                           "description-factual: F, takes: [{take: 1, left: 1}]}\n")
    assert prompts.table(prompts.load(path), "original")[0][1] == "D"


def test_rows_sorted_by_id_with_python_04_names(tmp_path):
    path = _yaml(tmp_path, "scenes:\n"
                           "- {scene: b, category: c, takes: [{take: 2, right: 12345, top: -2}]}\n"
                           "- {scene: a, category: c, takes: [{take: 1, left: 010}]}\n")
    names = [r[0] for r in prompts.table(prompts.load(path), "base")]
    assert names == ["-002_perspective-top_take-2_trimmed-b.mp4",
                     "0008_perspective-left_take-1_trimmed-a.mp4",  # YAML 1.1: 010 is 8
                     "12345_perspective-right_take-2_trimmed-b.mp4"]


def test_python_name_spelling_and_hyphenated_key_wins_even_when_null(tmp_path):
    path = _yaml(tmp_path, "scenes:\n- {scene: s, category: c, subject_action: A, "
                           "scene-description: null, scene_description: S, "
                           "takes: [{take: 1, left: 1}]}\n")
    scene = prompts.load(path)[0]
    assert (scene.subject_action, scene.scene_description) == ("A", "")


def test_csv_quoting_and_line_ends():
    data = prompts.to_csv([("a,b", 'say "hi"', "x\ry", "ü\nz"), ("p", "", "q", "r")])
    assert data == ('scenario,description,category,generated_video_name\n'
                    '"a,b","say ""hi""","x\ry","ü\nz"\np,,q,r\n').encode("utf-8")


# --- bad input ------------------------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("scenes:\n- {category: c, takes: []}\n", "scenes[0].scene: a string"),
    ("scenes:\n- {scene: s, takes: []}\n", "scene 's': a `category` field"),
    ("scenes:\n- {scene: s, category: c}\n", "scene 's': a `takes` field"),
    ("scenes:\n- {scene: s, category: c, subject-action: 3, takes: []}\n",
     "scene 's'.subject-action: a string or nothing"),
    ("scenes:\n- {scene: s, category: c, takes: [{left: 1}]}\n", "takes[0]: a mapping with `take`"),
    ("scenes:\n- {scene: s, category: c, takes: [{take: 1, left: '7'}]}\n",
     "takes[0].left: an integer"),
    ("scenes:\n- {scene: s, category: c, takes: [{take: 1, left: true}]}\n",
     "takes[0].left: an integer"),
    ("scenes:\n- {scene: s, category: c, takes: [{take: 1, left: 1, right: 1}]}\n",
     "each video id once"),
    ("scenes:\n- {scene: s, category: c, takes: []}\n", "at least one take"),
    ("other: 1\n", "a mapping with a `scenes` list"),
    ("scenes: [\n", "a UTF-8 YAML file"),
])
def test_bad_input_names_the_file_and_what_was_expected(tmp_path, text, expected):
    path = _yaml(tmp_path, text)
    with pytest.raises(InputError) as e:
        prompts.render(path, "base")
    assert str(e.value).startswith(f"{path}: expected ") and expected in str(e.value)


def test_missing_file_and_unknown_template(tmp_path):
    with pytest.raises(InputError, match="nope.yaml: expected a readable data.yaml"):
        prompts.render(tmp_path / "nope.yaml", "base")
    with pytest.raises(InputError, match=r"--template: expected one of base, pvideo, sora2, "
                                         r"original, found 'veo'"):
        prompts.render(EDGE, "veo")


# --- the binary -----------------------------------------------------------------------

def test_main_writes_upstream_bytes_and_bad_input_exits_2(tmp_path, capsys):
    out = tmp_path / "new" / "p.csv"
    flags.FLAGS(["prompts", f"--data_yaml={EDGE}", "--template=sora2", "--noaction_suffix",
                 f"--output={out}"])
    try:
        prompts_main.main(["prompts"])
    finally:
        flags.FLAGS.unparse_flags()
    assert out.read_bytes() == (TESTDATA / "prompts_edge_sora2_noaction_suffix.csv").read_bytes()
    assert "Wrote 11 rows" in capsys.readouterr().out
    flags.FLAGS(["prompts", f"--data_yaml={tmp_path / 'missing.yaml'}", f"--output={out}"])
    try:
        with pytest.raises(SystemExit) as e:
            app_main.guard(prompts_main.main)(["prompts"])
    finally:
        flags.FLAGS.unparse_flags()
    assert e.value.code == 2
    assert "missing.yaml: expected a readable data.yaml" in capsys.readouterr().err
