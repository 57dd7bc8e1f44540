"""Signed products where they are exact (``icarus.judges.signed_products`` and ``PairScorer.from_files``):
the in-place rewrite is the same model as onnx's own rewrite, a CPU reporting VNNI multiplies the signed
bytes exactly, and the scorer takes them only when its logits do not move."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from icarus.judges import cross_encoder
from icarus.judges.cross_encoder import PROBE_PAIRS, PairScorer, load_weights, weight_files
from icarus.judges.signed_products import SignedModelError, cpu_has_vnni, signed_model

onnx = pytest.importorskip("onnx", reason="building test models needs the onnx package (dev extra)")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

# Claim–passage pairs other than the probes the scorer itself compares: exactness must hold beyond them.
PAIRS = [
    ("Arctic sea ice extent has declined since 1979.", "Satellite records show Arctic sea ice has shrunk."),
    (
        "Global temperatures have not risen since 1998.",
        "The decade after 1998 was warmer than the one before.",
    ),
    ("CO2 is a trace gas with no effect on climate.", "Carbon dioxide absorbs infrared radiation."),
    (
        "Unemployment fell to 3.9% in March 2026.",
        "The jobless rate rose to 4.4 percent in March, up from 4.1.",
    ),
    ("The bridge opened in 1932.", "Construction of the harbour bridge was completed and it opened in 1932."),
]


def _shipped() -> tuple[Path, Path, int, str]:
    model, tokenizer, metadata = weight_files()
    record = json.loads(metadata.read_text(encoding="utf-8"))
    return model, tokenizer, record["max_length"], record["onnx_sha256"]


def _logits(scorer: PairScorer, pairs: list[tuple[str, str]]) -> np.ndarray:
    claims, passages = (list(texts) for texts in zip(*pairs, strict=True))
    return scorer.logits(claims, passages)


def _product_model(weight: np.ndarray, zero_point: np.ndarray, share_weight: bool = False) -> Any:
    """x (float input) → dynamic uint8 quantisation → MatMulInteger against ``weight`` → float output."""
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["rows", weight.shape[0]])]
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["x_q", "x_scale", "x_zero"]),
        helper.make_node("MatMulInteger", ["x_q", "weight", "x_zero", "weight_zero"], ["products"]),
        helper.make_node("Cast", ["products"], ["y"], to=TensorProto.FLOAT),
    ]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["rows", weight.shape[1]])]
    if share_weight:
        nodes.append(helper.make_node("Identity", ["weight"], ["weight_copy"]))
        outputs.append(helper.make_tensor_value_info("weight_copy", TensorProto.UINT8, list(weight.shape)))
    graph = helper.make_graph(
        nodes,
        "product",
        inputs,
        outputs,
        [numpy_helper.from_array(weight, "weight"), numpy_helper.from_array(zero_point, "weight_zero")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _run(model: bytes, x: np.ndarray) -> np.ndarray:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    return session.run(["y"], {"x": x})[0]


def test_the_in_place_rewrite_is_onnx_s_own_rewrite_of_the_shipped_model() -> None:
    """Every MatMulInteger weight and weight zero point (76 initializers: 38 products) becomes the int8 byte
    128 below it; everything else, down to the byte, is what onnx serialises for that model."""
    model_path, *_ = _shipped()
    unsigned = model_path.read_bytes()
    signed, changed = signed_model(unsigned)
    assert changed == 76 and len(signed) == len(unsigned)
    expected = onnx.load_from_string(unsigned)
    stored = {tensor.name: tensor for tensor in expected.graph.initializer}
    weights = {n for node in expected.graph.node if node.op_type == "MatMulInteger" for n in node.input[1::2]}
    for name in weights:
        values = numpy_helper.to_array(stored[name]).astype(np.int16) - 128
        stored[name].CopyFrom(numpy_helper.from_array(values.astype(np.int8), name))
    assert signed == expected.SerializeToString()
    embeddings = [t for t in onnx.load_from_string(signed).graph.initializer if t.name not in weights]
    assert any(t.data_type == TensorProto.UINT8 for t in embeddings)  # quantised tables stay as they were


def test_a_model_already_signed_or_not_a_model_is_refused() -> None:
    model_path, *_ = _shipped()
    signed, _ = signed_model(model_path.read_bytes())
    with pytest.raises(SignedModelError, match="not stored as uint8"):
        signed_model(signed)
    for broken in (b"", b"\xff" * 16, model_path.read_bytes()[:4096], b"\x3a\x05abc"):
        with pytest.raises(SignedModelError):
            signed_model(broken)


def test_a_weight_read_by_another_operator_is_refused() -> None:
    weight = np.full((4, 2), 200, dtype=np.uint8)
    model = _product_model(weight, np.full(2, 128, np.uint8), share_weight=True)
    with pytest.raises(SignedModelError, match="also feeds another operator"):
        signed_model(model.SerializeToString())


def test_a_weight_stored_outside_raw_bytes_is_refused() -> None:
    model = _product_model(np.full((4, 2), 200, dtype=np.uint8), np.full(2, 128, np.uint8))
    zero = next(t for t in model.graph.initializer if t.name == "weight_zero")
    zero.ClearField("raw_data")
    zero.int32_data.extend([128, 128])
    with pytest.raises(SignedModelError, match="'weight_zero' is not stored as uint8 raw bytes"):
        signed_model(model.SerializeToString())


def test_a_weight_that_is_not_a_stored_initializer_is_refused() -> None:
    """A second product whose weight side is computed at run time: its type cannot be patched, and
    patching only the stored weights would leave a model whose session does not load."""
    model = _product_model(np.full((4, 2), 200, dtype=np.uint8), np.full(2, 128, np.uint8))
    graph = model.graph
    graph.node.append(helper.make_node("Identity", ["x_q"], ["x_q_copy"]))
    graph.node.append(helper.make_node("Identity", ["x_zero"], ["x_zero_copy"]))
    graph.node.append(
        helper.make_node("MatMulInteger", ["x_q", "x_q_copy", "x_zero", "x_zero_copy"], ["self_products"])
    )
    with pytest.raises(SignedModelError, match="'x_q_copy' is not a stored initializer"):
        signed_model(model.SerializeToString())


def test_a_cpu_reporting_vnni_multiplies_the_signed_bytes_exactly() -> None:
    """Large activations against weights of +127 (stored unsigned as 255): each two adjacent byte products
    sum past a signed 16-bit value, which the U8S8 kernel of CPUs without VNNI saturates."""
    rows, width = 3, 64
    weight = np.full((width, 2), 255, dtype=np.uint8)  # +127 once signed
    weight[::3, 1] = 1  # -127 once signed
    model = _product_model(weight, np.full(2, 128, np.uint8)).SerializeToString()
    x = np.linspace(0.5, 1.0, rows * width, dtype=np.float32).reshape(rows, width)
    scale = float(x.max()) / 255
    quantised = np.clip(np.round(x / scale), 0, 255).astype(np.int64)
    exact = quantised @ (weight.astype(np.int64) - 128)
    assert np.array_equal(_run(model, x), exact)  # U8U8: exact on every CPU
    signed, _ = signed_model(model)
    if cpu_has_vnni():
        assert np.array_equal(_run(signed, x), exact)
    else:  # what the scorer must then notice: on AVX2 the same bytes come out short
        pytest.skip("this CPU reports no VNNI: the scorer keeps the unsigned bytes here")


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ("fpu sse2 avx2 avx512f avx512_vnni avx512bw", True),
        ("fpu sse2 avx2 avx_vnni", True),
        ("fpu sse2 avx2 fma", False),
        ("fpu avx512_vnnix", False),
    ],
)
def test_vnni_is_read_from_the_cpu_flags(flags: str, expected: bool) -> None:
    cpuinfo = f"processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: {flags}\nbogomips\t: 4800.00\n"
    assert cpu_has_vnni(cpuinfo) is expected


def test_no_flags_line_means_no_vnni() -> None:
    assert cpu_has_vnni("") is False
    assert cpu_has_vnni("Processor\t: AArch64 Processor rev 1\nFeatures\t: fp asimd asimddp\n") is False


def test_the_signed_scorer_gives_the_unsigned_scorer_s_logits_bit_for_bit() -> None:
    unsigned = PairScorer.from_files(*_shipped(), signed=False)
    signed = PairScorer.from_files(*_shipped(), signed=True)
    assert not unsigned.signed_products
    if cpu_has_vnni():  # elsewhere signed bytes may be refused by the probe comparison, which is the point
        assert signed.signed_products
    assert np.array_equal(_logits(signed, PAIRS), _logits(unsigned, PAIRS))
    twin = signed.with_threads(1)
    assert twin.signed_products is signed.signed_products
    assert np.array_equal(_logits(twin, PAIRS), _logits(unsigned, PAIRS))


def test_the_shipped_judge_runs_signed_products_where_the_cpu_reports_vnni() -> None:
    assert load_weights().scorer.signed_products is cpu_has_vnni()


def test_signed_bytes_whose_logits_move_are_not_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """A signed model that computes anything differently (here: one weight byte of the classifier off by
    one, which moves every probe's logits) is dropped, and the unsigned session kept."""

    def off_by_one(model: bytes) -> tuple[bytes, int]:
        signed, changed = signed_model(model)
        parsed = onnx.load_from_string(signed)
        name = "classifier.weight_Transposed_quantized"
        classifier = next(t for t in parsed.graph.initializer if t.name == name)
        values = numpy_helper.to_array(classifier).copy()
        values[0, 0] = values[0, 0] + 1 if values[0, 0] < 127 else values[0, 0] - 1
        classifier.CopyFrom(numpy_helper.from_array(values, classifier.name))
        return parsed.SerializeToString(), changed

    monkeypatch.setattr(cross_encoder, "signed_model", off_by_one)
    scorer = PairScorer.from_files(*_shipped(), signed=True)
    assert not scorer.signed_products
    reference = PairScorer.from_files(*_shipped(), signed=False)
    assert np.array_equal(_logits(scorer, list(PROBE_PAIRS)), _logits(reference, list(PROBE_PAIRS)))


def test_an_unreadable_model_for_the_rewrite_keeps_the_unsigned_session(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(model: bytes) -> tuple[bytes, int]:
        raise SignedModelError("the model has no unsigned integer weights")

    monkeypatch.setattr(cross_encoder, "signed_model", refuse)
    assert not PairScorer.from_files(*_shipped(), signed=True).signed_products
