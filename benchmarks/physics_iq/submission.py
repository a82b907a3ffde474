"""The Physics-IQ Verified submission card (spec §10 "Submission YAML"): the unmerged PR #69,
`refs/pull/69/head` = b92d202, files submission/submission.yaml and physiq/submit.py.

`load` reads the YAML (yaml.safe_load, as submit.py does) and applies submit.py's
`_validate_card` checks, every one of them, reporting all problems at once with the file and
the field named:
  - public_info: organization, model, model_version, input_type, fps, resolution,
    bon_sampling, prompt_upsampling, descriptions, availability, model_source, date,
    generation_cost must not be null or "" (so `false` and 0 pass);
  - when prompt_upsampling is exactly `true`: upsample_cost; and, unless availability is
    "api", upsample_gpu, upsample_ngpu, upsample_time;
  - unless availability is "api": generation_gpu, generation_ngpu, generation_time;
  - reported_scores: the 10 `{physiq,spatial_iou,weighted_spatial_iou,spatiotemporal_iou,
    mse}_{mean,std}` fields, verified scores in % (0-100), must not be null or "";
  - terms.terms_version must equal the string "1.0" (an unquoted YAML `1.0` is a float and
    fails, as upstream), terms_accepted must be `true` itself, accepted_on_behalf_of and
    accepted_at must be truthy;
  - the five warranties must each be `true` itself.
Beyond upstream (it only checks presence): a reported score must be a finite number (a
`*_std` may be .nan, a one-run std), since the importer carries it as one; a card whose
sections are not mappings is refused (upstream crashes on `.get`). The other messages are
upstream's own strings (checked in scratch on 3,000 random edits of a valid card). The allowed values the YAML comments list for input_type, descriptions
and availability are not enforced upstream; `Card.notes` lists departures from them.
The run directories' checks (198 mp4s, 5.0 s, fps, resolution via ffprobe) are not here.
"""

import dataclasses
import math
import pathlib
import re
from typing import Dict, List, Mapping, Tuple

import yaml

from benchmarks.common.errors import InputError

# submit.py RUN_ID_RE, used with re.match: like upstream, `$` also accepts one trailing "\n".
RUN_ID = re.compile(r"^[a-z0-9]+__[a-z0-9.-]+__\d{4}-\d{2}-\d{2}$")
TERMS_VERSION = "1.0"

REQUIRED = ("organization", "model", "model_version", "input_type", "fps", "resolution",
            "bon_sampling", "prompt_upsampling", "descriptions", "availability",
            "model_source", "date", "generation_cost")
REQUIRED_WITH_UPSAMPLING = ("upsample_cost",)
REQUIRED_NON_API = ("generation_gpu", "generation_ngpu", "generation_time")
REQUIRED_NON_API_WITH_UPSAMPLING = ("upsample_gpu", "upsample_ngpu", "upsample_time")
REPORTED_SCORES = tuple(f"{score}_{stat}" for score in (
    "physiq", "spatial_iou", "weighted_spatial_iou", "spatiotemporal_iou", "mse")
    for stat in ("mean", "std"))
WARRANTIES = ("has_rights_to_submit", "no_ip_infringement", "permitted_by_provider_tos",
              "no_personal_data_in_content", "metadata_accurate")
# submission.yaml comments: allowed values (not checked by submit.py).
ALLOWED = {"input_type": ("t2v", "i2v", "v2v"), "descriptions": ("op", "bpp"),
           "availability": ("public", "api", "research", "private")}
EXPECTED = "a Physics-IQ submission card (PR #69 b92d202 submission/submission.yaml)"


@dataclasses.dataclass(frozen=True)
class Card:
    """A validated card: its sections as read, the reported scores as floats (in %), and
    notes on values outside the YAML comments' allowed lists."""

    path: str
    public_info: Mapping[str, object]
    reported_scores: Mapping[str, float]
    terms: Mapping[str, object]
    warranties: Mapping[str, object]
    notes: Tuple[str, ...] = ()


def _empty(value) -> bool:
    return value is None or (isinstance(value, str) and value == "")


def _section(data: Mapping, name: str, errors: List[str]) -> Mapping:
    value = data.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        errors.append(f"'{name}' must be a mapping, got {type(value).__name__}")
        return {}
    return value


def validate_card(data) -> List[str]:
    """submit.py _validate_card's problems (plus the numeric reported scores), each naming
    its field; empty when the card is valid."""
    if not isinstance(data, dict):
        return [f"the card must be a mapping, got {type(data).__name__}"]
    errors: List[str] = []
    info = _section(data, "public_info", errors)
    scores = _section(data, "reported_scores", errors)
    terms = _section(data, "terms", errors)
    warranties = _section(data, "warranties", errors)

    def require(section: Mapping, prefix: str, fields, why: str = "") -> None:
        for field in fields:
            if _empty(section.get(field)):
                errors.append(f"required field '{prefix}.{field}' is empty{why}")

    require(info, "public_info", REQUIRED)
    if info.get("prompt_upsampling") is True:
        require(info, "public_info", REQUIRED_WITH_UPSAMPLING,
                " (required when prompt_upsampling is true)")
        if info.get("availability") != "api":
            require(info, "public_info", REQUIRED_NON_API_WITH_UPSAMPLING,
                    " (required for non-API models with prompt upsampling)")
    if info.get("availability") != "api":
        require(info, "public_info", REQUIRED_NON_API, " (required for non-API models)")
    require(scores, "reported_scores", REPORTED_SCORES)
    for field in REPORTED_SCORES:
        value = scores.get(field)
        if _empty(value):
            continue
        number = not isinstance(value, bool) and isinstance(value, (int, float))
        # A one-run submission's std is NaN (aggregate_runs_from_csvs.py): allowed for *_std.
        if not number or not (math.isfinite(value)
                              or (field.endswith("_std") and math.isnan(value))):
            errors.append(f"'reported_scores.{field}' must be a finite number (in %; a std "
                          f"may be .nan), got {value!r}")
    if terms.get("terms_version") != TERMS_VERSION:
        errors.append(f'terms.terms_version must be "{TERMS_VERSION}" '
                      f"(got {terms.get('terms_version')!r})")
    if terms.get("terms_accepted") is not True:
        errors.append("terms.terms_accepted must be true")
    for field in ("accepted_on_behalf_of", "accepted_at"):
        if not terms.get(field):
            errors.append(f"terms.{field} must be a non-empty string")
    for field in WARRANTIES:
        if warranties.get(field) is not True:
            errors.append(f"warranties.{field} must be true")
    return errors


def load(path) -> Card:
    """Reads and validates the card at `path`; InputError naming the file and every bad
    field otherwise."""
    path = pathlib.Path(path)
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise InputError(path, EXPECTED, f"{type(e).__name__}: {e}") from e
    errors = validate_card(data)
    if errors:
        raise InputError(path, EXPECTED, "; ".join(errors))
    info = data.get("public_info") or {}
    notes = tuple(f"public_info.{field} = {info.get(field)!r} is not one of {allowed}"
                  for field, allowed in ALLOWED.items() if info.get(field) not in allowed)
    scores: Dict[str, float] = {k: float(data["reported_scores"][k]) for k in REPORTED_SCORES}
    return Card(str(path), info, scores, data.get("terms") or {},
                data.get("warranties") or {}, notes)


def check_run_id(run_id: str) -> str:
    """submit.py's run-id check (`<org>__<descriptive-id>__<YYYY-MM-DD>`, lowercase)."""
    if not RUN_ID.match(run_id):
        raise InputError("run_id", "<org>__<descriptive-id>__<YYYY-MM-DD> (lowercase, no "
                         "spaces; submit.py RUN_ID_RE)", repr(run_id))
    return run_id
