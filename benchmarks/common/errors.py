"""Errors every runner maps to an exit code (DESIGN.md: 0 done, 2 bad input, 1 internal)."""

from metrics.cli_support import EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, EXIT_OK  # noqa: F401


class InputError(ValueError):
    """Unusable input or configuration: the message names the path and what was expected."""

    def __init__(self, path, expected: str, found: str = ""):
        self.path = str(path)
        self.expected = expected
        self.found = found
        message = f"{self.path}: expected {expected}"
        if found:
            message += f", found {found}"
        super().__init__(message)
