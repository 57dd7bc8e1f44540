"""Run the cross-encoder's unsigned weight bytes as signed ones where the CPU multiplies those exactly.

The shipped model stores its integer weights as unsigned bytes (``training.unsigned_weights``): onnxruntime
multiplies uint8 activations by uint8 weights (U8U8) exactly on every x86 CPU, whereas its uint8 × int8
kernel (U8S8) saturates on CPUs without VNNI. On a CPU with VNNI (AVX-512 VNNI or AVX-VNNI) the U8S8 kernel
multiplies with one instruction that sums four byte products into 32 bits, so it is exact there, and it is
the faster kernel: measured on such a machine (AMD EPYC, two cores), the model alone ran 1.3x faster one
pair at a time and 1.7x faster one pair per core (docs/evaluation.md, "Signed products where they are exact").

``signed_model`` turns the model's bytes back into the int8 form in memory. Each weight byte ``u`` with zero
point ``z`` becomes ``u - 128`` with zero point ``z - 128``, which leaves every ``(u - z)`` and so every
product the same integer; in two's complement that is the byte XOR 0x80, with the tensor's element type
changed from UINT8 to INT8. Both edits keep every length, so the file's protobuf encoding is patched in
place: nothing here needs the ``onnx`` package, which the default install does not carry.

The change is taken only where it cannot change an answer: the CPU must report VNNI (``cpu_has_vnni``) and
the signed session must give bit-identical logits to the unsigned one on probe pairs
(``cross_encoder.PairScorer.from_files``); the saturating kernel moved those probes' logits by 0.27 to 0.47.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

__all__ = ["SignedModelError", "cpu_has_vnni", "signed_model"]

# Field numbers and values of onnx.proto (ModelProto, GraphProto, NodeProto, TensorProto).
_MODEL_GRAPH = 7
_GRAPH_NODE, _GRAPH_INITIALIZER = 1, 5
_NODE_INPUT, _NODE_OP_TYPE = 1, 4
_TENSOR_DATA_TYPE, _TENSOR_NAME, _TENSOR_RAW_DATA = 2, 8, 9
_UINT8, _INT8 = 2, 3
# Protobuf wire types: the ways a field's value is laid out after its key.
_VARINT, _FIXED64, _LENGTH_DELIMITED, _FIXED32 = 0, 1, 2, 5
_SIGN_FLIP = 0x80  # u (offset by 128) -> the same byte read as two's complement int8
# MatMulInteger(A, B, a_zero_point, b_zero_point): the weight side is inputs 1 and 3.
_WEIGHT_INPUTS = (1, 3)
_VNNI_FLAGS = frozenset({"avx512_vnni", "avx_vnni"})
_CPUINFO = Path("/proc/cpuinfo")


class SignedModelError(ValueError):
    """The model's bytes are not an ONNX model laid out as the shipped one is."""


def _varint(data: bytes | bytearray, pos: int, end: int) -> tuple[int, int]:
    """The varint starting at ``pos`` and the position after it."""
    value = shift = 0
    while pos < end:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            break
    raise SignedModelError("malformed protobuf varint")


def _fields(data: bytes | bytearray, start: int, end: int) -> Iterator[tuple[int, int, int, int]]:
    """Each field of the message in ``data[start:end]``: (number, wire type, value start, value end)."""
    pos = start
    while pos < end:
        key, pos = _varint(data, pos, end)
        number, wire = key >> 3, key & 7
        if wire == _VARINT:
            _, after = _varint(data, pos, end)
        elif wire == _LENGTH_DELIMITED:
            length, pos = _varint(data, pos, end)
            after = pos + length
        elif wire in (_FIXED64, _FIXED32):
            after = pos + (8 if wire == _FIXED64 else 4)
        else:
            raise SignedModelError(f"unsupported protobuf wire type {wire}")
        if after > end:
            raise SignedModelError("protobuf field runs past its message")
        yield number, wire, pos, after
        pos = after


def _text(data: bytes | bytearray, start: int, end: int) -> str:
    return bytes(data[start:end]).decode("utf-8", errors="replace")


def _graph(data: bytes | bytearray) -> tuple[int, int]:
    graphs = [(s, e) for number, wire, s, e in _fields(data, 0, len(data)) if number == _MODEL_GRAPH]
    if len(graphs) != 1 or not graphs[0][1] > graphs[0][0]:
        raise SignedModelError("not an ONNX model: no single graph")
    return graphs[0]


def _weight_names(data: bytes | bytearray, graph: tuple[int, int]) -> set[str]:
    """Names of the initializers that are MatMulInteger weights or weight zero points, refused when any of
    them also feeds anything else (flipping it would change that other reader)."""
    weights: set[str] = set()
    other: set[str] = set()
    for number, _, start, end in _fields(data, *graph):
        if number != _GRAPH_NODE:
            continue
        op_type, inputs = "", []
        for field, _, s, e in _fields(data, start, end):
            if field == _NODE_OP_TYPE:
                op_type = _text(data, s, e)
            elif field == _NODE_INPUT:
                inputs.append(_text(data, s, e))
        for index, name in enumerate(inputs):
            if op_type == "MatMulInteger" and index in _WEIGHT_INPUTS:
                weights.add(name)
            else:
                other.add(name)
    if shared := weights & other:
        raise SignedModelError(f"weight {sorted(shared)[0]!r} also feeds another operator")
    return weights


def signed_model(model: bytes) -> tuple[bytes, int]:
    """``model`` with every MatMulInteger weight and weight zero point stored as int8 instead of uint8, and
    how many initializers changed. Raises ``SignedModelError`` when the bytes are not an ONNX model, no
    weight is unsigned, or a weight is not stored the way this rewrite patches (a uint8 initializer with
    ``raw_data``)."""
    data = bytearray(model)
    graph = _graph(data)
    names = _weight_names(data, graph)
    flipped = np.frombuffer(data, dtype=np.uint8)  # a view: XOR in place
    changed: set[str] = set()
    for number, _, start, end in _fields(data, *graph):
        if number != _GRAPH_INITIALIZER:
            continue
        name, type_at, raw = "", None, None
        for field, wire, s, e in _fields(data, start, end):
            if field == _TENSOR_NAME:
                name = _text(data, s, e)
            elif field == _TENSOR_DATA_TYPE and wire == _VARINT:
                type_at = (s, e)
            elif field == _TENSOR_RAW_DATA:
                raw = (s, e)
        if name not in names:
            continue
        if type_at is None or type_at[1] - type_at[0] != 1 or data[type_at[0]] != _UINT8 or raw is None:
            raise SignedModelError(f"weight {name!r} is not stored as uint8 raw bytes")
        data[type_at[0]] = _INT8
        flipped[raw[0] : raw[1]] ^= _SIGN_FLIP
        changed.add(name)
    if not changed:
        raise SignedModelError("the model has no unsigned integer weights")
    if unstored := names - changed:
        # a weight computed at run time (or fed by the caller) keeps its type: the session would not load
        raise SignedModelError(f"weight {sorted(unstored)[0]!r} is not a stored initializer")
    return bytes(data), len(changed)


def cpu_has_vnni(cpuinfo: str | None = None) -> bool:
    """Whether the CPU reports AVX-512 VNNI or AVX-VNNI (Linux's ``/proc/cpuinfo`` flags; elsewhere, or
    unreadable, no)."""
    if cpuinfo is None:
        try:
            cpuinfo = _CPUINFO.read_text(encoding="ascii", errors="replace")
        except OSError:
            return False
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return not _VNNI_FLAGS.isdisjoint(value.split())
    return False
