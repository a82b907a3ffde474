"""GeminiJudge through the real google-genai client against the loopback Gemini server."""

import logging

import pytest

from metrics.judges import gemini
from metrics.judges import judge as judge_lib
from metrics.judges import loopback_server as ls
from metrics.judges.loopback_server import GENERATE, FILE_STATE, UPLOAD, Reply

KEY = "test-key-7f3a9c"
FAST = judge_lib.RetryPolicy(max_attempts=3, initial_delay_s=0.5, multiplier=2.0)


@pytest.fixture
def refused(monkeypatch):
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    return ls.guard_loopback(monkeypatch)


@pytest.fixture
def video(tmp_path):
    path = tmp_path / "clip.mp4"
    path.write_bytes(b"\x00\x00\x00\x18ftypmp42 fake video bytes")
    return path


def _judge(server, sleeps, **kwargs):
    kwargs.setdefault("retry", FAST)
    return gemini.GeminiJudge(KEY, base_url=server.base_url, sleep=sleeps.append,
                              poll_interval_s=0.25, **kwargs)


def test_upload_poll_generate_wire_format(refused, video):
    with ls.LoopbackJudgeServer(default_text='[{"ID": 1}]') as server:
        server.script(FILE_STATE, Reply(text="PROCESSING"), Reply(text="PROCESSING"))
        sleeps = []
        reply = _judge(server, sleeps).ask(video, "the prompt")
    assert reply.text == '[{"ID": 1}]'
    assert reply.attempts == 1
    assert reply.details["state_polls"] == "3"
    assert sleeps == [0.25, 0.25]  # polled until ACTIVE
    start, transfer, *gets, generate = server.requests
    assert (start.method, start.path) == ("POST", "/upload/v1/files")
    assert start.headers["x-goog-upload-protocol"] == "resumable"
    assert start.headers["x-goog-upload-header-content-type"] == "video/mp4"
    assert transfer.headers["x-goog-upload-command"] == "upload, finalize"
    assert transfer.body == video.read_bytes()
    assert [g.path for g in gets] == ["/v1/files/loopback-1"] * 3
    assert generate.path == "/v1/models/gemini-3.1-pro-preview:generateContent"
    body = generate.json()
    parts = body["contents"][0]["parts"]
    assert parts[0]["fileData"]["file_uri"] == server.base_url + "/v1/files/loopback-1"
    assert parts[1] == {"text": "the prompt"}
    assert set(body) == {"contents"}  # no generationConfig: no sampling parameters
    assert all(r.headers.get("x-goog-api-key", KEY) == KEY for r in server.requests)
    assert all(KEY not in r.path for r in server.requests)
    assert refused == []


def test_failed_processing_is_an_error(refused, video):
    with ls.LoopbackJudgeServer() as server:
        server.script(FILE_STATE, Reply(text="FAILED"))
        with pytest.raises(judge_lib.JudgeResponseError, match="processing failed"):
            _judge(server, []).ask(video, "p")
    assert not server.requests_to(":generateContent")


def test_429_and_500_are_retried_with_backoff(refused, video):
    with ls.LoopbackJudgeServer(default_text="ok") as server:
        server.script(GENERATE, Reply(status=429), Reply(status=500))
        sleeps = []
        reply = _judge(server, sleeps).ask(video, "p")
    assert (reply.text, reply.attempts) == ("ok", 3)
    assert sleeps == [0.5, 1.0]
    assert len(server.requests_to(":generateContent")) == 3


def test_retries_are_bounded(refused, video):
    with ls.LoopbackJudgeServer() as server:
        server.script(GENERATE, *[Reply(status=503)] * 5)
        with pytest.raises(judge_lib.JudgeHttpError) as err:
            _judge(server, []).ask(video, "p")
    assert (err.value.status, err.value.attempts) == (503, 3)
    assert len(server.requests_to(":generateContent")) == 3


def test_client_errors_are_not_retried(refused, video):
    with ls.LoopbackJudgeServer() as server:
        server.script(GENERATE, Reply(status=400))
        with pytest.raises(judge_lib.JudgeHttpError) as err:
            _judge(server, []).ask(video, "p")
    assert (err.value.status, err.value.attempts) == (400, 1)


def test_slow_answer_times_out_then_retry_succeeds(refused, video):
    with ls.LoopbackJudgeServer(default_text="late but fine") as server:
        server.script(GENERATE, Reply(text="never read", delay_s=3.0))
        reply = _judge(server, [], timeout_s=0.5).ask(video, "p")
    assert (reply.text, reply.attempts) == ("late but fine", 2)


def test_timeouts_exhaust_the_retries(refused, video):
    with ls.LoopbackJudgeServer() as server:
        server.script(GENERATE, *[Reply(delay_s=3.0)] * 2)
        with pytest.raises(judge_lib.JudgeTimeout) as err:
            _judge(server, [], timeout_s=0.5,
                   retry=judge_lib.RetryPolicy(max_attempts=2, initial_delay_s=0)).ask(video, "p")
    assert err.value.attempts == 2


def test_malformed_wire_answer(refused, video):
    with ls.LoopbackJudgeServer() as server:
        server.script(GENERATE, Reply(raw_body=b"<html>not json</html>"))
        with pytest.raises(judge_lib.JudgeResponseError):
            _judge(server, []).ask(video, "p")


def test_answer_without_text(refused, video):
    with ls.LoopbackJudgeServer() as server:
        server.script(GENERATE, Reply(raw_body=b'{"candidates": []}'))
        with pytest.raises(judge_lib.JudgeResponseError, match="no text"):
            _judge(server, []).ask(video, "p")


def test_upload_error_is_typed(refused, video):
    with ls.LoopbackJudgeServer() as server:
        server.script(UPLOAD, Reply(status=400))
        with pytest.raises(judge_lib.JudgeHttpError) as err:
            _judge(server, []).ask(video, "p")
    assert err.value.status == 400


def test_transient_upload_and_poll_errors_are_retried(refused, video):
    with ls.LoopbackJudgeServer(default_text="ok") as server:
        server.script(UPLOAD, Reply(status=503))
        server.script(FILE_STATE, Reply(status=500), Reply(text="ACTIVE"))
        reply = _judge(server, []).ask(video, "p")
    assert (reply.text, reply.attempts) == ("ok", 1)
    assert reply.details["upload_attempts"] == "2"
    assert reply.details["uploaded_file"] == "files/loopback-1"  # the failed try made none
    assert len(server.requests_to("/v1/files/")) == 2


def test_no_key_is_unavailable(monkeypatch):
    monkeypatch.delenv(gemini.API_KEY_ENV, raising=False)
    for key in (None, "", "   "):
        with pytest.raises(judge_lib.JudgeUnavailable, match=gemini.API_KEY_ENV):
            gemini.GeminiJudge(key)


def test_key_never_logged_nor_in_errors(refused, video, caplog):
    caplog.set_level(logging.DEBUG)
    with ls.LoopbackJudgeServer() as server:
        server.script(GENERATE, Reply(status=429), Reply(status=401))
        with pytest.raises(judge_lib.JudgeHttpError) as err:
            _judge(server, []).ask(video, "p")
    assert caplog.records  # the retry was logged ...
    assert KEY not in caplog.text  # ... without the key
    assert KEY not in str(err.value) and KEY not in repr(err.value)


def test_official_only_for_default_model_at_google(refused):
    official = gemini.GeminiJudge(KEY)
    assert (official.official, official.name, official.model_id) == (
        True, "gemini-files-api", "gemini-3.1-pro-preview")
    other_model = gemini.GeminiJudge(KEY, model_id="gemini-3-flash-preview")
    assert not other_model.official
    loopback = gemini.GeminiJudge(KEY, base_url="http://127.0.0.1:9")
    assert (loopback.official, loopback.name) == (False, "gemini-files-api@loopback")
    assert refused == []  # constructing a client contacts nobody


def test_missing_video_is_an_error_before_any_request(refused, tmp_path):
    with ls.LoopbackJudgeServer() as server:
        with pytest.raises(judge_lib.JudgeError, match="no such video"):
            _judge(server, []).ask(tmp_path / "absent.mp4", "p")
    assert server.requests == []
