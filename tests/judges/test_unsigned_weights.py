"""Unsigned weight bytes (``icarus_training.unsigned_weights``): the rewrite keeps every number, its
products are exact on the machine running the tests, and the shipped cross-encoder has been rewritten."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the unsigned-weights step needs the onnx package (dev extra)")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from icarus.judges.cross_encoder import (  # noqa: E402
    MODEL_INPUTS,
    MODEL_OUTPUT,
    WeightsError,
    load_weights,
    weight_files,
)
from icarus_training.graph_tidy import probe_feeds  # noqa: E402
from icarus_training.unsigned_weights import (  # noqa: E402
    UNSIGNED_VERSION,
    UnsignedWeightsError,
    check_exact_products,
    signed_weight_products,
    unsign_weights,
)

WIDTH, CLASSES = 64, 3


def _model(with_zero_point: bool = True) -> Any:
    """input_ids → embedding → dynamic uint8 quantisation → MatMulInteger against int8 weights → logits.

    Every embedding value is large and every weight is +127, so each pair of byte products is about
    2 × 255 × 127, past what a signed 16-bit sum holds: the case that saturates U8S8 on CPUs without VNNI.
    """
    rng = np.random.default_rng(0)
    embedding = rng.uniform(0.9, 1.0, size=(1_000, WIDTH)).astype(np.float32)
    weight = np.full((WIDTH, CLASSES), 127, dtype=np.int8)
    weight[:, 1] = rng.integers(-127, 128, size=WIDTH, dtype=np.int8)
    initializers = [
        numpy_helper.from_array(embedding, "embedding"),
        numpy_helper.from_array(weight, "weight"),
    ]
    product_inputs = ["x_q", "weight", "x_zero"]
    if with_zero_point:
        initializers.append(numpy_helper.from_array(np.zeros(CLASSES, np.int8), "weight_zero"))
        product_inputs.append("weight_zero")
    nodes = [
        helper.make_node("Gather", ["embedding", "input_ids"], ["x"]),
        helper.make_node("DynamicQuantizeLinear", ["x"], ["x_q", "x_scale", "x_zero"]),
        helper.make_node("MatMulInteger", product_inputs, ["products"], name="product"),
        helper.make_node("Cast", ["products"], ["products_float"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["products_float", "x_scale"], ["scaled"]),
        helper.make_node("ReduceMean", ["scaled"], [MODEL_OUTPUT], axes=[1], keepdims=0),
    ]
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"]) for name in MODEL_INPUTS
    ]
    unused = [helper.make_node("Identity", [name], [f"{name}_unused"]) for name in MODEL_INPUTS[1:]]
    graph = helper.make_graph(
        nodes + unused,
        "tiny",
        inputs,
        [helper.make_tensor_value_info(MODEL_OUTPUT, TensorProto.FLOAT, ["batch", CLASSES])],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def _exact_logits(model: Any, feed: dict[str, np.ndarray]) -> np.ndarray:
    """The tiny model's output computed in numpy with exact integer products."""
    stored = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    x = stored["embedding"][feed["input_ids"]]
    scale = (max(0.0, float(x.max())) - min(0.0, float(x.min()))) / 255
    zero = np.clip(np.round(-min(0.0, float(x.min())) / scale), 0, 255)
    quantised = np.clip(np.round(x / scale) + zero, 0, 255).astype(np.int64)
    weight = stored["weight"].astype(np.int64)
    weight_zero = stored["weight_zero"].astype(np.int64) if "weight_zero" in stored else 0
    products = (quantised - np.int64(zero)) @ (weight - weight_zero)
    return (products.astype(np.float32) * np.float32(scale)).mean(axis=1)


def _run(model: Any, feed: dict[str, np.ndarray]) -> np.ndarray:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run([MODEL_OUTPUT], feed)[0]


@pytest.mark.parametrize("with_zero_point", [True, False], ids=["zero-point", "no-zero-point"])
def test_the_rewrite_keeps_every_number_and_its_products_are_exact(with_zero_point: bool) -> None:
    model = _model(with_zero_point)
    assert signed_weight_products(model) == ["product"]
    rewritten, report = unsign_weights(model)
    assert signed_weight_products(rewritten) == []
    assert report.to_json() == {"version": UNSIGNED_VERSION, "products_rewritten": 1,
                                "weights_rewritten": 2}  # fmt: skip
    stored = {t.name: numpy_helper.to_array(t) for t in rewritten.graph.initializer}
    original = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    assert stored["weight"].dtype == np.uint8
    np.testing.assert_array_equal(stored["weight"].astype(np.int64) - 128, original["weight"])
    assert check_exact_products(rewritten) == len(probe_feeds(padded=False))
    for feed in probe_feeds(padded=False):
        np.testing.assert_allclose(_run(rewritten, feed), _exact_logits(model, feed), rtol=1e-6)


def test_signed_products_saturate_here_or_are_exact_everywhere() -> None:
    """Which happens depends on the CPU: with AVX-512 VNNI the int8 model is exact too; without it (CI's
    AMD EPYC machines) its sums saturate and the check refuses it. Either way the rewritten model is exact."""
    model = _model()
    try:
        check_exact_products(model)
        signed_exact = True
    except UnsignedWeightsError as refused:
        assert "differs from the exact one" in str(refused)
        signed_exact = False
    feed = probe_feeds(padded=False)[0]
    same = np.allclose(_run(model, feed), _exact_logits(model, feed), rtol=1e-6)
    assert same is signed_exact  # the check and the end result agree on this machine
    assert check_exact_products(unsign_weights(model)[0]) > 0


def test_the_rewrite_is_idempotent() -> None:
    once, _ = unsign_weights(_model())
    twice, report = unsign_weights(once)
    assert report.products_rewritten == 0 and report.weights_rewritten == 0
    assert twice.SerializeToString() == once.SerializeToString()


def test_the_shipped_model_is_unsigned_and_exact_on_this_machine() -> None:
    model_path, _, metadata_path = weight_files()
    model = onnx.load(str(model_path))
    assert signed_weight_products(model) == []
    assert check_exact_products(model) == 38 * len(probe_feeds(padded=False))
    record = json.loads(metadata_path.read_text(encoding="utf-8"))["unsigned_weights"]
    assert record["version"] == UNSIGNED_VERSION and record["products_rewritten"] == 38


def test_the_signed_model_is_refused_where_its_products_are_not_exact(tmp_path: Path) -> None:
    """The shipped model turned back into int8 weights (the same numbers): where this machine's products
    for it are not exact, the judge's loader refuses it by its probe logits."""
    model_path, tokenizer_path, metadata_path = weight_files()
    signed = onnx.load(str(model_path))
    stored = {tensor.name: tensor for tensor in signed.graph.initializer}
    names = {
        name for node in signed.graph.node if node.op_type == "MatMulInteger" for name in node.input[1::2]
    }
    for name in names & set(stored):  # the weights and their zero points
        values = numpy_helper.to_array(stored[name]).astype(np.int16) - 128
        stored[name].CopyFrom(numpy_helper.from_array(values.astype(np.int8), name))
    assert len(signed_weight_products(signed)) == 38
    target_model, target_tokenizer, target_metadata = weight_files(folder=tmp_path)
    onnx.save(signed, str(target_model))
    shutil.copy(tokenizer_path, target_tokenizer)
    metadata = json.loads(metadata_path.read_text(encoding="utf-8"))
    metadata["onnx_sha256"] = hashlib.sha256(target_model.read_bytes()).hexdigest()
    target_metadata.write_text(json.dumps(metadata), encoding="utf-8")
    try:
        check_exact_products(signed)
    except UnsignedWeightsError:
        with pytest.raises(WeightsError, match="computes the model differently"):
            load_weights(folder=tmp_path)
    else:  # a CPU with AVX-512 VNNI: the signed products are exact too, and the model loads
        assert load_weights(folder=tmp_path).metadata["onnx_sha256"] == metadata["onnx_sha256"]
