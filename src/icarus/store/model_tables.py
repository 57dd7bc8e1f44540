"""The stored shape of scoring under several models and of EvidenceVerify requests.

Revision ``0005_models_services`` creates these tables; the test that compares the ORM with the
migrations covers them like every other table.

- ``check_models``: the models a check was asked to be scored under besides its policy, in request order.
- ``model_results``: one check version's ledger scored under one model (append-only): the result as
  canonical JSON with its config and trace hashes, so a later recomputation can be compared byte for byte.
- ``evidence_stores``: EvidenceVerify evidence stores, one row per revision (append-only). Writing the
  updated ``corroboration_status`` of a verification back makes a new revision of the same store.
- ``evidence_verifications``: one EvidenceVerify result with the claim, the store revision, the stance
  judge and the independent search's outcome it read, so it can be recomputed.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Integer, PrimaryKeyConstraint, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from icarus.store.tables import HASH_LENGTH, Base, UtcDateTime

__all__ = [
    "MODEL_REF_LENGTH",
    "CheckModel",
    "EvidenceStoreRevision",
    "EvidenceVerification",
    "ModelResult",
]

MODEL_REF_LENGTH = 64
CHECK_ID_LENGTH = 64
RECORD_ID_LENGTH = 40


class CheckModel(Base):
    __tablename__ = "check_models"
    __table_args__ = (PrimaryKeyConstraint("check_id", "model"),)

    check_id: Mapped[str] = mapped_column(String(CHECK_ID_LENGTH))
    model: Mapped[str] = mapped_column(String(MODEL_REF_LENGTH))
    position: Mapped[int] = mapped_column(Integer)
    requested_at: Mapped[datetime] = mapped_column(UtcDateTime())


class ModelResult(Base):
    __tablename__ = "model_results"
    __table_args__ = (UniqueConstraint("check_id", "version", "model"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    check_id: Mapped[str] = mapped_column(String(CHECK_ID_LENGTH), index=True)
    version: Mapped[int] = mapped_column(Integer)
    model: Mapped[str] = mapped_column(String(MODEL_REF_LENGTH))
    family: Mapped[str] = mapped_column(String(32))
    config_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    trace_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    result_json: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


class EvidenceStoreRevision(Base):
    __tablename__ = "evidence_stores"
    __table_args__ = (UniqueConstraint("store_id", "revision"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    store_id: Mapped[str] = mapped_column(String(RECORD_ID_LENGTH), index=True)
    revision: Mapped[int] = mapped_column(Integer)
    store_json: Mapped[str] = mapped_column(Text)
    written_by: Mapped[str | None] = mapped_column(String(RECORD_ID_LENGTH))  # the verification, if any
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


class EvidenceVerification(Base):
    __tablename__ = "evidence_verifications"

    id: Mapped[str] = mapped_column(String(RECORD_ID_LENGTH), primary_key=True)
    store_id: Mapped[str] = mapped_column(String(RECORD_ID_LENGTH), index=True)
    store_revision: Mapped[int] = mapped_column(Integer)
    claim_id: Mapped[str] = mapped_column(String(256))
    claim_json: Mapped[str] = mapped_column(Text)
    search_json: Mapped[str | None] = mapped_column(Text)  # the independent search's outcome, when it ran
    judge: Mapped[str] = mapped_column(String(MODEL_REF_LENGTH))
    independent_search: Mapped[bool] = mapped_column(Boolean)
    as_of: Mapped[datetime] = mapped_column(UtcDateTime())
    model: Mapped[str] = mapped_column(String(MODEL_REF_LENGTH))
    config_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    status: Mapped[str] = mapped_column(String(16))
    result_json: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
