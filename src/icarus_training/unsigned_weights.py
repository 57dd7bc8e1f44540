"""Store an int8 cross-encoder's weights as unsigned bytes, so every x86 CPU computes its products exactly.

``quantize_dynamic`` with int8 weights gives ``MatMulInteger`` nodes that multiply uint8 activations by int8
weights (U8S8). onnxruntime computes U8S8 on CPUs without AVX-512 VNNI (AVX2 machines, AMD EPYC among them)
with an instruction that adds two byte products into a signed 16-bit value, which saturates: large
activations against large weights of the same sign lose part of their sum. onnxruntime's quantization guide
warns of this. On such a machine the shipped model's integer products were wrong in 24 of its 38 matrix
products for a single short pair, the classifier's included, and its validation macro-F1 on Climate-FEVER
read 0.444 instead of the 0.440 recorded on a VNNI machine; the judge's answers depended on the CPU.

The rewrite is exact arithmetic, not a new quantisation: a weight byte ``q`` (int8, zero point ``z``) becomes
``q + 128`` (uint8, zero point ``z + 128``), so ``(q + 128) - (z + 128) = q - z`` and every product means the
same number. With both operands unsigned (U8U8), onnxruntime widens them to 16 bits before multiplying, on
every x86 CPU, so nothing saturates.

``check_exact_products`` runs the model on probe inputs with every ``MatMulInteger`` output exposed and
compares each with the same product in numpy's 64-bit integers: the rewrite is refused (``UnsignedWeightsError``,
nothing written) unless all of them agree, on the machine that runs it. ``tests/judges/test_unsigned_weights.py``
runs that check on the shipped model on the CI machine.

Needs the ``onnx`` package (the ``train`` and ``dev`` extras); the judge itself does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from icarus_training.graph_tidy import observe, probe_feeds

if TYPE_CHECKING:
    import onnx

__all__ = [
    "UNSIGNED_VERSION",
    "UnsignedReport",
    "UnsignedWeightsError",
    "check_exact_products",
    "signed_weight_products",
    "unsign_file",
    "unsign_weights",
]

UNSIGNED_VERSION = "unsigned-weights@1"
_SHIFT = 128  # int8 -> uint8: the same integer, offset by the zero point


class UnsignedWeightsError(Exception):
    """A weight could not be rewritten, or a product of the rewritten model is not exact."""


@dataclass(frozen=True)
class UnsignedReport:
    products_rewritten: int
    weights_rewritten: int

    def to_json(self) -> dict[str, Any]:
        return {
            "version": UNSIGNED_VERSION,
            "products_rewritten": self.products_rewritten,
            "weights_rewritten": self.weights_rewritten,
        }


def _integer_products(model: onnx.ModelProto) -> list[onnx.NodeProto]:
    return [node for node in model.graph.node if node.op_type == "MatMulInteger"]


def signed_weight_products(model: onnx.ModelProto) -> list[str]:
    """Names of the ``MatMulInteger`` nodes whose weight (second input) is stored as int8."""
    from onnx import TensorProto

    stored = {tensor.name: tensor.data_type for tensor in model.graph.initializer}
    return [node.name for node in _integer_products(model) if stored.get(node.input[1]) == TensorProto.INT8]


def unsign_weights(model: onnx.ModelProto) -> tuple[onnx.ModelProto, UnsignedReport]:
    """A copy of ``model`` whose int8 ``MatMulInteger`` weights and their zero points are uint8 (module
    docstring), checked with ``check_exact_products``."""
    import onnx
    from onnx import numpy_helper

    rewritten = onnx.ModelProto()
    rewritten.CopyFrom(model)
    stored = {tensor.name: tensor for tensor in rewritten.graph.initializer}
    shifted: set[str] = set()
    products = 0
    for node in _integer_products(rewritten):
        weight = node.input[1]
        if weight not in stored or numpy_helper.to_array(stored[weight]).dtype != np.int8:
            continue
        zero_point = node.input[3] if len(node.input) > 3 else ""
        if not zero_point or zero_point not in stored:
            # an absent zero point means 0 of the weight's type; shifted, it must be stated as 128
            zero_point = f"{weight}/unsigned_zero_point"
            if zero_point not in stored:
                rewritten.graph.initializer.append(numpy_helper.from_array(np.zeros((), np.int8), zero_point))
                stored[zero_point] = rewritten.graph.initializer[-1]  # append stored a copy
            while len(node.input) < 4:
                node.input.append("")
            node.input[3] = zero_point
        for name in (weight, zero_point):
            if name in shifted:
                continue
            values = numpy_helper.to_array(stored[name])
            if values.dtype != np.int8:
                raise UnsignedWeightsError(f"{node.name}: {name} is {values.dtype}, expected int8")
            stored[name].CopyFrom(
                numpy_helper.from_array((values.astype(np.int16) + _SHIFT).astype(np.uint8), name)
            )
            shifted.add(name)
        products += 1
    onnx.checker.check_model(rewritten)
    check_exact_products(rewritten)
    return rewritten, UnsignedReport(products, len(shifted))


def check_exact_products(model: onnx.ModelProto) -> int:
    """Run ``model`` on the probe inputs with every ``MatMulInteger`` output exposed, and compare each with
    the exact product of its inputs. Returns how many products were compared; raises
    ``UnsignedWeightsError`` at the first that differs."""
    from onnx import numpy_helper

    nodes = _integer_products(model)
    stored = {tensor.name: numpy_helper.to_array(tensor) for tensor in model.graph.initializer}
    # the quantised activations, their zero points and the products: everything not stored in the file
    names = list(
        dict.fromkeys(
            name for node in nodes for name in (*node.input, node.output[0]) if name and name not in stored
        )
    )
    compared = 0
    for observed in observe(model, names, probe_feeds(padded=False)):
        seen = {**stored, **observed}

        def value(name: str, seen: dict[str, Any] = seen) -> Any:
            return seen[name].astype(np.int64) if name else np.int64(0)

        for node in nodes:
            a, b = value(node.input[0]), value(node.input[1])
            a_zero = value(node.input[2] if len(node.input) > 2 else "")
            b_zero = value(node.input[3] if len(node.input) > 3 else "")
            if not np.array_equal((a - a_zero) @ (b - b_zero), seen[node.output[0]]):
                raise UnsignedWeightsError(
                    f"{node.name}: onnxruntime's integer product differs from the exact one on this CPU"
                )
            compared += 1
    return compared


def unsign_file(path: Path) -> UnsignedReport:
    """Rewrite the ONNX model at ``path`` in place (written only if every product checks exact)."""
    import onnx

    rewritten, report = unsign_weights(onnx.load(str(path)))
    onnx.save(rewritten, str(path))
    return report
