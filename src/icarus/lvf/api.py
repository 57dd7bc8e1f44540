"""``/v1/lvf``: LVF runs and challenges over HTTP, with the CLI's validation and rate limits.

Runs and challenges live in the LVF database that ``icarus lvf`` uses (``<ICARUS_DATA_DIR>/lvf.db``), so
a run recorded from the command line can be challenged through the API and the other way round.

- ``POST /v1/lvf/runs`` (api): assess a ledger, or a stored check's version, under an LVF version;
  ``record`` stores each run, ``public`` answers with the public summaries instead of the full records.
- ``GET /v1/lvf/runs``, ``GET /v1/lvf/runs/{id}`` (reader): stored runs; one run with its own methodology
  version, weights and each assessor's criteria. The full stored record (assessor notes, the LLM
  assessor's prompt hash and reply) only for the reviewer role and above.
- ``GET /v1/lvf/runs/{id}/public`` (reader): the allowlisted public summary.
- ``POST /v1/lvf/challenges`` (api), ``GET /v1/lvf/challenges`` (reader: the review queue),
  ``GET /v1/lvf/challenges/{id}`` (reader: state and votes; reviewer: the whole history with notes),
  ``POST /v1/lvf/challenges/{id}/votes`` (api), ``…/reviews`` (reviewer), ``…/responses`` (api).
"""

import json
import threading
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from fastapi import APIRouter, Depends, HTTPException, Query, status
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, model_validator

from icarus.http.auth import Principal, Security
from icarus.jobs.runner import JobRunner
from icarus.ledger import Ledger, LedgerError, SubjectKind
from icarus.ledger.document import parse_ledger
from icarus.lvf.llm import assessor_from_settings
from icarus.lvf.repository import ChallengeView, LvfRepository, RateLimited, StoredRun, UnknownRecord
from icarus.reputation.manual import default_registry as reputation_registry
from icarus.request_schema import exactly_one_of
from icarus.scoring.lvf.challenge_evidence import FedChallenge, feed_challenge
from icarus.scoring.lvf.challenges import (
    SUBMITTER_PATTERN,
    ChallengeError,
    ChallengeSubmission,
    ReviewAction,
    parse_submission,
)
from icarus.scoring.lvf.config import CONFIG_FILES, DEFAULT_LVF, ChallengeLimits, LvfConfig, load_lvf_config
from icarus.scoring.lvf.engine import run_lvf
from icarus.scoring.lvf.record import LvfRun, public_summary
from icarus.settings import Settings
from icarus.store import NotFound
from icarus.store.tables import INTEGER_MAX
from icarus.store.tokens import Role

__all__ = ["LvfDatabase", "LvfRunIn", "build_lvf_router", "run_view"]

RunId = Annotated[int, PathParam(ge=1, le=INTEGER_MAX, description="Stored LVF run id.")]
ChallengeId = Annotated[str, PathParam(pattern=r"^ch-[0-9a-f]{16}$", description="Challenge id.")]
LVF_VERSIONS: Final = tuple(sorted(CONFIG_FILES))


# A review or a response: the challenge must exist and be in a state that takes this step.
_CHALLENGE_STEP: Final[dict[int | str, dict[str, Any]]] = {
    404: {"description": "Unknown challenge"},
    409: {"description": "The challenge's state does not allow this step, or the submission is refused"},
}
_RUN_INPUTS: Final = ("ledger", "check_id")  # what a run assesses: exactly one is given


class LvfRunIn(BaseModel):
    """Give exactly one of ``ledger`` and ``check_id``; ``check_version`` only with ``check_id``."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra=exactly_one_of(_RUN_INPUTS, needs={"check_version": "check_id"})
    )
    ledger: dict[str, Any] | None = Field(
        default=None, description="An evidence ledger (icarus schema ledger)."
    )
    check_id: str | None = Field(
        default=None, pattern=r"^[A-Za-z0-9_-]{1,64}$", description="A stored check whose ledger is assessed."
    )
    check_version: int | None = Field(
        default=None, ge=1, le=INTEGER_MAX, description="The check's version; default its latest."
    )
    methodology: Literal[LVF_VERSIONS] = Field(default=DEFAULT_LVF, description="LVF version.")  # type: ignore[valid-type]
    claims: list[Annotated[str, Field(min_length=1, max_length=128)]] | None = Field(
        default=None, max_length=200, description="Only these claim ids; default every claim."
    )
    record: bool = Field(default=True, description="Store each run (append-only) and answer with its id.")
    public: bool = Field(default=False, description="Answer with the public summaries only.")
    with_accepted_challenges: bool = Field(
        default=False, description="Also read the evidence of accepted challenges about these claims."
    )

    @model_validator(mode="after")
    def _one_input(self) -> "LvfRunIn":
        given = [name for name in _RUN_INPUTS if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of ledger, check_id (got {', '.join(given) or 'none'})")
        if self.check_version is not None and self.check_id is None:
            raise ValueError("check_version needs check_id")
        return self


class VoteIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    voter: str | None = Field(
        default=None, pattern=SUBMITTER_PATTERN, description="Opaque voter id; default the token's."
    )


class ReviewIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: ReviewAction
    note: str = Field(default="", max_length=4000, description="Private: never published.")


def run_view(stored: StoredRun, *, full: bool) -> dict[str, Any]:
    """A stored run as the API serves it: the public summary, its own weights and each assessor's
    criterion scores; ``full`` adds the stored record exactly as stored (private fields included)."""
    run = stored.run
    view: dict[str, Any] = {
        "run_id": stored.run_id,
        "recorded_at": stored.recorded_at.isoformat().replace("+00:00", "Z"),
        "summary": public_summary(run),
        "weights": {
            "formula": run.formula.value if run.formula else None,
            "components": {c.component.value: str(c.weight) for c in run.components},
            "criteria": {c.criterion.value: str(c.weight) for c in run.criteria},
        },
        "assessors": [
            {
                "assessor": a.assessor,
                "status": a.status,
                "scores": {str(k): str(v) for k, v in a.scores.items()},
            }
            for a in run.assessors
        ],
        "links": {"public": f"/v1/lvf/runs/{stored.run_id}/public", "page": f"/lvf/runs/{stored.run_id}"},
    }
    if full:
        view["record"] = json.loads(stored.run_json)
    return view


def _challenge_view(view: ChallengeView, *, full: bool) -> dict[str, Any]:
    body: dict[str, Any] = {
        "challenge_id": view.challenge_id,
        "run_id": view.run_id,
        "state": view.state.value,
        "votes": view.votes,
        "submitted_at": view.submitted_at.isoformat().replace("+00:00", "Z"),
    }
    if full:
        body["events"] = [
            {
                "seq": e.seq,
                "kind": e.kind.value,
                "actor": e.actor,
                "at": e.at.isoformat(),
                "payload": e.payload,
            }
            for e in view.events
        ]
    return body


def _unprocessable(message: str) -> HTTPException:
    return HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail=message)


def _not_found(exc: Exception) -> HTTPException:
    return HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc))


class LvfDatabase:
    """The LVF database ``icarus lvf`` uses (``lvf.db`` under the data directory), opened on first use so
    that starting the service touches nothing LVF until an LVF route is asked for."""

    def __init__(self, settings: Settings, repository: LvfRepository | None = None) -> None:
        self._settings = settings
        self._repository = repository
        self._lock = threading.Lock()

    def get(self) -> LvfRepository:
        with self._lock:
            if self._repository is None:
                path: Path = self._settings.data_dir / "lvf.db"
                path.parent.mkdir(parents=True, exist_ok=True)
                self._repository = LvfRepository(path, load_lvf_config(DEFAULT_LVF).challenges)
            return self._repository

    def close(self) -> None:
        with self._lock:
            if self._repository is not None:
                self._repository.close()
                self._repository = None


def build_lvf_router(
    runner: JobRunner, security: Security, settings: Settings, database: LvfDatabase
) -> APIRouter:
    """The LVF routes over ``database``."""
    router = APIRouter(prefix="/v1/lvf", tags=["lvf"])
    store, store_service = runner.store, runner.service
    Reader = Annotated[Principal, Depends(security.reader)]
    Api = Annotated[Principal, Depends(security.api)]
    Reviewer = Annotated[Principal, Depends(security.reviewer)]

    def may_see_private(caller: Principal) -> bool:
        return caller.role is not None and caller.role.allows(Role.REVIEWER)

    def ledger_of(body: LvfRunIn) -> Ledger:
        if body.ledger is not None:
            try:
                return parse_ledger(body.ledger, "ledger")
            except LedgerError as exc:
                raise _unprocessable(f"ledger: {exc}") from None
        assert body.check_id is not None
        try:
            stored = (
                store.latest(body.check_id)
                if body.check_version is None
                else store.version(body.check_id, body.check_version)
            )
        except NotFound as exc:
            raise _not_found(exc) from None
        ledger = stored.ledger()
        subject = ledger.get("subject") or {}
        if subject.get("kind") == SubjectKind.X_POST.value and (
            removal := store_service.removal(SubjectKind.X_POST.value, str(subject.get("subject_id", "")))
        ):
            # A run stores the claim's words for ever; a removed post's words are not ours to keep.
            raise HTTPException(
                status.HTTP_409_CONFLICT,
                detail=f"check_id: the post was {removal.reason}; its words are withheld, so it is not assessed again",
            )
        return parse_ledger(ledger, "stored ledger")

    def fed(ledger: Ledger) -> list[FedChallenge]:
        accepted = database.get().accepted_challenges(ledger.ledger_id)
        lookup = reputation_registry().ledger_lookup
        return [feed_challenge(a, lookup) for a in accepted]

    def answer(runs: tuple[LvfRun, ...], ids: list[int | None], public: bool) -> list[dict[str, Any]]:
        out = []
        for run, run_id in zip(runs, ids, strict=True):
            document = public_summary(run) if public else json.loads(run.canonical_json())
            out.append({"run_id": run_id, "run": document})
        return out

    @router.post(
        "/runs",
        status_code=status.HTTP_201_CREATED,
        responses={200: {"description": "Assessed, not recorded"}, 404: {"description": "Unknown check"}},
    )
    def create_runs(body: LvfRunIn, _caller: Api) -> JSONResponse:
        """Assess each claim (or each of `claims`) of a ledger or a stored check under LVF."""
        ledger = ledger_of(body)
        config: LvfConfig = load_lvf_config(body.methodology)
        extra = assessor_from_settings(settings)
        try:
            runs = run_lvf(
                ledger,
                config,
                [extra] if extra is not None else [],
                body.claims,
                fed(ledger) if body.with_accepted_challenges else [],
            )
        except KeyError as exc:
            raise _unprocessable(f"claims: {exc.args[0]}") from None
        except (ValueError, ChallengeError) as exc:
            raise _unprocessable(f"ledger: {exc}") from None
        ids: list[int | None] = [None] * len(runs)
        if body.record:
            try:
                ids = [database.get().record_run(run) for run in runs]
            except (ChallengeError, UnknownRecord) as exc:
                raise _unprocessable(f"with_accepted_challenges: {exc}") from None
        code = status.HTTP_201_CREATED if body.record else status.HTTP_200_OK
        return JSONResponse({"runs": answer(runs, ids, body.public)}, status_code=code)

    @router.get("/runs")
    def list_runs(
        _caller: Reader,
        ledger_id: Annotated[str | None, Query(max_length=512)] = None,
        limit: Annotated[int, Query(ge=1, le=500)] = 100,
    ) -> list[dict[str, Any]]:
        """Stored runs, newest first: id, methodology, ledger, claim, status and displayed score."""
        rows = []
        for stored in reversed(database.get().runs()):
            run = stored.run
            if ledger_id is not None and run.ledger_id != ledger_id:
                continue
            rows.append(
                {
                    "run_id": stored.run_id,
                    "methodology": run.methodology,
                    "ledger_id": run.ledger_id,
                    "claim_id": run.claim_id,
                    "status": run.status.value,
                    "score": public_summary(run)["score"],
                    "recorded_at": stored.recorded_at.isoformat().replace("+00:00", "Z"),
                }
            )
            if len(rows) >= limit:
                break
        return rows

    @router.get("/runs/{run_id}", responses={404: {"description": "Unknown run"}})
    def get_run(run_id: RunId, caller: Reader) -> dict[str, Any]:
        """A stored run with its own methodology version and weights (never the current ones)."""
        try:
            stored = database.get().get_run(run_id)
        except UnknownRecord as exc:
            raise _not_found(exc) from None
        return run_view(stored, full=may_see_private(caller))

    @router.get("/runs/{run_id}/public", responses={404: {"description": "Unknown run"}})
    def get_public_summary(run_id: RunId, _caller: Reader) -> dict[str, Any]:
        """The allowlisted public summary: counts and component results, never excerpts or notes."""
        try:
            stored = database.get().get_run(run_id)
        except UnknownRecord as exc:
            raise _not_found(exc) from None
        return {"run_id": run_id, **public_summary(stored.run)}

    @router.post(
        "/challenges",
        status_code=status.HTTP_201_CREATED,
        responses={404: {"description": "Unknown run"}, 429: {"description": "Submitter over the limit"}},
    )
    def submit_challenge(body: ChallengeSubmission, _caller: Api) -> dict[str, Any]:
        """Validate and queue a structured evidence submission against a stored run."""
        try:
            parsed = parse_submission(body.model_dump(mode="json"), limits())
            challenge_id = database.get().submit(parsed)
        except RateLimited as exc:
            window = limits().window_hours * 3600
            raise HTTPException(
                status.HTTP_429_TOO_MANY_REQUESTS, detail=str(exc), headers={"Retry-After": str(window)}
            ) from None
        except UnknownRecord as exc:
            raise _not_found(exc) from None
        except ChallengeError as exc:
            raise _unprocessable(f"body: {exc}") from None
        return {"challenge_id": challenge_id, "state": "queued", "run_id": parsed.run_id}

    @router.get("/challenges")
    def review_queue(
        _caller: Reader, run_id: Annotated[int | None, Query(ge=1, le=INTEGER_MAX)] = None
    ) -> list[dict[str, Any]]:
        """Queued challenges in review order: most votes first, then the oldest."""
        return [
            {
                "challenge_id": e.challenge_id,
                "run_id": e.run_id,
                "votes": e.votes,
                "submitted_at": e.submitted_at.isoformat().replace("+00:00", "Z"),
            }
            for e in database.get().review_queue()
            if run_id is None or e.run_id == run_id
        ]

    @router.get("/challenges/{challenge_id}", responses={404: {"description": "Unknown challenge"}})
    def get_challenge(challenge_id: ChallengeId, caller: Reader) -> dict[str, Any]:
        """State and votes; the reviewer role also sees the whole history, reviewer notes included."""
        try:
            view = database.get().challenge(challenge_id)
        except UnknownRecord as exc:
            raise _not_found(exc) from None
        return _challenge_view(view, full=may_see_private(caller))

    @router.post("/challenges/{challenge_id}/votes", responses={404: {"description": "Unknown challenge"}})
    def vote(challenge_id: ChallengeId, body: VoteIn, caller: Api) -> dict[str, Any]:
        """One vote per voter. Votes only reorder the review queue; they never enter a score."""
        voter = body.voter or f"token-{caller.token_id}"
        try:
            counted = database.get().vote(challenge_id, voter)
        except UnknownRecord as exc:
            raise _not_found(exc) from None
        return {"challenge_id": challenge_id, "voter": voter, "counted": counted}

    @router.post("/challenges/{challenge_id}/reviews", responses=_CHALLENGE_STEP)
    def review(challenge_id: ChallengeId, body: ReviewIn, caller: Reviewer) -> dict[str, Any]:
        """A reviewer's decision: request-more-info, reject or accept. The note stays private."""
        try:
            state = database.get().review(challenge_id, body.action, f"token-{caller.token_id}", body.note)
        except UnknownRecord as exc:
            raise _not_found(exc) from None
        except ChallengeError as exc:
            raise HTTPException(status.HTTP_409_CONFLICT, detail=str(exc)) from None
        return {"challenge_id": challenge_id, "state": state.value}

    @router.post("/challenges/{challenge_id}/responses", responses=_CHALLENGE_STEP)
    def respond(challenge_id: ChallengeId, body: ChallengeSubmission, _caller: Api) -> dict[str, Any]:
        """The submitter adds what a reviewer asked for; the challenge is queued again."""
        try:
            parsed = parse_submission(body.model_dump(mode="json"), limits())
            state = database.get().add_info(
                challenge_id,
                parsed.submitter,
                parsed.reason,
                [e.model_dump(mode="json") for e in parsed.evidence],
            )
        except UnknownRecord as exc:
            raise _not_found(exc) from None
        except ChallengeError as exc:
            raise HTTPException(status.HTTP_409_CONFLICT, detail=str(exc)) from None
        return {"challenge_id": challenge_id, "state": state.value}

    def limits() -> ChallengeLimits:
        return load_lvf_config(DEFAULT_LVF).challenges

    return router
