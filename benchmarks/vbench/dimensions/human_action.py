"""human_action: is the action the file name names among UMT's confident top-5 Kinetics-400
classes (spec §5.2; Vchitect/VBench@45e79ec vbench/human_action.py:30-41, 76-104).

- The label comes from the video's FILE NAME, not the prompt (`label_of`): lowercased,
  cut at the first '-', after the last 'person is ', before the first '_'. So a prompt
  file (custom_input) changes nothing, and an action with a '-' in it would be cut there.
- The classes: VBench's own kinetics_400_categories.txt, lines "<name>\\t<index>", names
  lowercased (`categories`).
- The decision (`decision`): sigmoid of the 400 logits (the model side), torch.topk's 5
  (values, indices), each value rounded with Python's round(p, 4), kept when >= 0.85;
  the video is correct when a kept class name equals the label. The video value is the
  bool, `cor_num_per_video` 0 or 1; the aggregate is correct videos / videos.
"""

from typing import Dict, List, Sequence, Tuple

from benchmarks.vbench import dimension

THRESHOLD = 0.85
TOP_K = 5


def label_of(file_name: str) -> str:
    """The action a video's file name names (upstream splits the path on '/' first)."""
    return file_name.split("/")[-1].lower().split("-")[0].split("person is ")[-1].split("_")[0]


def categories(text: str) -> Dict[int, str]:
    """index -> lowercased class name from kinetics_400_categories.txt's text."""
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if not line:
            raise ValueError("kinetics_400_categories.txt: an empty line (upstream's "
                             "split('\\t') would fail on it)")
        name, number = line.split("\t")
        out[int(number)] = name.lower()
    return out


def decision(top_values: Sequence[float], top_indices: Sequence[int],
             names: Dict[int, str], label: str) -> Tuple[bool, List[str]]:
    """(correct, the kept class names in top-k order) from torch.topk's 5 sigmoid values
    and their indices."""
    if len(top_values) != TOP_K or len(top_indices) != TOP_K:
        raise ValueError(f"expected the top {TOP_K} values and indices, got "
                         f"{len(top_values)} and {len(top_indices)}")
    kept = [names[int(i)] for p, i in zip(top_values, top_indices)
            if round(float(p), 4) >= THRESHOLD]
    return label in kept, kept


def value(top_values, top_indices, names: Dict[int, str], file_name: str) -> dimension.Value:
    correct, _ = decision(top_values, top_indices, names, label_of(file_name))
    return dimension.Value(video_results=correct, extras={"cor_num_per_video": int(correct)})
