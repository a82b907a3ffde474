"""Gemini as a video judge through google-genai's Files API (an official benchmark judge).

Reproduces the official evaluation/vqa/llm-vqa.py: `upload_and_wait` (files.upload, then
files.get every 5 s until the state is ACTIVE; FAILED is an error) and `evaluate_video`
(models.generate_content(model=MODEL_ID, contents=[video_file, prompt]) with no
generation config, i.e. no sampling parameters; the answer is `response.text`).

Differences that change no answer: a per-request timeout, bounded retries of timeouts,
connection errors and HTTP 408/429/5xx (official max_retries = 1, i.e. none), a limit on
the wait for ACTIVE, and the mime type given explicitly (video/mp4, what the official
upload guesses from the .mp4 name). google-genai's own retries stay off (its default),
so every try is counted here.
"""

import pathlib
import time
import urllib.parse
from typing import Callable, Optional

from metrics.judges import judge as judge_lib

DEFAULT_MODEL_ID = "gemini-3.1-pro-preview"  # llm-vqa.py MODEL_ID
API_KEY_ENV = "GEMINI_API_KEY"               # llm-vqa.py reads this variable
NAME = "gemini-files-api"
POLL_INTERVAL_S = 5.0                        # llm-vqa.py upload_and_wait: time.sleep(5)


def judge_name(base_url: Optional[str]) -> str:
    """"gemini-files-api", with "@loopback" or "@<url>" when the base URL is overridden."""
    if not base_url:
        return NAME
    host = urllib.parse.urlparse(base_url).hostname or ""
    return NAME + ("@loopback" if host in ("127.0.0.1", "localhost", "::1") else "@" + base_url)


def is_official(model_id: str, base_url: Optional[str]) -> bool:
    """llm-vqa.py's judge: the default model at Google's default address."""
    return model_id == DEFAULT_MODEL_ID and not base_url


class GeminiJudge(judge_lib.VideoJudge):
    """Gemini through google-genai: Files API upload, poll until ACTIVE, generate_content.

    `official` is True only for the default model at Google's default address; with
    `base_url` set the name says where requests went ("@loopback" for 127.0.0.1).
    """

    def __init__(self, api_key: Optional[str], model_id: str = DEFAULT_MODEL_ID,
                 base_url: Optional[str] = None, timeout_s: float = 600.0,
                 retry: judge_lib.RetryPolicy = judge_lib.RetryPolicy(),
                 poll_interval_s: float = POLL_INTERVAL_S, activation_timeout_s: float = 900.0,
                 sleep: Callable[[float], None] = time.sleep):
        key = judge_lib.require_key(api_key, API_KEY_ENV, NAME)
        try:
            from google import genai  # pylint: disable=import-outside-toplevel
            from google.genai import errors as genai_errors  # pylint: disable=import-outside-toplevel
            from google.genai import types  # pylint: disable=import-outside-toplevel
            import httpx2  # pylint: disable=import-outside-toplevel
        except ImportError as e:
            raise judge_lib.JudgeUnavailable(
                f"{NAME}: google-genai is not importable ({e}); depend on "
                "//third_party/py:google_genai") from e
        self._errors, self._httpx = genai_errors, httpx2
        self.model_id = model_id
        self.endpoint = base_url or ""
        self.name = judge_name(base_url)
        self.official = is_official(model_id, base_url)
        self._retry, self._sleep = retry, sleep
        self._poll_interval_s = poll_interval_s
        self._activation_timeout_s = activation_timeout_s
        # retry_options=None keeps the SDK's own retries off (a single try per call).
        http_options = types.HttpOptions(timeout=int(round(timeout_s * 1000)),
                                         base_url=base_url or None)
        self._client = genai.Client(api_key=key, vertexai=False, http_options=http_options)

    def _call(self, fn, what: str):
        """Runs one SDK call, mapping its exceptions onto the judge error types."""
        try:
            return fn()
        except self._errors.APIError as e:
            raise judge_lib.JudgeHttpError(
                f"{what}: HTTP {e.code} {e.status or ''} {e.message or ''}".strip(),
                status=int(e.code or 0)) from None
        except self._httpx.TimeoutException as e:
            raise judge_lib.JudgeTimeout(f"{what}: timed out ({type(e).__name__})") from None
        except self._httpx.TransportError as e:
            raise judge_lib.JudgeConnectionError(
                f"{what}: cannot reach the service ({type(e).__name__}: {e})") from None
        except (ValueError, KeyError, TypeError, self._errors.UnknownApiResponseError) as e:
            raise judge_lib.JudgeResponseError(
                f"{what}: unexpected response ({type(e).__name__}: {e})") from None

    def _retrying(self, fn, what: str):
        return judge_lib.with_retries(lambda: self._call(fn, what), self._retry, what,
                                      self._sleep)

    def _upload_and_wait(self, video_path: pathlib.Path, details: dict):
        uploaded, attempts = self._retrying(
            lambda: self._client.files.upload(file=str(video_path),
                                              config={"mime_type": "video/mp4"}),
            f"upload {video_path.name}")
        details["upload_attempts"] = str(attempts)
        details["uploaded_file"] = uploaded.name or ""
        deadline = time.monotonic() + self._activation_timeout_s
        polls = 0
        while True:
            current, _ = self._retrying(lambda: self._client.files.get(name=uploaded.name),
                                        f"files.get {uploaded.name}")
            polls += 1
            state = getattr(current.state, "value", current.state)
            if state == "ACTIVE":
                details["state_polls"] = str(polls)
                return current
            if state == "FAILED":
                raise judge_lib.JudgeResponseError(
                    f"Gemini video processing failed for {video_path.name} ({uploaded.name})")
            if time.monotonic() >= deadline:
                raise judge_lib.JudgeTimeout(
                    f"{uploaded.name} not ACTIVE after {self._activation_timeout_s:.0f} s "
                    f"(state {state})")
            self._sleep(self._poll_interval_s)

    def ask(self, video_path: pathlib.Path, prompt: str) -> judge_lib.JudgeReply:
        t0 = time.perf_counter()
        video_path = pathlib.Path(video_path)
        if not video_path.is_file():
            raise judge_lib.JudgeError(f"{video_path}: no such video file")
        details = {}
        video_file = self._upload_and_wait(video_path, details)
        response, attempts = self._retrying(
            lambda: self._client.models.generate_content(model=self.model_id,
                                                         contents=[video_file, prompt]),
            f"generate_content {self.model_id}")
        text = response.text
        if text is None:
            finish = [str(getattr(c, "finish_reason", "")) for c in (response.candidates or [])]
            raise judge_lib.JudgeResponseError(
                f"generate_content {self.model_id}: no text in the answer (finish reasons "
                f"{finish or 'none'}, prompt feedback {response.prompt_feedback})",
                attempts=attempts)
        return judge_lib.JudgeReply(text=text, attempts=attempts,
                                    seconds=time.perf_counter() - t0, details=details)
