"""Judge calls: one shared pool bounds how many are in flight, a 429 or 5xx is retried with
backoff, a try that hangs times out, anything else fails at once; a budget stops the
calling once the estimated cost is spent."""

from __future__ import annotations

import asyncio
from typing import Any

from google.genai import errors, types

from tracegrade.scoring.judging.budget import Price, price_for
from tracegrade.scoring.judging.calls import Answer, JudgeCaller
from tracegrade.scoring.judging.resolve import Judge
from tracegrade.scoring.judging.settings import JudgeSettings
from tracegrade.scoring.prices import default_prices
from tracegrade.testing import ScriptedJudge

CONFIG = types.GenerateContentConfig()


def _ask_all(caller: JudgeCaller, judge: Judge, prompts: list[str]) -> list[Answer]:
    async def go() -> list[Answer]:
        asks = [caller.ask("m", f"t{i}", judge, p, CONFIG, 0) for i, p in enumerate(prompts)]
        return list(await asyncio.gather(*asks))

    return asyncio.run(go())


def _caller(price: Price | None = None, **settings: Any) -> JudgeCaller:
    return JudgeCaller(JudgeSettings(backoff_s=0.001, **settings), {}, {"j": price})


def test_429_and_5xx_are_retried_then_answered() -> None:
    failures = [errors.ClientError(429, {"error": {"message": "quota"}}),
                errors.ServerError(503, {"error": {"message": "busy"}})]  # fmt: skip

    def answer(prompt: str, sample: int) -> str:
        if failures:
            raise failures.pop(0)
        return "fine"

    (got,) = _ask_all(_caller(retries=2), Judge("j", ScriptedJudge(answer=answer)), ["p"])
    assert (got.outcome, got.response, got.attempts) == ("answered", "fine", 3)


def test_other_errors_fail_at_once_and_say_why() -> None:
    def answer(prompt: str, sample: int) -> str:
        raise errors.ClientError(400, {"error": {"message": "bad request"}})

    (got,) = _ask_all(_caller(retries=5), Judge("j", ScriptedJudge(answer=answer)), ["p"])
    assert (got.outcome, got.attempts) == ("failed", 1)
    assert str(got.error).startswith("ClientError: 400")


def test_a_hanging_try_times_out_and_is_retried() -> None:
    judge = ScriptedJudge(answer=lambda p, s: "late", delay_s=5)
    (got,) = _ask_all(_caller(timeout_s=0.05, retries=1), Judge("j", judge), ["p"])
    assert (got.outcome, got.attempts) == ("failed", 2)
    assert got.error == "TimeoutError: no answer within the timeout (after 2 tries)"


def test_the_pool_bounds_the_calls_in_flight() -> None:
    in_flight, peak = 0, 0

    class Counting(ScriptedJudge):
        async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
            nonlocal in_flight, peak
            in_flight += 1
            peak = max(peak, in_flight)
            await asyncio.sleep(0.02)
            in_flight -= 1
            async for response in super().generate_content_async(llm_request, stream):
                yield response

    judge = Judge("j", Counting(answer=lambda p, s: "ok"))
    answers = _ask_all(_caller(concurrency=3), judge, [f"p{i}" for i in range(12)])
    assert [a.outcome for a in answers] == ["answered"] * 12
    assert peak == 3


def test_a_budget_stops_the_calls_once_spent() -> None:
    price = Price(input=1_000_000.0, output=1_000_000.0)  # $1 a token: easy sums
    judge = ScriptedJudge(answer=lambda p, s: "ok", usage={"input": 2, "output": 1})
    caller = _caller(price, budget_usd=10.0, concurrency=1)
    answers = _ask_all(caller, Judge("j", judge), ["12345678"] * 6)  # estimated 2 + 600
    assert [a.outcome for a in answers] == ["unjudged"] * 6  # the first estimate is $602
    caller = _caller(price, budget_usd=1000.0, concurrency=1)
    answers = _ask_all(caller, Judge("j", judge), ["12345678"] * 6)
    # 1st: est. 602, costs 3; then output is estimated at 1 token: 2 + 1 = 3 each.
    assert [a.outcome for a in answers] == ["answered"] * 6
    assert [a.cost_usd for a in answers] == [3.0] * 6
    assert caller.budget.spent == 18.0


def test_a_budget_of_calls_stops_the_calls_once_made_priced_or_not() -> None:
    """serve's daily `calls_per_day`: cached answers are free, an unpriced judge counts too."""
    judge = ScriptedJudge(answer=lambda p, s: "ok")
    caller = _caller(None, max_calls=4, concurrency=2)
    answers = _ask_all(caller, Judge("j", judge), [f"prompt {i}" for i in range(6)])
    assert [a.outcome for a in answers] == ["answered"] * 4 + ["unjudged"] * 2
    assert answers[-1].error == "the judge budget was spent"
    assert len(judge.calls) == 4
    none = _caller(None, max_calls=0)
    assert [a.outcome for a in _ask_all(none, Judge("j", judge), ["p"])] == ["unjudged"]


def test_judge_prices_match_as_the_cost_scorer_matches() -> None:
    table = default_prices()
    assert price_for("gemini-2.5-flash-001", table) == price_for("gemini-2.5-flash", table)
    assert price_for("models/gemini-2.5-flash-lite", table) == Price(0.10, 0.40)
    assert price_for("my-own-judge", table) is None


def test_a_cached_answer_is_reused_without_a_call() -> None:
    judge = ScriptedJudge(answer=lambda p, s: "fresh")
    first = _ask_all(_caller(), Judge("j", judge), ["p"])[0]
    caller = JudgeCaller(JudgeSettings(), {first.key: first}, {"j": None})
    (again,) = _ask_all(caller, Judge("j", judge), ["p"])
    assert (again.cached, again.response, len(judge.calls)) == (True, "fresh", 1)
