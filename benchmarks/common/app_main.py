"""Runs a runner's main with DESIGN.md's exit codes: 0 done, 2 bad input, 1 internal error.

A full disk, a used-up quota or a read-only file system under the outputs is the
environment, not a worldeval bug: one line naming the file being written, exit 2 (the
writers keep what was already stored and leave no .tmp; `--resume` goes on from there).
So is a full disk met while a sample is scored (errors.DiskFull, raised by the sample
loop with the file, or the sample, it could not write).
"""

import errno
import sys
import traceback
from typing import Optional

from absl import app
from absl import flags

from benchmarks.common import errors
from benchmarks.common import summary
from metrics import cli_support
from metrics.video import frames


# errno -> what it says about the file system the file is on.
ENVIRONMENT_ERRNOS = {
    errno.ENOSPC: "no space left on device (ENOSPC): the disk is full",
    errno.EDQUOT: "disk quota exceeded (EDQUOT)",
    errno.EROFS: "read-only file system (EROFS)",
}


def environment_error(e: BaseException) -> Optional[str]:
    """The one-line message for an OSError that is the machine's, not ours (a full disk,
    a quota, a read-only file system); None for any other exception."""
    if not isinstance(e, OSError) or e.errno not in ENVIRONMENT_ERRNOS:
        return None
    where = e.filename
    if not where:  # a writer that did not name its file: the folder it writes in
        out = flags.FLAGS["output_dir"].value if "output_dir" in flags.FLAGS else None
        where = f"a file under --output_dir={out}" if out else "a file being written"
    return (f"{where}: could not be written: {ENVIRONMENT_ERRNOS[e.errno]}, not a "
            "worldeval bug; what was stored before is kept: make room (or choose another "
            "--output_dir) and run again (a runner's --resume keeps its stored samples)")


def guard(main):
    """`main` turning input errors and a full disk (environment_error) into one line and
    exit 2, and anything else it raises into its traceback and exit 1 (what `run` runs;
    tests call it in-process)."""

    def guarded(argv):
        try:
            return main(argv)
        except (errors.InputError, frames.FrameInputError) as e:
            print(f"error: {e}", file=sys.stderr)
            sys.exit(errors.EXIT_BAD_INPUT)
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as e:  # pylint: disable=broad-except
            message = environment_error(e)
            if message:
                print(f"error: {message}", file=sys.stderr)
                sys.exit(errors.EXIT_BAD_INPUT)
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
