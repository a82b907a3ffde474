"""A NON-official video judge: any OpenAI-compatible chat-completions endpoint (e.g. vLLM).

The official judge is Gemini (gemini.py). This backend sends the same prompt to
`{base_url}/chat/completions` with the video inlined as a base64 data URL content part
(`{"type": "video_url", "video_url": {"url": "data:video/mp4;base64,..."}}`, the form
vLLM accepts), video first and prompt second as in the official `contents=[video, prompt]`,
and no sampling parameters (the server's defaults apply). Scores from it are labelled
non-official wherever they are reported.
"""

import base64
import http.client
import json
import pathlib
import socket
import time
import urllib.error
import urllib.request
from typing import Callable, Optional

from metrics.judges import judge as judge_lib

NAME = "openai-compatible"
API_KEY_ENV = "OPENAI_API_KEY"


class OpenAICompatJudge(judge_lib.VideoJudge):
    """Chat completions with the video as a `video_url` data URL. Never official."""

    official = False

    def __init__(self, base_url: Optional[str], model_id: str, api_key: Optional[str] = None,
                 timeout_s: float = 600.0,
                 retry: judge_lib.RetryPolicy = judge_lib.RetryPolicy(),
                 sleep: Callable[[float], None] = time.sleep):
        """Args:
            base_url: The API root including the version, e.g. http://127.0.0.1:8000/v1.
            model_id: The served model name.
            api_key: Sent as a Bearer token when given (local servers usually need none).
        """
        if not base_url or not base_url.strip():
            raise judge_lib.JudgeUnavailable(
                f"{NAME}: no endpoint; give the base URL of an OpenAI-compatible server "
                "(e.g. http://127.0.0.1:8000/v1)")
        if not model_id:
            raise judge_lib.JudgeUnavailable(f"{NAME}: no model id for {base_url}")
        self.endpoint = base_url.rstrip("/")
        self.model_id = model_id
        self.name = NAME
        self._api_key = api_key.strip() if api_key and api_key.strip() else None
        self._timeout_s, self._retry, self._sleep = timeout_s, retry, sleep

    def _post_once(self, body: bytes) -> dict:
        url = self.endpoint + "/chat/completions"
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = "Bearer " + self._api_key
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        what = f"POST {url}"
        try:
            with urllib.request.urlopen(request, timeout=self._timeout_s) as response:
                payload = response.read()
        except urllib.error.HTTPError as e:
            detail = e.read(500).decode("utf-8", "replace")
            raise judge_lib.JudgeHttpError(f"{what}: HTTP {e.code} {detail}",
                                           status=e.code) from None
        except (socket.timeout, TimeoutError):
            raise judge_lib.JudgeTimeout(f"{what}: timed out after {self._timeout_s} s") from None
        except urllib.error.URLError as e:
            if isinstance(e.reason, (socket.timeout, TimeoutError)):
                raise judge_lib.JudgeTimeout(
                    f"{what}: timed out after {self._timeout_s} s") from None
            raise judge_lib.JudgeConnectionError(f"{what}: cannot connect ({e.reason})") from None
        except (ConnectionError, http.client.HTTPException) as e:
            raise judge_lib.JudgeConnectionError(f"{what}: {type(e).__name__}: {e}") from None
        try:
            return json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise judge_lib.JudgeResponseError(
                f"{what}: the answer is not JSON ({e}): {payload[:200]!r}") from None

    def ask(self, video_path: pathlib.Path, prompt: str) -> judge_lib.JudgeReply:
        t0 = time.perf_counter()
        video_path = pathlib.Path(video_path)
        if not video_path.is_file():
            raise judge_lib.JudgeError(f"{video_path}: no such video file")
        data_url = "data:video/mp4;base64," + base64.b64encode(video_path.read_bytes()).decode()
        body = json.dumps({
            "model": self.model_id,
            "messages": [{"role": "user", "content": [
                {"type": "video_url", "video_url": {"url": data_url}},
                {"type": "text", "text": prompt},
            ]}],
        }).encode("utf-8")
        answer, attempts = judge_lib.with_retries(
            lambda: self._post_once(body), self._retry, f"{NAME} {self.model_id}", self._sleep)
        try:
            text = message_text(answer)
        except judge_lib.JudgeResponseError as e:
            e.attempts = attempts
            raise
        return judge_lib.JudgeReply(text=text, attempts=attempts,
                                    seconds=time.perf_counter() - t0,
                                    details={"video_bytes": str(video_path.stat().st_size)})


def message_text(answer: dict) -> str:
    """The assistant text of a chat-completions answer (string or list-of-parts content)."""
    try:
        content = answer["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise judge_lib.JudgeResponseError(
            f"no choices[0].message.content in the answer: {json.dumps(answer)[:300]}") from None
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content
                          if isinstance(p, dict) and p.get("type") == "text")
    if not isinstance(content, str):
        raise judge_lib.JudgeResponseError(f"message content is {type(content).__name__}, "
                                           "not text")
    return content
