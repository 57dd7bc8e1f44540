"""Many requests to one judge at once (``icarus.judges.parallel``): answers in input order, the same answers a
loop gives, threads only for judges that opt in, and real concurrency where they do."""

from __future__ import annotations

import logging
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from icarus.judges import (
    JudgeRequest,
    OfflineLexicalJudge,
    OfflineMiniLMJudge,
    StanceVerdict,
    cross_encoder,
    judge_all,
)
from icarus.judges.cross_encoder import PROBE_PAIRS, TWIN_WORTH_PAIRS, load_weights, weight_files
from icarus.judges.llm import OpenAICompatibleJudge
from icarus.judges.packaged import WeightsError
from icarus.judges.parallel import ParallelJudge, expect_requests, worker_plan
from icarus.judges.protocol import AttributionVerdict, Judge
from icarus.judges.registry import OPENAI_COMPATIBLE_JUDGE, create_judge
from icarus.settings import Settings
from tests.judges.conftest import FakeServer, asked_evidence_id, stance_answer

PAIRS = [
    *PROBE_PAIRS,
    ("Arctic sea ice extent has declined since 1979.", "Satellite records show Arctic sea ice has shrunk since 1979."),
    ("Global temperatures have not risen since 1998.", "The decade after 1998 was warmer than the one before it."),
    ("CO2 is a trace gas with no effect on climate.", "Carbon dioxide absorbs infrared radiation emitted by the surface."),
    ("Container traffic at Halden harbor fell 12% in October.", "In October the port handled 52,400 containers, up 12% from 46,800."),
    ("The bridge is 1,200 metres long.", "The bridge spans 800 metres from bank to bank."),
    ("Sales of electric cars doubled in 2021.", "Electric vehicle sales in 2021 were twice as high as in 2020."),
]  # fmt: skip


def requests() -> list[JudgeRequest]:
    return [
        JudgeRequest(
            claim_id=f"c{n}", claim_text=claim, evidence_id=f"e{n}", excerpt=passage, evidence_text=passage
        )
        for n, (claim, passage) in enumerate(PAIRS * 3)
    ]


def ask(judge: Judge, request: JudgeRequest) -> StanceVerdict:
    return judge.stance(request)


class ThreadRecordingJudge:
    """A lexical judge that notes the thread each request ran on."""

    def __init__(self) -> None:
        self.inner = OfflineLexicalJudge()
        self.threads: list[str] = []

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        self.threads.append(threading.current_thread().name)
        return self.inner.stance(request)

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
        return []


class MeetingJudge(ThreadRecordingJudge):
    """Opts in with ``threads`` threads; every request waits until ``threads`` requests are in flight at once,
    so a serial run would break the barrier instead of answering."""

    def __init__(self, threads: int) -> None:
        super().__init__()
        self.threads_wanted = threads
        self.barrier = threading.Barrier(threads, timeout=10)

    def parallel_worker(self, requests: int) -> tuple[Judge, int]:
        return self, self.threads_wanted

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        self.barrier.wait()
        return super().stance(request)


def test_a_judge_that_does_not_opt_in_is_asked_in_order_on_the_calling_thread() -> None:
    judge = ThreadRecordingJudge()
    assert not isinstance(judge, ParallelJudge)
    answers = judge_all(judge, ask, requests())
    assert [a.evidence_id for a in answers] == [r.evidence_id for r in requests()]
    assert set(judge.threads) == {threading.current_thread().name}


def test_a_judge_that_opts_in_is_asked_concurrently_and_answers_come_back_in_input_order() -> None:
    judge = MeetingJudge(threads=4)
    assert isinstance(judge, ParallelJudge)
    ticks: list[None] = []
    batch = requests()[:16]  # a multiple of the barrier's size, so every request meets three others
    answers = judge_all(judge, ask, batch, lambda: ticks.append(None))
    assert [a.evidence_id for a in answers] == [r.evidence_id for r in batch]
    assert answers == [OfflineLexicalJudge().stance(r) for r in batch]
    assert len(ticks) == len(batch)
    assert len(set(judge.threads)) == 4
    assert all(name.startswith("judge") for name in judge.threads)


def test_worker_plan_boundaries() -> None:
    judge = MeetingJudge(threads=4)
    assert worker_plan(judge, 0) == (judge, 1)
    assert worker_plan(judge, 1) == (judge, 1)  # one request: no thread pool at all
    assert worker_plan(judge, 2) == (judge, 2)  # never more threads than requests
    assert worker_plan(judge, 9) == (judge, 4)
    single = MeetingJudge(threads=1)
    assert worker_plan(single, 9) == (single, 1)
    lexical = OfflineLexicalJudge()
    assert worker_plan(lexical, 9) == (lexical, 1)


def test_an_exception_in_a_request_propagates() -> None:
    class Broken(MeetingJudge):
        def stance(self, request: JudgeRequest) -> StanceVerdict:
            if request.evidence_id == "e5":
                raise RuntimeError("defect in e5")
            return self.inner.stance(request)

    with pytest.raises(RuntimeError, match="defect in e5"):
        judge_all(Broken(threads=2), ask, requests())


@pytest.mark.parametrize("read_figures", [False, True], ids=["offline-minilm@1", "offline-minilm@2"])
def test_cross_encoder_answers_many_at_once_exactly_as_one_at_a_time(
    read_figures: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cross_encoder, "usable_cores", lambda: 2)  # the same plan on any machine
    judge = OfflineMiniLMJudge(read_figures=read_figures)
    batch = requests() * 3  # enough pairs to be worth the twin session
    assert len(batch) >= TWIN_WORTH_PAIRS
    worker, threads = judge.parallel_worker(len(batch))
    assert threads == 2
    assert worker is not judge
    assert judge.parallel_worker(2)[0] is worker  # built once, then used for any number of requests
    assert worker.weights.scorer.session is not judge.weights.scorer.session
    assert worker.weights.scorer.session.get_session_options().intra_op_num_threads == 1
    assert worker.provenance == judge.provenance
    one_at_a_time = [judge.stance(r) for r in batch]
    many = judge_all(judge, ask, batch)
    assert many == one_at_a_time  # verdicts, raw answers and confidences, field by field


def test_a_few_pairs_or_one_core_do_not_build_the_cross_encoders_twin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cross_encoder, "usable_cores", lambda: 1)
    judge = OfflineMiniLMJudge()
    assert judge.parallel_worker(10_000) == (judge, 1) and judge._worker is None
    monkeypatch.setattr(cross_encoder, "usable_cores", lambda: 2)
    assert judge.parallel_worker(TWIN_WORTH_PAIRS - 1) == (judge, 1)
    assert judge._worker is None
    assert worker_plan(judge, TWIN_WORTH_PAIRS - 1) == (judge, 1)
    expect_requests(judge, TWIN_WORTH_PAIRS)  # an evaluation's many small batches, announced at the start
    assert judge._worker is not None
    assert worker_plan(judge, 2) == (judge._worker, 2)  # built once, then used for any batch


def test_a_model_file_replaced_after_loading_is_never_run_by_the_twin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(cross_encoder, "usable_cores", lambda: 2)
    for shipped, copy in zip(weight_files(), weight_files(folder=tmp_path), strict=True):
        shutil.copy(shipped, copy)
    judge = OfflineMiniLMJudge(load_weights(folder=tmp_path))
    model = weight_files(folder=tmp_path)[0]
    model.write_bytes(model.read_bytes()[:-1] + b"\0")  # after it was checked and loaded
    with pytest.raises(WeightsError, match="damaged or was replaced"):
        judge.weights.scorer.with_threads(1)
    with caplog.at_level(logging.WARNING, logger="icarus.judges.cross_encoder"):
        assert judge.parallel_worker(TWIN_WORTH_PAIRS) == (judge, 1)  # keeps judging on the checked session
    assert "judging one pair at a time" in caplog.text and judge._worker is None
    batch = requests()[:4]
    assert judge_all(judge, ask, batch) == [OfflineMiniLMJudge().stance(r) for r in batch]


def test_cross_encoder_logits_do_not_depend_on_the_session_threads() -> None:
    judge = OfflineMiniLMJudge()
    claims, passages = (list(side) for side in zip(*PAIRS, strict=True))
    two = judge.weights.scorer.logits(claims, passages)
    one = judge.weights.scorer.with_threads(1).logits(claims, passages)
    assert (two == one).all()


def test_llm_judge_keeps_several_questions_open_at_the_endpoint(fake_llm: FakeServer) -> None:
    meeting = threading.Barrier(3, timeout=10)

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        meeting.wait()  # three requests in flight at once, or the barrier breaks and the judge fails closed
        return stance_answer(asked_evidence_id(request))

    fake_llm.answer = answer
    settings = Settings(llm_base_url=fake_llm.base_url, llm_model="fake-model", llm_parallel_requests=3)
    judge = create_judge(OPENAI_COMPATIBLE_JUDGE, settings)
    assert isinstance(judge, ParallelJudge) and judge.parallel_worker(9) == (judge, 3)
    batch = requests()[:9]
    answers = judge_all(judge, ask, batch)
    assert [a.failure for a in answers] == [None] * 9
    assert [a.evidence_id for a in answers] == [r.evidence_id for r in batch]
    assert len(fake_llm.requests) == 9


def test_llm_parallel_requests_defaults_and_bounds() -> None:
    assert Settings().llm_parallel_requests == 4
    judge = OpenAICompatibleJudge("http://127.0.0.1:9/v1", "m", SecretStr("k"))
    assert judge.parallel_worker(9) == (judge, 1)
    with pytest.raises(ValueError, match="at least 1"):
        OpenAICompatibleJudge("http://127.0.0.1:9/v1", "m", parallel_requests=0)
    with pytest.raises(ValueError):
        Settings(llm_parallel_requests=0)
