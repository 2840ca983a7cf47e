"""Small ONNX models, built with onnx.helper, whose IREE output test/frontends checks in.

Each model has static shapes (f32, and f16 in matmul_f16) whose rows fit one tile (at most 16
rows per batch), one graph, and opset 17
(LayerNormalization is in it; Gelu is built from Erf as ONNX's own definition writes it).
`MODELS` maps a test name to a function returning the model; `inputs(name, rng)` gives the
arrays a test feeds it, by input name. generate.py writes test/frontends/Inputs/<name>.onnx
and .mlir from these; python/tests/test_frontends.py rebuilds the models here and compares
ptoc with onnxruntime on them.
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
F32 = TensorProto.FLOAT
SHAPE = [16, 64]
SHAPE3 = [4, 16, 64]


def _model(name, nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        initializer=list(initializers),
    )
    model = helper.make_model(
        graph,
        producer_name="ptoc-test-frontends",
        opset_imports=[helper.make_opsetid("", OPSET)],
    )
    # A fixed IR version keeps the bytes (and so the checked-in files) stable across onnx
    # releases; onnxruntime reads it.
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def _const(name, values):
    return numpy_helper.from_array(np.asarray(values, dtype=np.float32), name)


def _unary(op, shape=SHAPE, **attrs):
    def build():
        return _model(
            op.lower(),
            [helper.make_node(op, ["x"], ["y"], **attrs)],
            [("x", F32, shape)],
            [("y", F32, shape)],
        )

    return build


def _reduce(op, keepdims):
    def build():
        axes = numpy_helper.from_array(np.array([1], dtype=np.int64), "axes")
        out = [SHAPE[0], 1] if keepdims else [SHAPE[0]]
        nodes = [helper.make_node(op, ["x", "axes"], ["y"], keepdims=keepdims)]
        if op in ("ReduceMax", "ReduceMean"):
            # Opset 17's ReduceMax and ReduceMean take axes as an attribute.
            nodes = [helper.make_node(op, ["x"], ["y"], axes=[1], keepdims=keepdims)]
            return _model(op.lower(), nodes, [("x", F32, SHAPE)], [("y", F32, out)])
        return _model(op.lower(), nodes, [("x", F32, SHAPE)], [("y", F32, out)], [axes])

    return build


def softmax():
    return _unary("Softmax", axis=-1)()


def log_softmax():
    return _unary("LogSoftmax", axis=-1)()


def softmax_3d():
    return _unary("Softmax", SHAPE3, axis=-1)()


def layer_norm():
    n = SHAPE[1]
    return _model(
        "layer_norm",
        [
            helper.make_node(
                "LayerNormalization", ["x", "scale", "bias"], ["y"], axis=-1, epsilon=1e-5
            )
        ],
        [("x", F32, SHAPE), ("scale", F32, [n]), ("bias", F32, [n])],
        [("y", F32, SHAPE)],
    )


def clip():
    return _model(
        "clip",
        [helper.make_node("Clip", ["x", "lo", "hi"], ["y"])],
        [("x", F32, SHAPE)],
        [("y", F32, SHAPE)],
        [_const("lo", -1.5), _const("hi", 2.0)],
    )


def add_relu():
    return _model(
        "add_relu",
        [
            helper.make_node("Add", ["x", "z"], ["s"]),
            helper.make_node("Relu", ["s"], ["y"]),
        ],
        [("x", F32, SHAPE), ("z", F32, SHAPE)],
        [("y", F32, SHAPE)],
    )


def bias_add():
    return _model(
        "bias_add",
        [helper.make_node("Add", ["x", "b"], ["y"])],
        [("x", F32, SHAPE), ("b", F32, [SHAPE[1]])],
        [("y", F32, SHAPE)],
    )


def bias_weights():
    # A bias stored in the model (an initializer of 64 different values): torch-mlir makes it a
    # non-splat constant, which ptoc refuses (weights are arguments; docs/isa.md decision 62).
    return _model(
        "bias_weights",
        [helper.make_node("Add", ["x", "b"], ["y"])],
        [("x", F32, SHAPE)],
        [("y", F32, SHAPE)],
        [_const("b", np.linspace(-1, 1, SHAPE[1]))],
    )


def gelu():
    # 0.5 * x * (1 + erf(x / sqrt(2))), as ONNX's Gelu function body (opset 20) defines it.
    return _model(
        "gelu",
        [
            helper.make_node("Div", ["x", "sqrt2"], ["t"]),
            helper.make_node("Erf", ["t"], ["e"]),
            helper.make_node("Add", ["e", "one"], ["p"]),
            helper.make_node("Mul", ["x", "p"], ["q"]),
            helper.make_node("Mul", ["q", "half"], ["y"]),
        ],
        [("x", F32, SHAPE)],
        [("y", F32, SHAPE)],
        [_const("sqrt2", np.sqrt(2.0)), _const("one", 1.0), _const("half", 0.5)],
    )


def cast_f16():
    return _model(
        "cast_f16",
        [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT16)],
        [("x", F32, SHAPE)],
        [("y", TensorProto.FLOAT16, SHAPE)],
    )


def where_greater():
    return _model(
        "where_greater",
        [
            helper.make_node("Greater", ["x", "z"], ["c"]),
            helper.make_node("Where", ["c", "x", "z"], ["y"]),
        ],
        [("x", F32, SHAPE), ("z", F32, SHAPE)],
        [("y", F32, SHAPE)],
    )


def rms_norm():
    return _model(
        "rms_norm",
        [
            helper.make_node("Mul", ["x", "x"], ["sq"]),
            helper.make_node("ReduceMean", ["sq"], ["ms"], axes=[-1], keepdims=1),
            helper.make_node("Add", ["ms", "eps"], ["mse"]),
            helper.make_node("Sqrt", ["mse"], ["rms"]),
            helper.make_node("Div", ["x", "rms"], ["n"]),
            helper.make_node("Mul", ["n", "w"], ["y"]),
        ],
        [("x", F32, SHAPE), ("w", F32, [SHAPE[1]])],
        [("y", F32, SHAPE)],
        [_const("eps", 1e-6)],
    )


# The contractions: ONNX's MatMul and Gemm, which torch-mlir lowers to linalg.matmul onto a
# zero fill (Gemm's transposed B through linalg.transpose). The weights are graph inputs:
# initializers would become non-splat constants, which ptoc refuses (bias_weights).
HIDDEN = 32


def _matmul(name, x, w, y, elem=F32):
    """A model of one MatMul of x by w."""
    def build():
        return _model(
            name,
            [helper.make_node("MatMul", ["x", "w"], ["y"])],
            [("x", elem, x), ("w", elem, w)],
            [("y", elem, y)],
        )
    return build


matmul = _matmul("matmul", SHAPE, [SHAPE[1], HIDDEN], [SHAPE[0], HIDDEN])


def linear():
    # torch.nn.Linear as exported to ONNX: Gemm with the weight stored transposed.
    return _model(
        "linear",
        [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)],
        [("x", F32, SHAPE), ("w", F32, [HIDDEN, SHAPE[1]]), ("b", F32, [HIDDEN])],
        [("y", F32, [SHAPE[0], HIDDEN])],
    )


def mlp():
    return _model(
        "mlp",
        [
            helper.make_node("MatMul", ["x", "w1"], ["h"]),
            helper.make_node("Add", ["h", "b1"], ["hb"]),
            helper.make_node("Relu", ["hb"], ["r"]),
            helper.make_node("MatMul", ["r", "w2"], ["y"]),
        ],
        [
            ("x", F32, SHAPE),
            ("w1", F32, [SHAPE[1], SHAPE[1]]),
            ("b1", F32, [SHAPE[1]]),
            ("w2", F32, [SHAPE[1], HIDDEN]),
        ],
        [("y", F32, [SHAPE[0], HIDDEN])],
    )


def attention():
    # One head of scaled dot-product attention: softmax(q k^T / sqrt(64)) v.
    return _model(
        "attention",
        [
            helper.make_node("Transpose", ["k"], ["kt"], perm=[1, 0]),
            helper.make_node("MatMul", ["q", "kt"], ["s"]),
            helper.make_node("Mul", ["s", "scale"], ["ss"]),
            helper.make_node("Softmax", ["ss"], ["p"], axis=-1),
            helper.make_node("MatMul", ["p", "v"], ["y"]),
        ],
        [("q", F32, SHAPE), ("k", F32, SHAPE), ("v", F32, SHAPE)],
        [("y", F32, SHAPE)],
        [_const("scale", 1 / 8)],
    )


batch_matmul = _matmul(
    "batch_matmul", SHAPE3, [SHAPE3[0], SHAPE3[2], HIDDEN], [SHAPE3[0], SHAPE3[1], HIDDEN]
)


# A batch of sequences by one weight (torch.nn.Linear on 3-D input, bias-free): torch-mlir
# broadcasts the weight over the batch for a linalg.batch_matmul.
linear_batched = _matmul(
    "linear_batched", SHAPE3, [SHAPE3[2], HIDDEN], [SHAPE3[0], SHAPE3[1], HIDDEN]
)


def gemm_scaled():
    # Gemm's alpha and beta, and a full-shape C.
    return _model(
        "gemm_scaled",
        [helper.make_node("Gemm", ["x", "w", "c"], ["y"], alpha=0.5, beta=2.0)],
        [("x", F32, SHAPE), ("w", F32, [SHAPE[1], HIDDEN]), ("c", F32, [SHAPE[0], HIDDEN])],
        [("y", F32, [SHAPE[0], HIDDEN])],
    )


def gemm_transposed_a():
    return _model(
        "gemm_transposed_a",
        [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transA=1)],
        [("x", F32, [SHAPE[1], SHAPE[0]]), ("w", F32, [SHAPE[1], HIDDEN]), ("b", F32, [1, HIDDEN])],
        [("y", F32, [SHAPE[0], HIDDEN])],
    )


# torch-mlir accumulates f16 products in f32 and truncates the result.
matmul_f16 = _matmul(
    "matmul_f16", SHAPE, [SHAPE[1], HIDDEN], [SHAPE[0], HIDDEN], TensorProto.FLOAT16
)


def attention_heads():
    # Two heads of 32 at once (batched matmuls), unscaled.
    shape = [2, SHAPE[0], HIDDEN]
    return _model(
        "attention_heads",
        [
            helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
            helper.make_node("MatMul", ["q", "kt"], ["s"]),
            helper.make_node("Softmax", ["s"], ["p"], axis=-1),
            helper.make_node("MatMul", ["p", "v"], ["y"]),
        ],
        [("q", F32, shape), ("k", F32, shape), ("v", F32, shape)],
        [("y", F32, shape)],
    )


MODELS = {
    "softmax": softmax,
    "log_softmax": log_softmax,
    "softmax_3d": softmax_3d,
    "layer_norm": layer_norm,
    "reduce_max": _reduce("ReduceMax", 1),
    "reduce_sum": _reduce("ReduceSum", 0),
    "reduce_mean": _reduce("ReduceMean", 1),
    "clip": clip,
    "add_relu": add_relu,
    "bias_add": bias_add,
    "bias_weights": bias_weights,
    "exp": _unary("Exp"),
    "sqrt": _unary("Sqrt"),
    "reciprocal": _unary("Reciprocal"),
    "abs": _unary("Abs"),
    "neg": _unary("Neg"),
    "log": _unary("Log"),
    "sigmoid": _unary("Sigmoid"),
    "tanh": _unary("Tanh"),
    "erf": _unary("Erf"),
    "gelu": gelu,
    "cast_f16": cast_f16,
    "where_greater": where_greater,
    "rms_norm": rms_norm,
    "matmul": matmul,
    "linear": linear,
    "mlp": mlp,
    "attention": attention,
    "batch_matmul": batch_matmul,
    "linear_batched": linear_batched,
    "gemm_scaled": gemm_scaled,
    "gemm_transposed_a": gemm_transposed_a,
    "matmul_f16": matmul_f16,
    "attention_heads": attention_heads,
}


def inputs(name, rng):
    """Random inputs for model `name`, by input name: normal values, with the domain of
    sqrt, log and reciprocal kept positive."""
    model = MODELS[name]()
    out = {}
    for value in model.graph.input:
        shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
        x = rng.standard_normal(shape).astype(np.float32) * np.float32(3)
        if value.type.tensor_type.elem_type == TensorProto.FLOAT16:
            x = x.astype(np.float16)
        if name in ("sqrt", "log", "reciprocal"):
            x = np.abs(x) + np.float32(1e-3)
        out[value.name] = x
    return out
