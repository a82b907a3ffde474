"""Choosing the VQA judge from settings, and how it is reported (the scorecard Backend).

Official: Gemini `gemini-3.1-pro-preview` through google-genai at Google's address with
GEMINI_API_KEY (llm-vqa.py). Anything else is named and marked official=false: another
Gemini model, a Gemini base URL override (tests point it at a loopback server: the backend
is then "gemini-files-api@loopback"), or an OpenAI-compatible endpoint (e.g. a local vLLM).
"""

import dataclasses
import os
from typing import Mapping, Optional

from benchmarks.memobench.vqa import official
from metrics.judges import gemini
from metrics.judges import judge as judge_lib
from metrics.judges import openai_compat
from proto import scorecard_pb2

GEMINI = "gemini"
OPENAI = "openai"
KINDS = (GEMINI, OPENAI)


@dataclasses.dataclass(frozen=True)
class JudgeSettings:
    """Which judge answers the questions, and how requests are made.

    Attributes:
        kind: "gemini" (official) or "openai" (any OpenAI-compatible chat endpoint).
        model_id: Gemini model (default: llm-vqa.py's MODEL_ID) or the served model name.
        base_url: Gemini: overrides Google's address; openai: required API root (.../v1).
        api_key_env: Where the key is read (default GEMINI_API_KEY / OPENAI_API_KEY).
    """

    kind: str = GEMINI
    model_id: Optional[str] = None
    base_url: Optional[str] = None
    api_key_env: Optional[str] = None
    timeout_s: float = 600.0
    max_attempts: int = 4
    initial_backoff_s: float = 10.0
    poll_interval_s: float = gemini.POLL_INTERVAL_S

    def resolved_model_id(self) -> str:
        return self.model_id or (gemini.DEFAULT_MODEL_ID if self.kind == GEMINI else "")

    def key_env(self) -> str:
        return self.api_key_env or (gemini.API_KEY_ENV if self.kind == GEMINI
                                    else openai_compat.API_KEY_ENV)


def make_judge(settings: JudgeSettings, env: Mapping[str, str] = os.environ,
               sleep=None) -> judge_lib.VideoJudge:
    """The judge for `settings`.

    Raises:
        JudgeUnavailable: No key (Gemini), no endpoint or model (openai), unknown kind,
            google-genai not importable.
    """
    retry = judge_lib.RetryPolicy(max_attempts=settings.max_attempts,
                                  initial_delay_s=settings.initial_backoff_s)
    extra = {"sleep": sleep} if sleep is not None else {}
    key = env.get(settings.key_env())
    if settings.kind == GEMINI:
        return gemini.GeminiJudge(key, model_id=settings.resolved_model_id(),
                                  base_url=settings.base_url, timeout_s=settings.timeout_s,
                                  retry=retry, poll_interval_s=settings.poll_interval_s, **extra)
    if settings.kind == OPENAI:
        return openai_compat.OpenAICompatJudge(settings.base_url, settings.resolved_model_id(),
                                               api_key=key, timeout_s=settings.timeout_s,
                                               retry=retry, **extra)
    raise judge_lib.JudgeUnavailable(f"unknown judge kind {settings.kind!r}; one of {KINDS}")


def fix_hint(settings: JudgeSettings) -> str:
    """What to do when the judge is unavailable."""
    if settings.kind == OPENAI:
        return ("start an OpenAI-compatible server (e.g. `vllm serve <model>`) and pass its "
                "base URL and model id")
    return f"export {settings.key_env()}=<your Gemini API key>"


def backend(judge: judge_lib.VideoJudge) -> scorecard_pb2.Backend:
    note = [f"VLM judge {judge.describe()}", "prompt " + official.PROMPT_SOURCE,
            "scoring: llm-vqa.py compute_scores (verdict from Answer + bank polarity)"]
    if not judge.official:
        note.insert(0, "NON-official judge (official: Gemini "
                    f"{gemini.DEFAULT_MODEL_ID} via google-genai)")
    note.append("a hosted model: no weights to pin, the model id is recorded")
    return scorecard_pb2.Backend(
        name=judge.name, official=judge.official, checkpoint_id=judge.model_id,
        note="; ".join(note), digest_pinned=True,
        implementation="worldeval metrics/judges client (llm-vqa.py's prompt and scoring)",
        parity=scorecard_pb2.Parity(scope=(
            "prompt sha256-pinned to llm-vqa.py; scoring against llm-vqa.py's "
            "compute_scores on hand-made answers; wire format against a loopback server; "
            "never compared with the official script on the real service")))


def settings_backend(settings: JudgeSettings) -> scorecard_pb2.Backend:
    """The Backend a judge from `settings` would have, without making it (for reporting
    an unavailable judge)."""
    model_id = settings.resolved_model_id()
    if settings.kind == GEMINI:
        name, is_official = (gemini.judge_name(settings.base_url),
                             gemini.is_official(model_id, settings.base_url))
    else:
        name, is_official = openai_compat.NAME, False
    return scorecard_pb2.Backend(name=name, official=is_official, checkpoint_id=model_id)
