"""Writes a Physics-IQ Verified descriptions CSV from upstream's data.yaml (prompts.py).

    bazel run //benchmarks/physics_iq_verified:prompts -- \\
        --data_yaml=/path/physics-iq-benchmark/descriptions/data.yaml \\
        [--template=base|pvideo|sora2|original] [--noaction_suffix] [--output=FILE]

The bytes physiq/generate_descriptions.py <template> [--no-action-suffix] writes (@ 023e069;
`original` is dataset.py's build_original_descriptions, the shipped
descriptions_original.csv). --output defaults to descriptions_<template>.csv in the current
folder (upstream's file name). data.yaml is upstream's, not ours: it is never committed here.
Prints the file, its row count and its sha256. Exit codes: 0 done, 2 unusable input, 1
internal error.
"""

import hashlib
import os

from absl import flags

from benchmarks.common import app_main
from benchmarks.common import errors
from benchmarks.common import paths
from benchmarks.physics_iq_verified import prompts

DATA_YAML = flags.DEFINE_string(
    "data_yaml", None, "Upstream's descriptions/data.yaml (google-deepmind/"
    "physics-iq-benchmark); required.")
TEMPLATE = flags.DEFINE_enum(
    "template", "base", list(prompts.VARIANTS),
    "A physiq templater (base, pvideo, sora2) or `original` (the untemplated descriptions).")
ACTION_SUFFIX = flags.DEFINE_boolean(
    "action_suffix", True, "Append each scene's subject-action-postfix to its action; "
    "--noaction_suffix is upstream's --no-action-suffix (not for the Verified evaluation).")
OUTPUT = flags.DEFINE_string(
    "output", None, "The CSV to write (default: descriptions_<template>.csv here).")


def main(argv):
    if len(argv) > 1:
        raise errors.InputError(" ".join(argv[1:]), "flags only (--name=value)", "extra arguments")
    if not DATA_YAML.value:
        raise errors.InputError("--data_yaml", "upstream's descriptions/data.yaml", "none given")
    source = paths.user_path(DATA_YAML.value)
    rows = prompts.table(prompts.load(source), TEMPLATE.value, ACTION_SUFFIX.value, source)
    data = prompts.to_csv(rows)
    out = paths.user_path(OUTPUT.value or f"descriptions_{TEMPLATE.value}.csv")
    out.parent.mkdir(parents=True, exist_ok=True)  # as upstream does its --output-dir
    partial = out.with_name(out.name + ".tmp")
    partial.write_bytes(data)
    os.replace(partial, out)
    print(f"Wrote {len(rows)} rows -> {out} (sha256 {hashlib.sha256(data).hexdigest()})")


if __name__ == "__main__":
    app_main.run(main)
