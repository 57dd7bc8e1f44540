"""The graph tidy step of the cross-encoder trainer: each rewrite, its refusals, and the shipped model."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the graph tidy tests need the onnx package (dev extra)")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from icarus.judges.cross_encoder import MODEL_INPUTS, MODEL_OUTPUT, weight_files  # noqa: E402
from icarus_training import cross_encoder as trainer  # noqa: E402
from icarus_training import graph_tidy  # noqa: E402
from icarus_training.graph_tidy import (  # noqa: E402
    TIDY_VERSION,
    GraphTidyError,
    operator_counts,
    probe_feeds,
    tidy_graph,
)

WIDTH, HEADS = 8, 2


def _const(name: str, value: Any, dtype: Any = np.int64) -> Any:
    return numpy_helper.from_array(np.asarray(value, dtype=dtype), name)


def _dim(source: str, axis: int, out: str) -> list[Any]:
    """Nodes giving ``out``: axis ``axis`` of ``source``'s shape as a one-element vector, as exporters write it."""
    return [
        helper.make_node("Shape", [source], [f"{out}/shape"]),
        helper.make_node("Gather", [f"{out}/shape", f"axis{axis}"], [f"{out}/scalar"], axis=0),
        helper.make_node("Unsqueeze", [f"{out}/scalar", "zero_axis"], [out]),
    ]


def _attention_model(causal: bool = False, guard_after: str = "Softmax", swap_axes: bool = False) -> Any:
    """A one-head-pair attention block written the way PyTorch's exporter writes BERT's: computed reshape
    targets, an exported [batch, 1, tokens, tokens] mask condition, and a NaN guard after the softmax."""
    ids, mask, types = MODEL_INPUTS
    nodes = [
        helper.make_node("Cast", [ids], ["ids_f"], to=TensorProto.FLOAT),
        helper.make_node("Cast", [types], ["types_f"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["ids_f", "last_axis"], ["ids_3d"]),
        helper.make_node("Unsqueeze", ["types_f", "last_axis"], ["types_3d"]),
        helper.make_node("Mul", ["ids_3d", "id_scale"], ["scaled"]),
        helper.make_node("Add", ["scaled", "types_3d"], ["x"]),  # [batch, tokens, WIDTH]
        *_dim("x", 0, "batch"),
        *_dim("x", 1, "tokens"),
        helper.make_node("Concat", ["batch", "tokens", "heads", "head_width"], ["split_shape"], axis=0),
        helper.make_node("Reshape", ["x", "split_shape"], ["split"]),
        helper.make_node("Transpose", ["split"], ["q"], perm=[0, 2, 1, 3]),
        helper.make_node("Transpose", ["q"], ["k_t"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "k_t"], ["raw_scores"]),
        helper.make_node("Mul", ["raw_scores", "score_scale"], ["scores"]),
        # the exported mask: key padding, expanded to [batch, 1, tokens, tokens]
        helper.make_node("Cast", [mask], ["mask_bool"], to=TensorProto.BOOL),
        helper.make_node("Unsqueeze", ["mask_bool", "mask_axes"], ["mask_4d"]),
        helper.make_node("Concat", ["batch", "one", "tokens", "tokens"], ["mask_shape"], axis=0),
        helper.make_node("Expand", ["mask_4d", "mask_shape"], ["key_cond"]),
    ]
    condition = "key_cond"
    if causal:
        nodes += [
            helper.make_node("Concat", ["tokens", "tokens"], ["square"], axis=0),
            helper.make_node("ConstantOfShape", ["square"], ["ones"], value=_const("v", [1.0], np.float32)),
            helper.make_node("Trilu", ["ones"], ["lower"], upper=0),
            helper.make_node("Cast", ["lower"], ["lower_bool"], to=TensorProto.BOOL),
            helper.make_node("And", ["key_cond", "lower_bool"], ["causal_cond"]),
        ]
        condition = "causal_cond"
    nodes += [
        helper.make_node("Where", [condition, "zero_f", "minus_inf"], ["mask_bias"]),
        helper.make_node("Add", ["scores", "mask_bias"], ["masked"]),
        helper.make_node("Softmax", ["masked"], ["soft"], axis=-1),
    ]
    guarded = "soft"
    if guard_after != "Softmax":  # a NaN guard after something else stays
        nodes.append(helper.make_node("Div", ["soft", "one_f"], ["divided"]))
        guarded = "divided"
    nodes += [
        helper.make_node("IsNaN", [guarded], ["is_nan"]),
        helper.make_node("Where", ["is_nan", "zero_f", guarded], ["probabilities"]),
        helper.make_node("MatMul", ["probabilities", "q"], ["context"]),
        helper.make_node("Transpose", ["context"], ["merged_heads"], perm=[0, 2, 1, 3]),
        helper.make_node("Concat", ["batch", "tokens", "width"], ["merge_shape"], axis=0),
        helper.make_node("Reshape", ["merged_heads", "merge_shape"], ["merged"]),
    ]
    if swap_axes:  # [batch, tokens, WIDTH] -> [tokens, batch, WIDTH]: no single -1 can say that
        nodes += [
            helper.make_node("Concat", ["tokens", "batch", "width"], ["swap_shape"], axis=0),
            helper.make_node("Reshape", ["merged", "swap_shape"], ["swapped"]),
            helper.make_node("ReduceSum", ["swapped", "zero_axis"], [MODEL_OUTPUT], keepdims=0),
        ]
    else:
        nodes.append(helper.make_node("ReduceSum", ["merged", "one"], [MODEL_OUTPUT], keepdims=0))
    initializers = [
        _const("axis0", 0),
        _const("axis1", 1),
        _const("zero_axis", [0]),
        _const("last_axis", [2]),
        _const("mask_axes", [1, 2]),
        _const("one", [1]),
        _const("heads", [HEADS]),
        _const("head_width", [WIDTH // HEADS]),
        _const("width", [WIDTH]),
        _const("id_scale", np.linspace(0.001, 0.002, WIDTH).reshape(1, 1, WIDTH), np.float32),
        _const("score_scale", 0.5, np.float32),
        _const("zero_f", [0.0], np.float32),
        _const("one_f", [1.0], np.float32),
        _const("minus_inf", [-np.inf], np.float32),
        _const("unused", [1, 2, 3]),
    ]
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"]) for name in MODEL_INPUTS
    ]
    output = helper.make_tensor_value_info(MODEL_OUTPUT, TensorProto.FLOAT, ["batch", WIDTH])
    graph = helper.make_graph(nodes, "attention", inputs, [output], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def _run(model: Any, feed: dict[str, np.ndarray]) -> np.ndarray:
    import onnxruntime as ort

    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run([MODEL_OUTPUT], feed)[0]


def _same_outputs(a: Any, b: Any) -> bool:
    feeds = probe_feeds(padded=False) + probe_feeds(padded=True)
    feeds.append({name: np.ones((4, 23), dtype=np.int64) for name in MODEL_INPUTS})  # a shape not probed
    return all(np.array_equal(_run(a, feed), _run(b, feed)) for feed in feeds)


def test_tidy_folds_computed_reshape_targets_and_keeps_outputs_bit_identical() -> None:
    model = _attention_model()
    tidied, report = tidy_graph(model)
    assert report.reshapes_folded == 2
    reshapes = [n for n in tidied.graph.node if n.op_type == "Reshape"]
    constants = {i.name: numpy_helper.to_array(i).tolist() for i in tidied.graph.initializer}
    assert sorted(constants[n.input[1]] for n in reshapes) == [[0, 0, HEADS, WIDTH // HEADS], [0, 0, WIDTH]]
    assert "Shape" not in operator_counts(tidied) and "Concat" not in operator_counts(tidied)
    assert _same_outputs(model, tidied)


def test_tidy_drops_the_nan_guard_after_a_softmax() -> None:
    tidied, report = tidy_graph(_attention_model())
    assert report.nan_guards_dropped == 1
    assert "IsNaN" not in operator_counts(tidied)


def test_tidy_keeps_a_nan_guard_that_follows_anything_but_a_softmax() -> None:
    model = _attention_model(guard_after="Div")
    tidied, report = tidy_graph(model)
    assert report.nan_guards_dropped == 0
    assert operator_counts(tidied)["IsNaN"] == 1
    assert _same_outputs(model, tidied)


def test_tidy_builds_the_key_padding_mask_directly() -> None:
    model = _attention_model()
    tidied, report = tidy_graph(model)
    assert report.key_mask_built
    assert "Expand" not in operator_counts(tidied)
    # padded probes are part of the check: a padded batch gives the same numbers as before
    padded = probe_feeds(padded=True)[-1]
    assert padded[MODEL_INPUTS[1]].min() == 0
    assert np.array_equal(_run(model, padded), _run(tidied, padded))


def test_tidy_leaves_a_mask_that_is_not_key_padding_alone() -> None:
    model = _attention_model(causal=True)
    tidied, report = tidy_graph(model)
    assert not report.key_mask_built
    assert operator_counts(tidied)["Trilu"] == 1
    assert _same_outputs(model, tidied)


def test_tidy_leaves_a_reshape_no_constant_target_can_write() -> None:
    model = _attention_model(swap_axes=True)
    tidied, report = tidy_graph(model)
    assert report.reshapes_folded == 2  # the two attention reshapes; the axis swap stays computed
    assert "Shape" in operator_counts(tidied)
    assert _same_outputs(model, tidied)


def test_tidy_removes_what_nothing_reads_and_is_idempotent() -> None:
    tidied, report = tidy_graph(_attention_model())
    assert "unused" not in {i.name for i in tidied.graph.initializer}
    assert report.nodes_after < report.nodes_before
    again, second = tidy_graph(tidied)
    assert (second.reshapes_folded, second.nan_guards_dropped, second.key_mask_built) == (0, 0, False)
    assert again.SerializeToString() == tidied.SerializeToString()


def test_tidy_refuses_a_rewrite_that_changes_an_output(monkeypatch: pytest.MonkeyPatch) -> None:
    def fold_and_break(model: Any) -> int:
        for init in model.graph.initializer:
            if init.name == "score_scale":
                init.CopyFrom(_const("score_scale", 0.25, np.float32))
        return 0

    monkeypatch.setattr(graph_tidy, "_fold_reshapes", fold_and_break)
    with pytest.raises(GraphTidyError, match="outputs differ"):
        tidy_graph(_attention_model())


def test_tidy_file_writes_nothing_when_the_check_fails(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "model.onnx"
    onnx.save(_attention_model(), str(path))
    before = path.read_bytes()
    monkeypatch.setattr(graph_tidy, "_drop_nan_guards", lambda model: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        graph_tidy.tidy_file(path)
    assert path.read_bytes() == before
    monkeypatch.undo()
    report = graph_tidy.tidy_file(path)
    assert report.reshapes_folded == 2 and path.read_bytes() != before


def test_the_shipped_model_is_tidied_and_its_record_says_so() -> None:
    model_path, _, meta_path = weight_files()
    shipped = onnx.load(str(model_path))
    counts = operator_counts(shipped)
    assert counts["IsNaN"] == 0 and counts["Expand"] == 0 and counts["Shape"] <= 1
    _, report = tidy_graph(shipped)
    assert (report.reshapes_folded, report.nan_guards_dropped, report.key_mask_built) == (0, 0, False)
    assert report.nodes_after == report.nodes_before
    record = json.loads(meta_path.read_text(encoding="utf-8"))["graph_tidy"]
    assert record["version"] == TIDY_VERSION
    assert record["nodes_after"] == len(shipped.graph.node)


def test_tidy_graph_flag_needs_recalibrate(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        trainer.main(["--data", "unused", "--tidy-graph"])
    assert exit_info.value.code == 2
    assert "--recalibrate" in capsys.readouterr().err
