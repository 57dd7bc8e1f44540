"""Make an exported cross-encoder graph cheaper to run without changing one bit of its output.

PyTorch's exporter writes every reshape of a BERT layer with its target shape computed at run time
(``Shape`` → ``Gather`` → ``Unsqueeze`` → ``Concat`` → ``Reshape``), guards every attention softmax against
NaN (``Where(IsNaN(p), 0, p)``) and builds a ``[batch, 1, tokens, tokens]`` attention mask through some thirty
small operators. Run one short pair at a time, as the judge runs, those small operators cost about a tenth of
each run. Three rewrites remove them:

1. **Reshape targets folded.** Each computed target is observed on probe inputs of several batch sizes and
   lengths. An axis whose size never changes becomes that constant, an axis that keeps the input's size at
   the same position becomes ``0`` (ONNX: copy it), and at most one remaining axis becomes ``-1``. A target
   that cannot be written so, or that would not reproduce every observed shape, is left as it was.
2. **NaN guards dropped** after a softmax. A softmax row is NaN only when every key in it is masked, that is
   when a pair has no token at all; the tokenizer always gives at least the two separator tokens.
3. **The attention mask built directly** as ``attention_mask`` cast to bool, shaped ``[batch, 1, 1, tokens]``,
   which broadcasts to the same values as the exported ``[batch, 1, tokens, tokens]`` condition. It is used only
   if it equals the exported condition on padded probes.

Then operators and weights nothing reads any more are removed, and the tidied graph is run beside the
original on the probes (several lengths, batches with padding): any output that is not bit-identical is a
``GraphTidyError`` and nothing is written. Reshapes and masks move no numbers, so the int8 kernels see the same
inputs and give the same logits. ``tests/judges/test_graph_tidy.py`` checks each rewrite and that the shipped
model is tidied; ``tests/judges/test_cross_encoder_judge.py`` checks it reproduces its recorded validation scores.

Needs the ``onnx`` package (the ``train`` and ``dev`` extras); the judge itself does not.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from icarus.judges.cross_encoder import MODEL_INPUTS

if TYPE_CHECKING:
    import onnx

__all__ = [
    "PROBE_SHAPES",
    "TIDY_VERSION",
    "GraphTidyError",
    "TidyReport",
    "observe",
    "operator_counts",
    "probe_feeds",
    "tidy_file",
    "tidy_graph",
]

TIDY_VERSION = "graph-tidy@1"
# (batch, tokens) of the probe inputs: distinct sizes, so that no varying axis looks constant by chance
PROBE_SHAPES = ((1, 5), (2, 9), (3, 17))
PROBE_SEED = 0
PROBE_VOCABULARY = 1_000  # token ids drawn below this: inside any BERT vocabulary
_KEY_MASK_PREFIX = "graph_tidy/key_mask"
_ERRORS_ONLY = 3

Feed = dict[str, npt.NDArray[np.int64]]


class GraphTidyError(Exception):
    """The tidied graph would not give bit-identical outputs (nothing is written)."""


@dataclass(frozen=True)
class TidyReport:
    reshapes_folded: int
    nan_guards_dropped: int
    key_mask_built: bool
    nodes_before: int
    nodes_after: int

    def to_json(self) -> dict[str, Any]:
        return {
            "version": TIDY_VERSION,
            "reshapes_folded": self.reshapes_folded,
            "nan_guards_dropped": self.nan_guards_dropped,
            "key_mask_built": self.key_mask_built,
            "nodes_before": self.nodes_before,
            "nodes_after": self.nodes_after,
        }


def probe_feeds(padded: bool) -> list[Feed]:
    """Inputs named ``MODEL_INPUTS`` in the ``PROBE_SHAPES``; with ``padded``, the later rows of each batch
    end in padding (every row keeps at least two tokens)."""
    rng = np.random.default_rng(PROBE_SEED)
    feeds = []
    for batch, tokens in PROBE_SHAPES:
        mask = np.ones((batch, tokens), dtype=np.int64)
        if padded:
            for row in range(1, batch):
                mask[row, max(2, tokens - 3 * row) :] = 0
        values = (
            rng.integers(0, PROBE_VOCABULARY, size=(batch, tokens), dtype=np.int64),
            mask,
            (np.arange(tokens)[None, :] >= tokens // 2).astype(np.int64).repeat(batch, axis=0),
        )
        feeds.append(dict(zip(MODEL_INPUTS, values, strict=True)))
    return feeds


def _session(model: onnx.ModelProto, optimised: bool) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = _ERRORS_ONLY
    if not optimised:  # keep every intermediate tensor under its exported name
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def observe(model: onnx.ModelProto, names: list[str], feeds: list[Feed]) -> list[dict[str, Any]]:
    """The values of the intermediate tensors ``names`` for each feed."""
    import onnx
    from onnx import helper

    if not names:
        return [{} for _ in feeds]
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    outputs = {o.name for o in probe.graph.output}
    probe.graph.output.extend(helper.make_empty_tensor_value_info(n) for n in names if n not in outputs)
    session = _session(probe, optimised=False)
    return [dict(zip(names, session.run(names, feed), strict=True)) for feed in feeds]


def _constants(graph: onnx.GraphProto) -> set[str]:
    return {i.name for i in graph.initializer} | {n.output[0] for n in graph.node if n.op_type == "Constant"}


def _producers(graph: onnx.GraphProto) -> dict[str, onnx.NodeProto]:
    return {output: node for node in graph.node for output in node.output}


def _fixed_target(
    inputs: list[tuple[int, ...]], targets: list[tuple[int, ...]], outputs: list[tuple[int, ...]]
) -> list[int] | None:
    """A constant Reshape target (``0`` copies the input's axis, one ``-1`` is inferred) giving each observed
    output shape from its input shape, or None (module docstring, step 1)."""
    rank = len(outputs[0])
    if any(len(t) != rank for t in targets):
        return None
    fixed: list[int | None] = []
    for axis in range(rank):
        sizes = {out[axis] for out in outputs}
        if len(sizes) == 1 and {t[axis] for t in targets} == sizes:
            fixed.append(outputs[0][axis])
        elif all(axis < len(i) and i[axis] == o[axis] for i, o in zip(inputs, outputs, strict=True)):
            fixed.append(0)
        else:
            fixed.append(None)
    if fixed.count(None) > 1:
        return None
    target = [-1 if size is None else size for size in fixed]
    for shape, out in zip(inputs, outputs, strict=True):
        copied = [shape[axis] if size == 0 else size for axis, size in enumerate(target)]
        if np.empty(shape, dtype=np.int8).reshape(copied).shape != out:
            return None
    return target


def _fold_reshapes(model: onnx.ModelProto) -> int:
    from onnx import numpy_helper

    graph = model.graph
    constants = _constants(graph)
    computed = [
        node
        for node in graph.node
        if node.op_type == "Reshape"
        and node.input[1] not in constants
        and not any(a.name == "allowzero" and a.i for a in node.attribute)
    ]
    names = sorted({name for node in computed for name in node.input[:2]})
    seen = observe(model, names, probe_feeds(padded=False))
    taken = {i.name for i in graph.initializer}
    folded = 0
    for node in computed:
        inputs = [tuple(values[node.input[0]].shape) for values in seen]
        targets = [tuple(int(v) for v in values[node.input[1]]) for values in seen]
        outputs = [
            tuple(values[node.input[0]].reshape(t).shape) for values, t in zip(seen, targets, strict=True)
        ]
        target = _fixed_target(inputs, targets, outputs)
        if target is None:
            continue
        name = f"{node.name or node.output[0]}/graph_tidy_shape"
        if name in taken:
            raise GraphTidyError(f"initializer name {name!r} is already taken")
        taken.add(name)
        graph.initializer.append(numpy_helper.from_array(np.array(target, dtype=np.int64), name))
        node.input[1] = name
        folded += 1
    return folded


def _drop_nan_guards(model: onnx.ModelProto) -> int:
    graph = model.graph
    producers = _producers(graph)
    replaced: dict[str, str] = {}
    for node in list(graph.node):
        if node.op_type != "Where":
            continue
        test = producers.get(node.input[0])
        guarded = producers.get(node.input[2])
        if (
            test is not None
            and test.op_type == "IsNaN"
            and test.input[0] == node.input[2]
            and guarded is not None
            and guarded.op_type == "Softmax"
        ):
            replaced[node.output[0]] = node.input[2]
            graph.node.remove(node)
    _rename_inputs(graph, replaced)
    return len(replaced)


def _rename_inputs(graph: onnx.GraphProto, renamed: dict[str, str]) -> None:
    for node in graph.node:
        for index, name in enumerate(node.input):
            if name in renamed:
                node.input[index] = renamed[name]
    for output in graph.output:
        if output.name in renamed:
            raise GraphTidyError(f"graph output {output.name!r} would be removed")


def _build_key_mask(model: onnx.ModelProto) -> bool:
    import onnx
    from onnx import helper, numpy_helper

    graph = model.graph
    producers = _producers(graph)
    wheres = []
    for node in graph.node:
        if node.op_type != "Softmax" or node.input[0] not in producers:
            continue
        add = producers[node.input[0]]
        if add.op_type != "Add":
            continue
        wheres += [producers[x] for x in add.input if x in producers and producers[x].op_type == "Where"]
    conditions = sorted({where.input[0] for where in wheres})
    if len(conditions) != 1 or conditions[0].startswith(_KEY_MASK_PREFIX):
        return False  # no shared mask, or built already
    (condition,) = conditions
    axes, as_bool, key_mask = (f"{_KEY_MASK_PREFIX}/{part}" for part in ("axes", "bool", "mask"))
    built = [
        helper.make_node(
            "Cast", [MODEL_INPUTS[1]], [as_bool], to=onnx.TensorProto.BOOL, name=f"{_KEY_MASK_PREFIX}/cast"
        ),
        helper.make_node("Unsqueeze", [as_bool, axes], [key_mask], name=f"{_KEY_MASK_PREFIX}/unsqueeze"),
    ]
    trial = onnx.ModelProto()
    trial.CopyFrom(model)
    trial.graph.initializer.append(numpy_helper.from_array(np.array([1, 2], dtype=np.int64), axes))
    for index, node in enumerate(built):
        trial.graph.node.insert(index, node)
    for values in observe(trial, [condition, key_mask], probe_feeds(padded=True)):
        exported = values[condition]
        ours = values[key_mask]
        if ours.ndim != exported.ndim or not np.array_equal(np.broadcast_to(ours, exported.shape), exported):
            return False
    model.CopyFrom(trial)
    for where in model.graph.node:
        if where.op_type == "Where" and where.input[0] == condition:
            where.input[0] = key_mask
    return True


def _prune(model: onnx.ModelProto) -> None:
    """Drop operators whose outputs nothing reads, then initializers nothing reads."""
    graph = model.graph
    needed = {output.name for output in graph.output}
    kept = []
    for node in reversed(graph.node):
        if any(output in needed for output in node.output):
            kept.append(node)
            needed.update(node.input)
    kept.reverse()
    del graph.node[:]
    graph.node.extend(kept)
    live = [init for init in graph.initializer if init.name in needed]
    del graph.initializer[:]
    graph.initializer.extend(live)


def _outputs(model: onnx.ModelProto, feeds: list[Feed]) -> list[list[Any]]:
    session = _session(model, optimised=True)
    return [session.run(None, feed) for feed in feeds]


def tidy_graph(model: onnx.ModelProto) -> tuple[onnx.ModelProto, TidyReport]:
    """A tidied copy of ``model`` (module docstring) and what was changed. Raises ``GraphTidyError`` unless the
    copy's outputs are bit-identical to the original's on every probe."""
    import onnx

    tidied = onnx.ModelProto()
    tidied.CopyFrom(model)
    before = len(model.graph.node)
    folded = _fold_reshapes(tidied)
    guards = _drop_nan_guards(tidied)
    key_mask = _build_key_mask(tidied)
    _prune(tidied)
    onnx.checker.check_model(tidied)
    feeds = probe_feeds(padded=False) + probe_feeds(padded=True)
    for feed, old, new in zip(feeds, _outputs(model, feeds), _outputs(tidied, feeds), strict=True):
        if len(old) != len(new) or not all(np.array_equal(a, b) for a, b in zip(old, new, strict=True)):
            shape = tuple(feed[MODEL_INPUTS[0]].shape)
            raise GraphTidyError(f"the tidied graph's outputs differ on a probe of shape {shape}")
    report = TidyReport(folded, guards, key_mask, before, len(tidied.graph.node))
    return tidied, report


def tidy_file(path: Path) -> TidyReport:
    """Tidy the ONNX model at ``path`` in place (written only if the outputs are unchanged)."""
    import onnx

    tidied, report = tidy_graph(onnx.load(str(path)))
    onnx.save(tidied, str(path))
    return report


def operator_counts(model: onnx.ModelProto) -> Counter[str]:
    """How many operators of each type ``model`` has (for reports and tests)."""
    return Counter(node.op_type for node in model.graph.node)
