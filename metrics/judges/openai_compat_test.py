"""OpenAICompatJudge against the loopback chat-completions server."""

import base64
import logging

import pytest

from metrics.judges import judge as judge_lib
from metrics.judges import loopback_server as ls
from metrics.judges import openai_compat
from metrics.judges.loopback_server import GENERATE, Reply

FAST = judge_lib.RetryPolicy(max_attempts=3, initial_delay_s=0.25, multiplier=2.0)


@pytest.fixture
def refused(monkeypatch):
    return ls.guard_loopback(monkeypatch)


@pytest.fixture
def video(tmp_path):
    path = tmp_path / "clip.mp4"
    path.write_bytes(bytes(range(256)) * 3)
    return path


def _judge(server, sleeps, **kwargs):
    kwargs.setdefault("retry", FAST)
    return openai_compat.OpenAICompatJudge(server.base_url + "/v1", "qwen-vl-test",
                                           sleep=sleeps.append, **kwargs)


def test_wire_format(refused, video):
    with ls.LoopbackJudgeServer(default_text="```json\n[]\n```") as server:
        judge = _judge(server, [])
        reply = judge.ask(video, "the prompt")
    assert (reply.text, reply.attempts) == ("```json\n[]\n```", 1)
    (request,) = server.requests
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert "authorization" not in request.headers
    body = request.json()
    assert set(body) == {"model", "messages"}  # no sampling parameters
    assert body["model"] == "qwen-vl-test"
    (message,) = body["messages"]
    video_part, text_part = message["content"]
    assert video_part["type"] == "video_url"
    prefix = "data:video/mp4;base64,"
    assert video_part["video_url"]["url"].startswith(prefix)
    assert base64.b64decode(video_part["video_url"]["url"][len(prefix):]) == video.read_bytes()
    assert text_part == {"type": "text", "text": "the prompt"}
    assert not judge.official and judge.name == "openai-compatible"
    assert refused == []


def test_bearer_key_sent_but_never_logged(refused, video, caplog):
    caplog.set_level(logging.DEBUG)
    key = "sk-local-5e1d"
    with ls.LoopbackJudgeServer(default_text="ok") as server:
        server.script(GENERATE, Reply(status=500))
        reply = _judge(server, [], api_key=key).ask(video, "p")
    assert reply.attempts == 2
    assert all(r.headers["authorization"] == "Bearer " + key for r in server.requests)
    assert caplog.records and key not in caplog.text


def test_429_500_then_success(refused, video):
    with ls.LoopbackJudgeServer(default_text="fine") as server:
        server.script(GENERATE, Reply(status=429), Reply(status=500))
        sleeps = []
        reply = _judge(server, sleeps).ask(video, "p")
    assert (reply.text, reply.attempts, sleeps) == ("fine", 3, [0.25, 0.5])


def test_bounded_and_non_retriable(refused, video):
    with ls.LoopbackJudgeServer() as server:
        server.script(GENERATE, *[Reply(status=502)] * 3)
        with pytest.raises(judge_lib.JudgeHttpError) as err:
            _judge(server, []).ask(video, "p")
        assert (err.value.status, err.value.attempts) == (502, 3)
        server.script(GENERATE, Reply(status=404))
        server.requests.clear()
        with pytest.raises(judge_lib.JudgeHttpError) as err:
            _judge(server, []).ask(video, "p")
    assert (err.value.status, err.value.attempts, len(server.requests)) == (404, 1, 1)


def test_slow_answer_times_out_then_succeeds(refused, video):
    with ls.LoopbackJudgeServer(default_text="second try") as server:
        server.script(GENERATE, Reply(delay_s=3.0))
        reply = _judge(server, [], timeout_s=0.5).ask(video, "p")
    assert (reply.text, reply.attempts) == ("second try", 2)


def test_timeouts_exhaust_retries(refused, video):
    with ls.LoopbackJudgeServer() as server:
        server.script(GENERATE, Reply(delay_s=3.0), Reply(delay_s=3.0))
        with pytest.raises(judge_lib.JudgeTimeout) as err:
            _judge(server, [], timeout_s=0.4,
                   retry=judge_lib.RetryPolicy(max_attempts=2, initial_delay_s=0)).ask(video, "p")
    assert err.value.attempts == 2


@pytest.mark.parametrize("raw", [b"not json", b'{"choices": []}', b'{"choices": [{}]}',
                                 b'{"choices": [{"message": {"content": 7}}]}'])
def test_malformed_answers(refused, video, raw):
    with ls.LoopbackJudgeServer() as server:
        server.script(GENERATE, Reply(raw_body=raw))
        with pytest.raises(judge_lib.JudgeResponseError):
            _judge(server, []).ask(video, "p")


def test_list_of_parts_content():
    answer = {"choices": [{"message": {"content": [
        {"type": "text", "text": "[{"}, {"type": "image_url"}, {"type": "text", "text": "}]"}]}}]}
    assert openai_compat.message_text(answer) == "[{}]"


def test_connection_refused_is_retried_then_typed(refused, video):
    with ls.LoopbackJudgeServer() as server:
        dead_url = server.base_url + "/v1"
    sleeps = []
    judge = openai_compat.OpenAICompatJudge(dead_url, "m", retry=FAST, sleep=sleeps.append)
    with pytest.raises(judge_lib.JudgeConnectionError) as err:
        judge.ask(video, "p")
    assert err.value.attempts == 3 and len(sleeps) == 2


def test_no_endpoint_is_unavailable():
    for url in (None, "", "  "):
        with pytest.raises(judge_lib.JudgeUnavailable, match="no endpoint"):
            openai_compat.OpenAICompatJudge(url, "m")


def test_guard_refuses_other_addresses(refused):
    judge = openai_compat.OpenAICompatJudge("http://192.0.2.1:8000/v1", "m",
                                            retry=judge_lib.RetryPolicy(max_attempts=1))
    with pytest.raises(judge_lib.JudgeError):
        judge.ask(__file__, "p")
    assert refused  # the guard saw, and stopped, the attempt
