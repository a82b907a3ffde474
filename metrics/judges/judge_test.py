"""The retry loop: bounded, exponential, only for transient errors, attempts recorded."""

import pytest

from metrics.judges import judge as judge_lib


class _Flaky:
    def __init__(self, *errors):
        self.errors = list(errors)
        self.calls = 0

    def __call__(self):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "answer"


def test_backoff_is_exponential_and_capped():
    policy = judge_lib.RetryPolicy(max_attempts=6, initial_delay_s=2, multiplier=3,
                                   max_delay_s=30)
    assert [policy.delay(k) for k in range(4)] == [2, 6, 18, 30]


@pytest.mark.parametrize("bad", [dict(max_attempts=0), dict(initial_delay_s=-1),
                                 dict(multiplier=0.5), dict(max_delay_s=-1)])
def test_policy_validation(bad):
    with pytest.raises(ValueError):
        judge_lib.RetryPolicy(**bad)


def test_transient_errors_are_retried():
    call = _Flaky(judge_lib.JudgeTimeout("t"), judge_lib.JudgeHttpError("x", 429),
                  judge_lib.JudgeConnectionError("c"), judge_lib.JudgeHttpError("x", 502))
    sleeps = []
    result = judge_lib.with_retries(call, judge_lib.RetryPolicy(max_attempts=5,
                                                                initial_delay_s=1),
                                    "test", sleeps.append)
    assert result == ("answer", 5) and sleeps == [1, 2, 4, 8]


@pytest.mark.parametrize("error", [judge_lib.JudgeHttpError("x", 400),
                                   judge_lib.JudgeHttpError("x", 403),
                                   judge_lib.JudgeResponseError("r"),
                                   judge_lib.JudgeUnavailable("u")])
def test_other_errors_end_at_once(error):
    call = _Flaky(error)
    with pytest.raises(type(error)) as err:
        judge_lib.with_retries(call, judge_lib.RetryPolicy(), "test", lambda s: None)
    assert (call.calls, err.value.attempts) == (1, 1)


def test_last_error_carries_the_attempt_count():
    call = _Flaky(*[judge_lib.JudgeHttpError("x", 500)] * 3)
    with pytest.raises(judge_lib.JudgeHttpError) as err:
        judge_lib.with_retries(call, judge_lib.RetryPolicy(max_attempts=3), "t", lambda s: None)
    assert (call.calls, err.value.attempts) == (3, 3)


def test_require_key_names_the_variable_only():
    assert judge_lib.require_key(" k \n", "MY_KEY", "b") == "k"
    with pytest.raises(judge_lib.JudgeUnavailable, match="set the MY_KEY"):
        judge_lib.require_key("", "MY_KEY", "b")
