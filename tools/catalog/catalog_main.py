"""Prints the benchmark catalog, or writes docs/catalog.md from it.

    ./bazelw run //tools:catalog                                   # the table
    ./bazelw run //tools:catalog -- --benchmark=memobench          # one benchmark
    ./bazelw run //tools:catalog -- --format=markdown --output=docs/catalog.md
    ./bazelw run //tools:catalog -- --format=json                  # the data, as JSON

Exit codes: 0 done, 2 an unknown --benchmark (the message lists the valid ids), 1 a
malformed catalog (the message names the file and line).
"""

import sys

from absl import app
from absl import flags

from metrics import cli_support
from proto import schema
from tools.catalog import catalog_lib
from tools.catalog import render

FORMAT = flags.DEFINE_enum(
    "format", "table", ["table", "markdown", "json"],
    "table: a fixed-width table; markdown: the docs page (docs/catalog.md); json: the "
    "catalog in the proto's JSON mapping.")
OUTPUT = flags.DEFINE_string(
    "output", None, "Write to this file instead of stdout (relative to where you ran the "
    "command), e.g. docs/catalog.md.")
BENCHMARK = flags.DEFINE_string(
    "benchmark", None, "Show only this benchmark (its id, e.g. memobench).")


def _text(catalog) -> str:
    if BENCHMARK.value:
        entry = catalog_lib.get_entry(BENCHMARK.value, catalog)
        if FORMAT.value == "json":
            return schema.to_json(entry)
        return "\n".join(render.details(entry)) + "\n"
    if FORMAT.value == "json":
        return schema.to_json(catalog)
    return render.markdown(catalog) if FORMAT.value == "markdown" else render.table(catalog)


def main(argv):
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {' '.join(argv[1:])}")
    try:
        catalog = catalog_lib.load_catalog()
        text = _text(catalog)
    except catalog_lib.UnknownIdError as e:
        print(f"error: {e}", file=sys.stderr)
        return cli_support.EXIT_BAD_INPUT
    except catalog_lib.TextprotoError as e:
        print(f"error: {e}", file=sys.stderr)
        return cli_support.EXIT_INTERNAL_ERROR
    if OUTPUT.value:
        path = cli_support.user_path(OUTPUT.value)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    else:
        sys.stdout.write(text)
    return cli_support.EXIT_OK


if __name__ == "__main__":
    app.run(main, flags_parser=cli_support.parse_flags)
