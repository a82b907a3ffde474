"""Test helpers: per-video dicts shaped as upstream's compute_<dimension> builds them
(written here from vbench/<dimension>.py at 45e79ec, not through official_files.py), and
their rows."""

import json
import pathlib

from benchmarks.vbench.results import aggregate as agg

VIDEOS = ("a cat-0.mp4", "a cat-1.mp4", "a dog-0.mp4")


def official_dict(d: str, i: int, name: str) -> dict:
    """Video `i`'s dict for dimension `d`, keys in upstream's order, upstream's types."""
    path = f"/data/videos/{name}"
    if d == "background_consistency":
        cnt = 3 + i
        video_sim = 0.9 * cnt - 0.01 * i
        return {"video_path": path, "video_results": video_sim / cnt,
                "video_sim": video_sim, "cnt_per_video": cnt}
    if d in ("object_class", "multiple_objects", "scene"):
        success = 10 + i
        return {"video_path": path, "video_results": success / 16,
                "success_frame_count": success, "frame_count": 16}
    if d == "human_action":
        return {"video_path": path, "video_results": i != 1, "cor_num_per_video": int(i != 1)}
    if d == "dynamic_degree":
        return {"video_path": path, "video_results": i == 0}
    if d == "color":
        rate = 0.25 * (i + 1)
        return {"video_path": path, "video_results": rate, "cur_success_frame_rate": rate}
    if d == "spatial_relationship":
        frames = [0, 1, 0.1 / 0.4] + [0] * 12 + [1 if i else 0]
        return {"video_path": path, "video_results": sum(frames) / 16,
                "frame_results": frames}
    if d == "appearance_style":
        frames = [0.2 + 0.01 * i, 0.21, 0.19 + 0.03 * i]
        return {"video_path": path, "video_results": sum(frames) / 3,
                "frame_results": frames, "cur_sim": frames[-1]}
    if d == "imaging_quality":
        return {"video_path": path, "video_results": 55.0 + 3 * i}
    if d in ("temporal_style", "overall_consistency"):
        return {"video_path": path, "video_results": 0.2 + 0.01 * i}
    return {"video_path": path, "video_results": 0.9 + 0.02 * i}


def rows_of(d: str, dicts) -> list:
    """VideoRows of official dicts (columns as benchmarks/vbench/dimension.py lays them)."""
    out = []
    for x in dicts:
        columns = {d: float(x["video_results"])}
        if d == "background_consistency":
            columns[f"{d}:num"], columns[f"{d}:den"] = x["video_sim"], x["cnt_per_video"]
        extras = {k: v for k, v in x.items() if k not in ("video_path", "video_results")}
        out.append(agg.VideoRow(x["video_path"], columns, {d: extras}))
    return out


def official_content(dimensions, videos=VIDEOS, aggregates=None) -> dict:
    """An eval_results object as upstream writes it; each aggregate computed the way
    upstream does (the dimension's rule), unless given (subject: the frame-pair mean of
    the videos' pair sums, 3 pairs each here)."""
    out = {}
    for d in dimensions:
        dicts = [official_dict(d, i, name) for i, name in enumerate(videos)]
        if aggregates and d in aggregates:
            value = aggregates[d]
        elif d == "subject_consistency":
            value = sum(x["video_results"] * 3 for x in dicts) / (3 * len(dicts))
        else:
            value = agg.aggregate(d, rows_of(d, dicts))
        out[d] = [value, dicts]
    return out


def write(path: pathlib.Path, content) -> pathlib.Path:
    """As upstream's save_json: json.dump(indent=4) into a UTF-8 file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(content, f, indent=4)
    return path
