"""The VLM judge interface: send one video file and one prompt, get the model's text back.

Backends (gemini.py, openai_compat.py) share the error types and the retry policy here:
a request that times out or answers HTTP 408/429/5xx is retried a bounded number of
times with exponential backoff; every other failure is raised at once. Errors carry the
number of attempts made. No backend ever puts its API key into a message or a log line.
"""

import abc
import dataclasses
import logging
import pathlib
import time
from typing import Callable, Dict, Optional, TypeVar

RETRIABLE_HTTP_STATUS = frozenset({408, 429, 500, 502, 503, 504})
_T = TypeVar("_T")
logger = logging.getLogger(__name__)


class JudgeError(Exception):
    """A judge request failed; `attempts` says how many tries were made."""

    def __init__(self, message: str, attempts: int = 1):
        super().__init__(message)
        self.attempts = attempts


class JudgeUnavailable(JudgeError):
    """The judge cannot be used at all (no API key, no endpoint, missing package)."""


class JudgeTimeout(JudgeError):
    """The request (or waiting for an upload to become ACTIVE) ran past its time limit."""


class JudgeConnectionError(JudgeError):
    """The endpoint could not be reached (refused, reset, DNS)."""


class JudgeHttpError(JudgeError):
    """The service answered with an HTTP error status."""

    def __init__(self, message: str, status: int, attempts: int = 1):
        super().__init__(message, attempts)
        self.status = status


class JudgeResponseError(JudgeError):
    """The service answered 200 but not in the expected shape (no text, bad JSON)."""


@dataclasses.dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries with exponential backoff: delay_k = min(initial * multiplier^k, max)."""

    max_attempts: int = 4
    initial_delay_s: float = 2.0
    multiplier: float = 2.0
    max_delay_s: float = 60.0

    def __post_init__(self):
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be >= 1, got {self.max_attempts}")
        if self.initial_delay_s < 0 or self.max_delay_s < 0 or self.multiplier < 1:
            raise ValueError(f"bad backoff settings: {self}")

    def delay(self, retry_index: int) -> float:
        return min(self.initial_delay_s * self.multiplier ** retry_index, self.max_delay_s)


def is_retriable(error: JudgeError) -> bool:
    return isinstance(error, (JudgeTimeout, JudgeConnectionError)) or (
        isinstance(error, JudgeHttpError) and error.status in RETRIABLE_HTTP_STATUS)


def with_retries(call: Callable[[], _T], policy: RetryPolicy, what: str,
                 sleep: Callable[[float], None] = time.sleep):
    """Runs `call` until it succeeds or a non-retriable / last error; returns (result, attempts).

    `call` raises JudgeError subclasses only. The error that ends the loop is re-raised
    with `attempts` set to the number of tries made.
    """
    for attempt in range(1, policy.max_attempts + 1):
        try:
            return call(), attempt
        except JudgeError as e:
            e.attempts = attempt
            if attempt == policy.max_attempts or not is_retriable(e):
                raise
            wait = policy.delay(attempt - 1)
            logger.warning("%s: attempt %d/%d failed (%s); retrying in %.1f s", what, attempt,
                           policy.max_attempts, e, wait)
            sleep(wait)
    raise AssertionError("unreachable")


@dataclasses.dataclass(frozen=True)
class JudgeReply:
    """The judge's text, with how it was obtained.

    Attributes:
        text: The model's answer, as returned.
        attempts: Tries of the answering request (1 = no retry).
        seconds: Wall time of the whole exchange (uploads and polling included).
        details: Backend-specific facts (e.g. upload attempts, uploaded file name).
    """

    text: str
    attempts: int
    seconds: float
    details: Dict[str, str] = dataclasses.field(default_factory=dict)


class VideoJudge(abc.ABC):
    """A VLM that answers a prompt about one video.

    Attributes:
        name: Backend name for reports, e.g. "gemini-files-api".
        model_id: The model asked.
        official: Whether this is the benchmark's official judge configuration.
        endpoint: Where requests go ("" for the service's default address).
    """

    name: str = ""
    model_id: str = ""
    official: bool = False
    endpoint: str = ""

    @abc.abstractmethod
    def ask(self, video_path: pathlib.Path, prompt: str) -> JudgeReply:
        """Sends the video and the prompt; returns the model's text.

        Raises:
            JudgeUnavailable, JudgeTimeout, JudgeHttpError, JudgeResponseError.
        """

    def describe(self) -> str:
        where = f" at {self.endpoint}" if self.endpoint else ""
        return f"{self.name} ({self.model_id}){where}"


def require_key(key: Optional[str], env_var: str, backend: str) -> str:
    """The stripped key, or JudgeUnavailable naming the variable to set (never the value)."""
    if key is None or not key.strip():
        raise JudgeUnavailable(f"{backend}: no API key; set the {env_var} environment variable")
    return key.strip()
