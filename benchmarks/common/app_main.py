"""Runs a runner's main with DESIGN.md's exit codes: 0 done, 2 bad input, 1 internal error."""

import sys
import traceback

from absl import app

from benchmarks.common import errors
from benchmarks.common import summary
from metrics import cli_support
from metrics.video import frames


def guard(main):
    """`main` turning input errors into one line and exit 2, and anything else it raises
    into its traceback and exit 1 (what `run` runs; tests call it in-process)."""

    def guarded(argv):
        try:
            return main(argv)
        except (errors.InputError, frames.FrameInputError) as e:
            print(f"error: {e}", file=sys.stderr)
            sys.exit(errors.EXIT_BAD_INPUT)
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception:  # pylint: disable=broad-except
            traceback.print_exc()
            print("internal error: the traceback above is a worldeval bug; please report it.",
                  file=sys.stderr)
            sys.exit(errors.EXIT_INTERNAL_ERROR)

    return guarded


def run(main) -> None:
    """absl's app.run around `guard(main)`."""
    app.run(guard(main), flags_parser=cli_support.parse_flags)


def run_benchmark(argv, make_config, run_fn, noun: str = "samples") -> None:
    """A runner binary's main: flags only, `run_fn(make_config())`, the summary table,
    and exit 1 (naming them) when samples failed on a worldeval bug."""
    if len(argv) > 1:
        raise errors.InputError(" ".join(argv[1:]), "flags only (--name=value)",
                                "extra arguments")
    card = run_fn(make_config())
    print(summary.render(card))
    failed = card.coverage.internal_error_sample_ids
    if failed:
        print(f"internal error: {len(failed)} {noun} failed on a worldeval bug (the "
              f"traceback is in their error field in {card.output_files['per_sample_scores']}"
              "): " + ", ".join(failed[:10]), file=sys.stderr)
        sys.exit(errors.EXIT_INTERNAL_ERROR)
