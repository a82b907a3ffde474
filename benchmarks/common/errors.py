"""Errors every runner maps to an exit code (DESIGN.md: 0 done, 2 bad input, 1 internal)."""

EXIT_OK = 0
EXIT_INTERNAL_ERROR = 1
EXIT_BAD_INPUT = 2


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
