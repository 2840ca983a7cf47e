"""Real ML-frontend IR: test/frontends/Inputs/<name>.mlir, which IREE's ONNX importer and
torch-mlir's pipelines made from the ONNX models of test/frontends/models.py
(test/frontends/generate.py), compiled by ptoc as emitted and run on its interpreter, against
onnxruntime running the same model on the same inputs, and against numpy in binary64.

- Exact ops (abs, neg, add + relu, bias add, clip, where/greater, f32->f16 cast, reduce max,
  sqrt, reciprocal): bit for bit with onnxruntime.
- tanh and erf (gelu through erf), which ptoc writes out in ISA ops (dialect/src/expand_math.rs,
  docs/isa.md decisions 64 and 65): within the documented bound of the exact function (binary64
  math.tanh / math.erf), and within that bound plus onnxruntime's own distance from the exact
  function of onnxruntime (the triangle inequality: both are measured on these inputs).
- reduce sum and mean: bit for bit with numpy's in-order fold, and within the reordering
  bound of onnxruntime.
- exp, log and sigmoid: within 0.501, 0.501 and 2.5 ulp of the exact function, and of
  onnxruntime within that plus onnxruntime's own distance from it.
- the contractions (MatMul, Gemm as torch.nn.Linear exports it, a two-layer MLP, one attention
  head), which torch-mlir lowers to linalg.matmul and ptoc runs on the matrix unit: bit for bit
  with numpy's in-order evaluation of the same program (each product rounded, k in order from
  +0, docs/isa.md decision 51); bit for bit with onnxruntime on small integers, where every
  order of the sums is exact; and on random values within the reordering bound of onnxruntime
  (matmul, linear), or within that bound carried through the block's other ops (mlp,
  attention).
- the composites (softmax, log softmax, layer norm, RMS norm, gelu): ptoc computes each op
  once rounded (exp and log as binary64 rounded once to f32) and folds sums in order, which
  `ptoc verify` checks bit for bit against the program; here they are compared with
  onnxruntime, whose exp, log and sum order differ, within a few ulp of the result's scale
  (the tolerance each test names).

The models are rebuilt from models.py and must be byte-identical to the checked-in .onnx.
"""

import math
import os
import sys

import numpy as np
import pytest

import ptoc
from test_blocks import matmul_in_order, softmax_rows

# Not skipped when missing: scripts/python-env installs both, and CI must run these tests.
import onnx  # noqa: F401,E402
import onnxruntime as ort  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
FRONTENDS = os.path.join(ROOT, "test", "frontends")
sys.path.insert(0, FRONTENDS)
import models  # noqa: E402

# Measured bounds in ulp of the exact value (test/frontends/fit_approximations.py, docs/isa.md
# §20 decisions 64 and 65).
TANH_ULP = 1.01
ERF_ULP = 1.39

EXACT = ["abs", "neg", "add_relu", "bias_add", "clip", "where_greater", "cast_f16",
         "reduce_max", "sqrt", "reciprocal"]
# Results within `ulp` ulp of onnxruntime, the ulp taken at the largest magnitude of the
# result row (a sum's rounding is relative to its terms, not to a small result).
NEAR = {"softmax": 16, "softmax_3d": 16, "log_softmax": 8, "layer_norm": 16, "rms_norm": 8,
        "gelu": 4}
# Elementwise functions made of ISA ops: the exact function in binary64, and ptoc's bound from it
# in ulp (exp and log are binary64 rounded once: half an ulp, and libm's binary64 error, far
# below 0.001 ulp of f32; sigmoid is 1/(1 + exp(-x)), four roundings).
ELEMENTWISE = {
    "exp": (np.exp, 0.501),
    "log": (np.log, 0.501),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), 2.5),
}
# Programs with a torch-mlir cf.assert, compiled with strip_assertions.
ASSERTED = {"reciprocal"}


def source(name):
    with open(os.path.join(FRONTENDS, "Inputs", name + ".mlir")) as f:
        return f.read()


def model_bytes(name):
    return models.MODELS[name]().SerializeToString()


def inputs(name, seed=0):
    return models.inputs(name, np.random.default_rng(seed))


def run_ptoc(name, feed):
    strip = name in ASSERTED
    obj = ptoc.compile(source(name), filename=name + ".mlir", strip_assertions=strip)
    # The kernel's arguments are the function's, in the model's input order.
    out = ptoc.run(obj, {i: v for i, v in enumerate(feed.values())})
    return out["r0"]


def run_ort(name, feed):
    session = ort.InferenceSession(model_bytes(name), providers=["CPUExecutionProvider"])
    return session.run(None, feed)[0]


def bits(a):
    return a.view({2: np.uint16, 4: np.uint32}[a.dtype.itemsize])


def assert_same_bits(got, want, *context):
    """got and want are the same bits, else the first element that differs is reported."""
    diff = np.argwhere(bits(got) != bits(want))
    assert diff.size == 0, (*context, got[tuple(diff[0])], want[tuple(diff[0])])


def ulp_error(got, exact):
    """|got - exact| in ulp of the f32 nearest each exact (binary64) value."""
    ulp = np.spacing(np.abs(exact.astype(np.float32))).astype(np.float64)
    return np.abs(got.astype(np.float64) - exact) / ulp


def test_models_are_checked_in():
    for name in models.MODELS:
        with open(os.path.join(FRONTENDS, "Inputs", name + ".onnx"), "rb") as f:
            assert f.read() == model_bytes(name), name


@pytest.mark.parametrize("name", EXACT)
def test_exact_ops_match_onnxruntime_bit_for_bit(name):
    for seed in range(3):
        feed = inputs(name, seed)
        want = run_ort(name, feed)
        got = np.asarray(run_ptoc(name, feed)).reshape(want.shape)
        assert got.dtype == want.dtype
        assert_same_bits(got, want, name, seed)


def edge_inputs():
    """16x64 f32 inputs across tanh's and erf's branches: zeros of both signs, the switch
    points and their neighbours, tiny, large, infinite and NaN values, and random ones."""
    special = np.array([0.0, -0.0, 0.75, -0.75, 1.0, -1.0, 1e-30, -1e-30, 1e-8, 3.9, 4.0, 9.0,
                        -9.0, 30.0, np.inf, -np.inf], dtype=np.float32)
    near = np.array([np.nextafter(np.float32(v), np.float32(d)) for v in (0.75, 1.0)
                     for d in (0, 2)], dtype=np.float32)
    rng = np.random.default_rng(7)
    fill = (rng.standard_normal(16 * 64 - len(special) - len(near) - 1) * 2).astype(np.float32)
    x = np.concatenate([special, near, [np.float32(np.nan)], fill]).astype(np.float32)
    return x.reshape(16, 64)


def many_inputs(count):
    rng = np.random.default_rng(11)
    grid = np.linspace(-5, 5, 16 * 64, dtype=np.float32)
    batches = [edge_inputs(), grid.reshape(16, 64)]
    batches += [(rng.standard_normal((16, 64)) * s).astype(np.float32)
                for s in (0.3, 1, 3)[:count]]
    return batches


@pytest.mark.parametrize("name,exact,bound", [
    ("tanh", np.tanh, TANH_ULP),
    ("erf", np.vectorize(math.erf), ERF_ULP),
])
def test_written_out_functions_within_their_bound(name, exact, bound):
    worst, worst_ort = 0.0, 0.0
    for x in many_inputs(3):
        feed = {"x": x}
        got = np.asarray(run_ptoc(name, feed)).reshape(x.shape)
        want = run_ort(name, feed)
        truth = exact(x.astype(np.float64))
        finite = np.isfinite(x)
        # NaN stays NaN, infinities give +-1, zeros keep their sign.
        assert np.isnan(got[~np.isfinite(truth)]).all()
        assert (got[np.isinf(x)] == np.sign(x[np.isinf(x)])).all()
        zeros = x == 0
        assert (bits(got[zeros]) == bits(x[zeros])).all()
        err = ulp_error(got[finite], truth[finite])
        err_ort = ulp_error(want[finite].astype(np.float32), truth[finite])
        worst, worst_ort = max(worst, err.max()), max(worst_ort, err_ort.max())
        assert err.max() <= bound, (name, x[finite][np.argmax(err)], err.max())
        # Against onnxruntime: within our bound plus onnxruntime's own distance, elementwise.
        apart = np.abs(got[finite].astype(np.float64) - want[finite].astype(np.float64))
        ulp = np.spacing(np.abs(truth[finite].astype(np.float32))).astype(np.float64)
        assert (apart <= (bound + err_ort) * ulp).all(), name
    print(f"{name}: ptoc at most {worst:.3f} ulp, onnxruntime {worst_ort:.3f} ulp")


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_functions_within_their_bound(name):
    """ptoc within its bound of the exact function, and onnxruntime (whose exp and log are its
    own approximations) within that bound plus onnxruntime's own distance from it."""
    exact, bound = ELEMENTWISE[name]
    for seed in range(3):
        feed = inputs(name, seed)
        x = feed["x"]
        got = np.asarray(run_ptoc(name, feed)).reshape(x.shape)
        want = run_ort(name, feed)
        truth = exact(x.astype(np.float64))
        err = ulp_error(got, truth)
        assert err.max() <= bound, (name, seed, err.max())
        err_ort = ulp_error(want, truth)
        apart = np.abs(got.astype(np.float64) - want.astype(np.float64))
        ulp = np.spacing(np.abs(truth.astype(np.float32))).astype(np.float64)
        assert (apart <= (bound + err_ort) * ulp).all(), name


@pytest.mark.parametrize("name", sorted(NEAR))
def test_composites_near_onnxruntime(name):
    for seed in range(3):
        feed = inputs(name, seed)
        want = run_ort(name, feed)
        got = np.asarray(run_ptoc(name, feed)).reshape(want.shape).astype(np.float64)
        want = want.astype(np.float64)
        assert np.isfinite(got).all() and np.isfinite(want).all()
        # The ulp at each row's largest magnitude (the row is the reduced axis).
        rows = np.abs(want).reshape(-1, want.shape[-1]) if want.ndim > 1 else np.abs(want)[:, None]
        scale = np.repeat(rows.max(axis=1), rows.shape[1]).reshape(want.shape)
        ulp = np.spacing(scale.astype(np.float32)).astype(np.float64)
        err = np.abs(got - want) / ulp
        assert err.max() <= NEAR[name], (name, seed, err.max())


@pytest.mark.parametrize("name", ["reduce_sum", "reduce_mean"])
def test_sums_fold_in_order(name):
    """torch-mlir's sum folds each row left from +0 (and the mean divides it by 64): exactly
    numpy's np.add.accumulate in f32. onnxruntime sums in another order, so it is within the
    reordering bound 2·n·eps·sum|x| of the exact sum, elementwise."""
    for seed in range(3):
        feed = inputs(name, seed)
        x = feed["x"]
        want = np.add.accumulate(x, axis=1, dtype=np.float32)[:, -1]
        if name == "reduce_mean":
            want = want / np.float32(x.shape[1])
        got = np.asarray(run_ptoc(name, feed)).reshape(want.shape)
        assert (bits(got) == bits(want.astype(np.float32))).all(), (name, seed)
        theirs = run_ort(name, feed).reshape(want.shape).astype(np.float64)
        n, eps = x.shape[1], np.finfo(np.float32).eps
        bound = 2 * n * eps * np.abs(x.astype(np.float64)).sum(axis=1)
        if name == "reduce_mean":
            bound = bound / n + np.spacing(np.abs(want))
        assert (np.abs(got - theirs) <= bound).all(), (name, seed)


def attention_in_order(q, k, v, scale):
    """One head: softmax_rows of the scaled scores, then the probabilities times v."""
    return matmul_in_order(softmax_rows(matmul_in_order(q, k.T) * np.float32(scale)), v)


def contraction_in_order(name, f):
    """The model's program in numpy, in the order of torch-mlir's linalg: each matmul k in
    order from +0 in f32 (f16 products are exact in f32, the result truncated once), Gemm's
    alpha·AB (exact here: a power of two) then its beta·C added, the softmax as test_blocks'
    softmax_rows."""
    if name == "matmul":
        return matmul_in_order(f["x"], f["w"])
    if name == "matmul_f16":
        wide = matmul_in_order(f["x"].astype(np.float32), f["w"].astype(np.float32))
        return wide.astype(np.float16)
    if name == "batch_matmul":
        return np.stack([matmul_in_order(x, w) for x, w in zip(f["x"], f["w"])])
    if name == "linear_batched":
        return np.stack([matmul_in_order(x, f["w"]) for x in f["x"]])
    if name == "linear":
        return matmul_in_order(f["x"], f["w"].T) + f["b"]
    if name == "gemm_scaled":
        return matmul_in_order(f["x"], f["w"]) * np.float32(0.5) + f["c"] * np.float32(2)
    if name == "gemm_transposed_a":
        return matmul_in_order(f["x"].T, f["w"]) + f["b"]
    if name == "mlp":
        hidden = np.maximum(matmul_in_order(f["x"], f["w1"]) + f["b1"], np.float32(0))
        return matmul_in_order(hidden, f["w2"])
    if name == "attention_heads":
        heads = zip(f["q"], f["k"], f["v"])
        return np.stack([attention_in_order(q, k, v, 1) for q, k, v in heads])
    assert name == "attention"
    return attention_in_order(f["q"], f["k"], f["v"], 0.125)


CONTRACTIONS = ["matmul", "matmul_f16", "batch_matmul", "linear", "linear_batched",
                "gemm_scaled", "gemm_transposed_a", "mlp", "attention", "attention_heads"]


@pytest.mark.parametrize("name", CONTRACTIONS)
def test_contractions_fold_in_order(name):
    for seed in range(3):
        feed = inputs(name, seed)
        want = contraction_in_order(name, feed)
        got = np.asarray(run_ptoc(name, feed)).reshape(want.shape)
        assert_same_bits(got, want, name, seed)


@pytest.mark.parametrize("name", [n for n in CONTRACTIONS if not n.startswith("attention")])
def test_contractions_match_onnxruntime_on_integers(name):
    """Integers in [-8, 8]: every product and partial sum is an integer below 2^24 (the MLP's
    largest is 64 * (64 * 64 + 8) * 8 < 2^22), exact in f32 whatever the order of the sums;
    matmul_f16's results stay below 2^11 (64 * 4 * 4 = 1024 with integers in [-4, 4]), exact in
    f16."""
    rng = np.random.default_rng(5)
    for _ in range(3):
        feed = {}
        for k, v in inputs(name).items():
            top = 4 if v.dtype == np.float16 else 8
            feed[k] = rng.integers(-top, top + 1, v.shape).astype(v.dtype)
        want = run_ort(name, feed)
        got = np.asarray(run_ptoc(name, feed)).reshape(want.shape)
        assert_same_bits(got, want, name)


def reordering_bound(a, b):
    """How far two orders of each f32 dot product of a @ b can be apart: each is within
    K·u·sum|a_k b_k| of the exact value (u the unit roundoff), so 2·K·u = K·eps between them."""
    a, b = np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64))
    return a.shape[1] * np.finfo(np.float32).eps * (a @ b)


@pytest.mark.parametrize("name", ["matmul", "linear"])
def test_products_within_the_reordering_bound_of_onnxruntime(name):
    """ptoc's and onnxruntime's orders are within reordering_bound of each other; Gemm's bias add
    rounds once more in each (one ulp of the result between them)."""
    for seed in range(3):
        feed = inputs(name, seed)
        w = feed["w"].T if name == "linear" else feed["w"]
        got = np.asarray(run_ptoc(name, feed)).astype(np.float64)
        theirs = run_ort(name, feed).astype(np.float64)
        bound = reordering_bound(feed["x"], w)
        if name == "linear":
            bound = bound + np.spacing(np.abs(theirs).astype(np.float32))
        got = got.reshape(theirs.shape)
        assert (np.abs(got - theirs) <= bound).all(), (name, seed)


def test_mlp_within_the_carried_bound_of_onnxruntime():
    """The first layer's distance (reordering, then one rounding of the bias add each), through
    ReLU (1-Lipschitz) and the second layer's weights, plus the second layer's reordering."""
    for seed in range(3):
        f = inputs("mlp", seed)
        h = matmul_in_order(f["x"], f["w1"]) + f["b1"]
        hidden_gap = reordering_bound(f["x"], f["w1"]) + 2 * np.spacing(np.abs(h))
        relu = np.maximum(h, np.float32(0))
        bound = hidden_gap @ np.abs(f["w2"].astype(np.float64))
        bound = bound + reordering_bound(relu, f["w2"]) * (1 + 1e-3)
        got = np.asarray(run_ptoc("mlp", f)).astype(np.float64).reshape(bound.shape)
        theirs = run_ort("mlp", f).astype(np.float64)
        assert (np.abs(got - theirs) <= bound).all(), seed


def test_attention_within_the_carried_bound_of_onnxruntime():
    """Scores apart by d (reordering, scaled by 1/8 exactly) move each softmax row by a factor
    within exp(±2·max d), and each side's softmax (max, exp, sum of 16, divide) is within
    32·eps of the exact one relative to each probability (exp a few ulp, the sum 16·u); the
    output then differs by that relative distance on p @ |v|, plus the second matmul's
    reordering."""
    eps = np.finfo(np.float32).eps
    for seed in range(3):
        f = inputs("attention", seed)
        d = reordering_bound(f["q"], f["k"].T) / 8
        rel = np.expm1(2 * d.max(axis=1, keepdims=True)) + 32 * eps
        p = softmax_rows(matmul_in_order(f["q"], f["k"].T) * np.float32(0.125))
        pv = p.astype(np.float64) @ np.abs(f["v"].astype(np.float64))
        bound = 2 * rel * pv + reordering_bound(p, f["v"])
        got = np.asarray(run_ptoc("attention", f)).astype(np.float64).reshape(bound.shape)
        theirs = run_ort("attention", f).astype(np.float64)
        assert (np.abs(got - theirs) <= bound).all(), seed


def test_gelu_is_erf_within_bound():
    """Gelu built from Erf: ptoc's result is the model's ops on ptoc's erf, each rounded once,
    so it equals numpy's f32 evaluation of the same graph on erf values within ERF_ULP."""
    x = many_inputs(1)[2]
    got = np.asarray(run_ptoc("gelu", {"x": x})).reshape(x.shape).astype(np.float64)
    exact = 0.5 * x * (1 + np.vectorize(math.erf)(x.astype(np.float64) / math.sqrt(2)))
    err = np.abs(got - exact) / np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    assert err.max() <= 4, err.max()


def test_assertions_are_refused_without_the_option():
    with pytest.raises(ptoc.CompileError) as info:
        ptoc.compile(source("reciprocal"), filename="reciprocal.mlir")
    (d,) = info.value.diagnostics
    assert "cannot lower 'cf.assert'" in d.message and "--strip-assertions" in d.message
    assert (d.file, d.line, d.col) == ("reciprocal.mlir", 10, 7)


def test_weights_are_refused_without_printing_them():
    with pytest.raises(ptoc.CompileError) as info:
        ptoc.compile(source("bias_weights"), filename="bias_weights.mlir")
    (d,) = info.value.diagnostics
    assert (d.file, d.line, d.col) == ("bias_weights.mlir", 5, 12)
    assert "holds a dense tensor of different elements" in d.message
    assert "0.96825397" not in d.message


def rust_constants(name):
    """The f32 array `name` of dialect/src/expand_math.rs."""
    import re

    with open(os.path.join(ROOT, "dialect", "src", "expand_math.rs")) as f:
        text = f.read()
    body = re.search(rf"const {name}: \[f32; \d+\] = \[(.*?)\];", text, re.S).group(1)
    return [np.float32(v) for v in body.replace("_", "").split(",") if v.strip()]


def test_the_coefficients_are_the_fits_and_meet_the_bounds():
    """fit_approximations.py's fits are the coefficients expand_math.rs holds, and the f32
    model of the formulas on the coefficients expand_math.rs holds stays within the stated
    bounds (on a smaller sample than the script's own 10 million inputs).

    The fit runs on numpy, whose exp and tanh dispatch on the CPU's vector ISA, and on LAPACK's
    least squares, so it can end one f32 ulp away on another CPU (one ERF_R coefficient does on
    an AVX2-only AMD EPYC): each constant must be this machine's fit or a neighbouring f32. The bounds are checked on the
    constants themselves, which are what ptoc emits."""
    import fit_approximations as fit

    for name, fitted in zip(("TANH_Q", "ERF_P", "ERF_R"), fit.coefficients()):
        held = bits(np.array(rust_constants(name))).astype(np.int64)
        here = bits(np.array(fitted)).astype(np.int64)
        assert held.shape == here.shape, name
        assert np.abs(held - here).max() <= 1, (name, held.tolist(), here.tolist())
    tanh_q, erf_p, erf_r = (np.array(rust_constants(n)) for n in ("TANH_Q", "ERF_P", "ERF_R"))
    x = fit.samples()[::8]
    x64 = x.astype(np.float64)
    assert fit.ulp_error(fit.tanh32(x, tanh_q), np.tanh(x64)).max() <= TANH_ULP
    erf = np.vectorize(math.erf)(x64)
    assert fit.ulp_error(fit.erf32(x, erf_p, erf_r), erf).max() <= ERF_ULP
