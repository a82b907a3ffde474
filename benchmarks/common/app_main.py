"""Runs a runner's main with DESIGN.md's exit codes: 0 done, 2 bad input, 1 internal error."""

import sys
import traceback

from absl import app

from benchmarks.common import errors
from metrics import cli_support
from metrics.video import frames


def run(main) -> None:
    """absl's app.run around `main`, turning input errors into one line and exit 2."""

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

    app.run(guarded, flags_parser=cli_support.parse_flags)
