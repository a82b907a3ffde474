"""WorldScore's prompts and anchor frames (spec §2, §4), as the official code builds them.

Generation side (what a model is asked to generate; helpers/dataloader.py,
utils.py::generate_prompt_from_list):
  * `styled(p, style)`: `p + " " + style` when p ends with ".", else `p + ". " + style`
    (dataloader.py::generate_prompt_list), applied to every scene prompt;
  * static scene i: "Camera " + layout prompt of camera_path[i] + ". " + styled
    prompt_list[i + 1] + ". Everything in the scene remains completely motionless.";
  * dynamic: "Camera " + layout prompt of camera_path[0] + ". " + styled prompt.
  The layout prompt is the key with "_" -> " ", except pull_left / pull_right
  (utils.py::layout_info).

Evaluation side (evaluator.py::calculate_metrics):
  * prompt-type metrics (object_detection, clip_score) loop over scenes
    i = 0..num_scenes on the ONE anchor frame `frames[anchor_frame_idx[i]]`
    (get_rendered_images), then take the mean over scenes;
  * clip_score's text is the raw `prompt_list[i]` of image_data.json (no style suffix,
    no camera text); object_detection's objects are `content_list[i].split(", ")[1:]`,
    lower-cased, the caption `", ".join(objects) + "."`;
  * subjective quality (clip_iqa+, clip_aesthetic) scores the frames at
    anchor_frame_idx (frame 0 included); gram_matrix those at anchor_frame_idx[1:]
    against input_image.png; every other base metric takes all frames.
  anchor_frame_idx is read from the instance's image_data.json (static only: the
  dynamic evaluation passes None, and has no prompt-type or anchor metric).
"""

from typing import Dict, List, Sequence

from benchmarks.worldscore import aspects

MOTIONLESS = ". Everything in the scene remains completely motionless."
_LAYOUT_PROMPT_OVERRIDES = {"pull_left": "move left, pull out, then pan left",
                            "pull_right": "move right, pull out, then pan right"}
# Base metrics that do not take every frame: which anchors they take.
ANCHOR_METRICS = {"clip_iqa+": "all", "clip_aesthetic": "all", "gram_matrix": "after_first"}
PROMPT_METRICS = tuple(m.name for a in aspects.ASPECTS if a.kind == "prompt" for m in a.metrics)


def layout_prompt(layout: str) -> str:
    if layout not in aspects.LAYOUT_TYPES:
        raise ValueError(f"unknown camera layout {layout!r} (expected one of "
                         + ", ".join(aspects.LAYOUT_TYPES) + ")")
    return _LAYOUT_PROMPT_OVERRIDES.get(layout, layout.replace("_", " "))


def styled(prompt: str, style: str) -> str:
    return prompt + (" " if prompt.endswith(".") else ". ") + style


def generation_prompts(entry: dict) -> List[str]:
    """The prompts a video model is given for one dataset entry, one per scene
    (static: len(camera_path); dynamic: one)."""
    camera_path = entry["camera_path"]
    if entry["visual_movement"] == aspects.STATIC:
        scenes = [styled(p, entry["style"]) for p in entry["prompt_list"]]
        if len(scenes) < len(camera_path) + 1:
            raise ValueError(f"prompt_list has {len(scenes)} prompts; camera_path "
                             f"{camera_path} needs {len(camera_path) + 1}")
        return ["Camera " + layout_prompt(layout) + ". " + scenes[i + 1] + MOTIONLESS
                for i, layout in enumerate(camera_path)]
    return ["Camera " + layout_prompt(camera_path[0]) + ". "
            + styled(entry["prompt"], entry["style"])]


def objects_of(content: str) -> List[str]:
    """object_detection's objects of one scene: the content string minus its scene name."""
    return [o.lower() for o in content.split(", ")[1:]]


def detection_caption(objects: Sequence[str]) -> str:
    return ", ".join(objects) + "."


def anchor_frames(metric: str, anchor_frame_idx: Sequence[int]) -> List[int]:
    """The frame indices a base metric scores (ANCHOR_METRICS)."""
    which = ANCHOR_METRICS[metric]
    return list(anchor_frame_idx) if which == "all" else list(anchor_frame_idx[1:])


def scene_inputs(image_data: dict, metric: str) -> List[Dict[str, object]]:
    """Per scene i = 0..num_scenes of a prompt-type metric: {"frame": anchor index,
    "text": clip_score's raw prompt | "objects": object_detection's objects}."""
    anchors, num_scenes = image_data["anchor_frame_idx"], image_data["num_scenes"]
    out = []
    for i in range(num_scenes + 1):
        if metric == "clip_score":
            out.append({"frame": anchors[i], "text": image_data["prompt_list"][i]})
        elif metric == "object_detection":
            out.append({"frame": anchors[i], "objects": objects_of(image_data["content_list"][i])})
        else:
            raise ValueError(f"{metric} is not a prompt-type metric ({PROMPT_METRICS})")
    return out


def needed_frames(image_data: dict, metric: str, total: int) -> List[int]:
    """Every frame index a metric reads of an instance with `total` frames."""
    if metric in PROMPT_METRICS:
        return sorted({s["frame"] for s in scene_inputs(image_data, metric)})
    if metric in ANCHOR_METRICS:
        return sorted(set(anchor_frames(metric, image_data["anchor_frame_idx"])))
    return list(range(total))
