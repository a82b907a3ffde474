"""worldscore.json from per-instance normalised scores (run_evaluate.py, spec §6).

Per metric: the mean (numpy) of `score_normalized` over every instance of the movement
that has it, pooled across styles, scene/motion types and categories. Per aspect:
`round(100 * mean over its metrics present, 2)`; an aspect no instance has stays 0 (an
int, as the official dict is initialised), which is how 3D models (static only) get 0
for the three dynamic aspects. WorldScore-Static = round(mean of the 7 static aspects,
2); WorldScore-Dynamic = round(mean of all 10, 2), static aspects included.
"""

from typing import Dict, Iterable, List, Mapping, Tuple

import numpy as np

from benchmarks.worldscore import aspects

# (aspect, metric) -> normalised values, in the order instances were walked.
Pools = Dict[Tuple[str, str], List[float]]


def pool(instances: Iterable[Mapping[Tuple[str, str], float]]) -> Pools:
    """Pools the normalised scores of instances of one movement, keeping the order in
    which each metric first appears (the official dict's insertion order)."""
    pools: Pools = {}
    for values in instances:
        for key, value in values.items():
            pools.setdefault(key, []).append(value)
    return pools


def metric_means(pools: Pools) -> Dict[Tuple[str, str], float]:
    return {key: np.mean(np.array(values), axis=0).item() for key, values in pools.items()}


def aspect_scores(pools: Pools, movement: str) -> Dict[str, float]:
    """The aspects of `movement` that have at least one value (calculate_mean_scores)."""
    means = metric_means(pools)
    scores = {}
    for aspect in aspects.ASPECTS_OF[movement]:
        present = [m for (a, _), m in means.items() if a == aspect]
        if present:
            scores[aspect] = round(np.mean(present).item() * 100, aspects.ROUND_DIGITS)
    return scores


def headlines(scores: Mapping[str, float]) -> Tuple[float, float]:
    static = [scores[a] for a in aspects.STATIC_ASPECTS]
    both = static + [scores[a] for a in aspects.DYNAMIC_ASPECTS]
    return (round(np.mean(np.array(static)).item(), aspects.ROUND_DIGITS),
            round(np.mean(np.array(both)).item(), aspects.ROUND_DIGITS))


def worldscore(pools_by_movement: Mapping[str, Pools]) -> Dict[str, object]:
    """worldscore.json's dict (official.WORLDSCORE_KEYS order) from the pools of the
    movements evaluated (static only for a 3D model)."""
    scores: Dict[str, object] = {a: 0 for a in aspects.STATIC_ASPECTS + aspects.DYNAMIC_ASPECTS}
    for movement, pools in pools_by_movement.items():
        scores.update(aspect_scores(pools, movement))
    static, dynamic = headlines(scores)
    scores[aspects.HEADLINE_STATIC] = static
    scores[aspects.HEADLINE_DYNAMIC] = dynamic
    return scores
