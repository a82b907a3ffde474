"""Prompts and anchor frames against the official code's rules and its own examples."""

import pytest

from benchmarks.worldscore import prompts

STATIC = {"visual_movement": "static", "camera_path": ["pull_left", "push_in"],
          "style": "In the style of Van Gogh.",
          "prompt_list": ["A kitchen.", "A sunny kitchen", "A table with fruit."],
          "content_list": ["kitchen, Chair, lamp", "kitchen, table", "dining room, Fruit"],
          "num_scenes": 2, "anchor_frame_idx": [0, 48, 96]}


def test_style_suffix_with_and_without_a_period():
    assert prompts.styled("A sunny kitchen", "Pixel art.") == "A sunny kitchen. Pixel art."
    assert prompts.styled("A table.", "Pixel art.") == "A table. Pixel art."


def test_layout_prompts():
    assert prompts.layout_prompt("move_left") == "move left"
    assert prompts.layout_prompt("pull_left") == "move left, pull out, then pan left"
    assert prompts.layout_prompt("pull_right") == "move right, pull out, then pan right"
    assert prompts.layout_prompt("fixed") == "fixed"
    with pytest.raises(ValueError, match="unknown camera layout"):
        prompts.layout_prompt("zoom")


def test_static_generation_prompts_skip_the_input_image_prompt():
    assert prompts.generation_prompts(STATIC) == [
        "Camera move left, pull out, then pan left. A sunny kitchen. In the style of Van "
        "Gogh.. Everything in the scene remains completely motionless.",
        "Camera push in. A table with fruit. In the style of Van Gogh.. Everything in the "
        "scene remains completely motionless."]


def test_dynamic_generation_prompt():
    entry = {"visual_movement": "dynamic", "camera_path": ["fixed"], "style": "Photo.",
             "prompt": "A dog runs"}
    assert prompts.generation_prompts(entry) == ["Camera fixed. A dog runs. Photo."]


def test_official_anchor_example():
    # get_rendered_images' docstring: anchors [0, 48, 96, 144] -> scene i uses frame [a_i].
    data = dict(STATIC, num_scenes=3, anchor_frame_idx=[0, 48, 96, 144],
                prompt_list=["a", "b", "c", "d"], content_list=["s, x"] * 4)
    assert [s["frame"] for s in prompts.scene_inputs(data, "clip_score")] == [0, 48, 96, 144]
    assert prompts.anchor_frames("clip_iqa+", data["anchor_frame_idx"]) == [0, 48, 96, 144]
    assert prompts.anchor_frames("gram_matrix", data["anchor_frame_idx"]) == [48, 96, 144]


def test_clip_score_text_is_the_raw_prompt_and_objects_drop_the_scene_name():
    clip = prompts.scene_inputs(STATIC, "clip_score")
    assert [s["text"] for s in clip] == STATIC["prompt_list"]  # no style, no camera text
    det = prompts.scene_inputs(STATIC, "object_detection")
    assert [s["objects"] for s in det] == [["chair", "lamp"], ["table"], ["fruit"]]
    assert prompts.detection_caption(["chair", "lamp"]) == "chair, lamp."


def test_needed_frames():
    assert prompts.needed_frames(STATIC, "clip_aesthetic", 97) == [0, 48, 96]
    assert prompts.needed_frames(STATIC, "gram_matrix", 97) == [48, 96]
    assert prompts.needed_frames(STATIC, "optical_flow_aepe", 4) == [0, 1, 2, 3]
