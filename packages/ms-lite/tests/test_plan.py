"""The execution plan (``ms_lite.runtime.plan``) and its float32 kernels: each kernel
against numpy, each plan against the executor's registry kernels on the same graph."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ms_lite.ir import Graph, Node, Value
from ms_lite.runtime.executor import Executor
from ms_lite.runtime.plan import Plan

_f32 = pytest.importorskip("ms_lite.kernels._f32")


def _cols_reference(x, kh, kw, sh, sw, dh, dw, pads, oh, ow):
    pt, pb, pl, pr = pads
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    n, c = x.shape[:2]
    rows = [xp[:, ci, i * dh: i * dh + (oh - 1) * sh + 1: sh,
               j * dw: j * dw + (ow - 1) * sw + 1: sw].reshape(-1)
            for ci in range(c) for i in range(kh) for j in range(kw)]
    return np.stack(rows)  # (C*kh*kw, N*oh*ow): images side by side


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 2), c=st.integers(1, 3), h=st.integers(3, 9), w=st.integers(3, 9),
       k=st.integers(1, 3), s=st.integers(1, 2), d=st.integers(1, 2),
       pads=st.tuples(*[st.integers(0, 2)] * 4), threads=st.sampled_from([1, 2]))
def test_im2col_matches_numpy(n, c, h, w, k, s, d, pads, threads):
    pt, pb, pl, pr = pads
    ek = (k - 1) * d + 1
    oh, ow = (h + pt + pb - ek) // s + 1, (w + pl + pr - ek) // s + 1
    if oh < 1 or ow < 1:
        return
    x = np.random.default_rng(0).standard_normal((n, c, h, w)).astype(np.float32)
    cols = np.full((c * k * k + 1, n * oh * ow), 7, np.float32)
    _f32.im2col(x, cols, k, k, s, s, d, d, pt, pl, oh, ow, threads)
    np.testing.assert_array_equal(cols[:-1], _cols_reference(x, k, k, s, s, d, d, pads, oh,
                                                             ow))
    assert (cols[-1] == 7).all()  # the row past the columns (the bias row) is left alone


def test_im2col_wide_rows_are_the_valid_columns_on_the_full_width():
    x = np.random.default_rng(1).standard_normal((1, 2, 7, 6)).astype(np.float32)
    k, d = 3, 1
    oh, ow = 7 - 2, 6 - 2
    cols = np.empty((2 * 9, oh * 6), np.float32)
    _f32.im2col_wide(x, cols, k, k, d, d, oh)
    want = _cols_reference(x, k, k, 1, 1, d, d, (0,) * 4, oh, ow)
    np.testing.assert_array_equal(cols.reshape(18, oh, 6)[:, :, :ow].reshape(18, -1), want)
    assert (cols.reshape(18, oh, 6)[-1, -1, 6 - 2:] == 0).all()  # past the plane: zeros
    with pytest.raises(ValueError, match="im2col_wide"):
        _f32.im2col_wide(x, cols[:, 1:].copy(), k, k, d, d, oh)


@pytest.mark.parametrize("avg", [False, True])
@pytest.mark.parametrize("act", [0, 1, 2])
@pytest.mark.parametrize("window", [(2, 2, 2, 2), (3, 2, 1, 2), (3, 3, 2, 2)])
def test_pool_matches_numpy(avg, act, window):
    kh, kw, sh, sw = window
    x = (np.random.default_rng(2).standard_normal((3, 9, 8)) * 5).astype(np.float32)
    oh, ow = (9 - kh) // sh + 1, (8 - kw) // sw + 1
    out = np.empty((3, oh, ow), np.float32)
    _f32.pool(x, out, kh, kw, sh, sw, avg, act)
    win = np.stack([x[:, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw]
                    for i in range(kh) for j in range(kw)])
    want = win.mean(0) if avg else win.max(0)
    want = {0: want, 1: np.maximum(want, 0), 2: np.clip(want, 0, 6)}[act]
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="pool"):
        _f32.pool(x, np.empty((3, oh + 5, ow), np.float32), kh, kw, sh, sw, avg, act)


def test_bias_act_and_unpack_act():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 5)).astype(np.float32) * 8
    b = rng.standard_normal(5).astype(np.float32)
    out = a.copy()
    _f32.bias_act(out, b, 2)
    np.testing.assert_array_equal(out, np.clip(a + b, 0, 6))
    out = a.copy()
    _f32.bias_act(out, None, 1)
    np.testing.assert_array_equal(out, np.maximum(a, 0))
    with pytest.raises(ValueError, match="bias_act"):
        _f32.bias_act(out, b[:3].copy(), 1)
    src = rng.standard_normal((3, 2, 4)).astype(np.float32)
    dst = np.empty((2, 3, 4), np.float32)
    _f32.unpack_act(src, dst, 1)
    np.testing.assert_array_equal(dst, np.maximum(src.transpose(1, 0, 2), 0))



@settings(max_examples=30, deadline=None)
@given(k=st.integers(1, 70), n=st.integers(1, 150), act=st.sampled_from([0, 1, 2]),
       bias=st.booleans(), threads=st.sampled_from([1, 2]))
def test_dense_vec_matches_numpy(k, n, act, bias, threads):
    rng = np.random.default_rng(k * 1000 + n)
    x = rng.standard_normal(k).astype(np.float32) * 3
    w = rng.standard_normal((k, n)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32) if bias else None
    out = np.full(n, np.nan, np.float32)
    _f32.dense_vec(x, w, b, out, act, threads)
    want = x.astype(np.float64) @ w + (0 if b is None else b)
    want = {0: want, 1: np.maximum(want, 0), 2: np.clip(want, 0, 6)}[act]
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)



@settings(max_examples=30, deadline=None)
@given(m=st.integers(1, 9), k=st.integers(1, 40), n=st.integers(1, 40),
       act=st.sampled_from([0, 1, 2]), bias=st.booleans(), threads=st.sampled_from([1, 2]))
def test_dense_packed_matches_numpy(m, k, n, act, bias, threads):
    rng = np.random.default_rng(m * 10000 + k * 100 + n)
    x = rng.standard_normal((m, k)).astype(np.float32) * 3
    w = rng.standard_normal((n, k)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32) if bias else None
    wp = _f32.pack_dense(w)
    assert wp.shape == ((n + 15) // 16, k, 16)
    out = np.full((m, n), np.nan, np.float32)
    _f32.dense_packed(x, wp, b, out, act, threads)
    want = x.astype(np.float64) @ w.T + (0 if b is None else b)
    want = {0: want, 1: np.maximum(want, 0), 2: np.clip(want, 0, 6)}[act]
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)
    with pytest.raises(ValueError, match="dense_packed: x"):
        _f32.dense_packed(x, wp, b, np.empty((m + 1, n), np.float32), act)


@settings(max_examples=30, deadline=None)
@given(m=st.integers(1, 17), k=st.integers(1, 30), n=st.integers(1, 70),
       act=st.sampled_from([0, 1, 2]), threads=st.sampled_from([1, 2]))
def test_gemm_cols_matches_numpy_reading_padded_columns_in_place(m, k, n, act, threads):
    rng = np.random.default_rng(m * 10000 + k * 100 + n)
    a = rng.standard_normal((m, k)).astype(np.float32) * 3
    b = np.full((k, -(-n // 16) * 16), 1e30, np.float32)  # the padding is never used
    b[:, :n] = rng.standard_normal((k, n))
    out = np.full((m, n), np.nan, np.float32)
    _f32.gemm_cols(a, b, out, act, threads)
    want = a.astype(np.float64) @ b[:, :n]
    want = {0: want, 1: np.maximum(want, 0), 2: np.clip(want, 0, 6)}[act]
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)
    with pytest.raises(ValueError, match="gemm_cols: a"):
        _f32.gemm_cols(a, b[:, :n - 1].copy() if n % 16 == 1 and n > 1 else b[:k - 1].copy()
                       if k > 1 else np.zeros((2, b.shape[1]), np.float32), out, act)

def test_threads_split_large_products_the_same_way():
    """Above the size where a second thread runs (4M multiply-adds), each output's sum
    is still computed in the same order."""
    rng = np.random.default_rng(8)
    x, w = rng.standard_normal(2048).astype(np.float32), rng.standard_normal(
        (2048, 2100)).astype(np.float32)
    one, two = np.empty(2100, np.float32), np.empty(2100, np.float32)
    _f32.dense_vec(x, w, None, one, 1, 1)
    _f32.dense_vec(x, w, None, two, 1, 2)
    np.testing.assert_array_equal(one, two)
    a = rng.standard_normal((40, 2048)).astype(np.float32)
    wp = _f32.pack_dense(w[:, :64].T.copy())
    outs = [np.empty((40, 64), np.float32) for _ in range(4)]
    _f32.dense_packed(a, wp, None, outs[0], 0, 1)
    _f32.dense_packed(a, wp, None, outs[1], 0, 2)
    _f32.gemm_cols(a, w[:, :64].copy(), outs[2], 0, 1)
    _f32.gemm_cols(a, w[:, :64].copy(), outs[3], 0, 2)
    for o in outs[1:]:
        np.testing.assert_array_equal(o, outs[0])
    x, w = x[:300], w[:300, :333].copy()
    one = np.empty(333, np.float32)
    with pytest.raises(ValueError, match="dense_vec: x"):
        _f32.dense_vec(x[:5].copy(), w, None, one, 0)
    with pytest.raises(ValueError, match="dense_vec: bias of 3 for 333"):
        _f32.dense_vec(x, w, np.zeros(3, np.float32), one, 0)


def _cnn(batch, conv_attrs, act="RELU", pool="MaxPool", bias=True, out_is_view=False):
    rng = np.random.default_rng(4)
    conv = {"out_channel": 4, "kernel_size": (3, 3), "mode": 1, "pad_mode": "valid",
            "pad": (0, 0, 0, 0), "stride": (1, 1), "dilation": (1, 1), "group": 1,
            "activation_type": act, **conv_attrs}
    consts = {"w": rng.standard_normal((4, 2, 3, 3)).astype(np.float32),
              "b": rng.standard_normal(4).astype(np.float32)}
    nodes = [Node("Conv2DFusion", ["x", "w", "b" if bias else ""], ["c"], conv, "conv"),
             Node(pool, ["c"], ["p"], {"kernel_size": (2, 2), "strides": (2, 2),
                                       "pad_mode": "VALID"}, "pool")]
    x = Value("x", (batch, 2, 11, 10), "float32")
    shape = Executor(Graph([x], [Value("p", (), "float32")], nodes, consts, "t")).specs["p"]
    flat = int(np.prod(shape.shape[1:]))
    consts.update(fw=rng.standard_normal((3, flat)).astype(np.float32),
                  fb=rng.standard_normal(3).astype(np.float32))
    nodes += [Node("Reshape", ["p"], ["r"], {"input_shape": (batch, flat)}, "flat"),
              Node("FullConnection", ["r", "fw", "fb"], ["y"],
                   {"activation_type": "RELU6"}, "fc")]
    outs = [Value("y", (batch, 3), "float32")]
    if out_is_view:
        nodes.append(Node("Reshape", ["y"], ["z"], {"input_shape": (batch * 3,)}, "out"))
        outs.append(Value("z", (batch * 3,), "float32"))
    return Graph([x], outs, nodes, consts, "cnn")


def _fused(g):
    """``g`` after the converter's Conv+Pool fusion (its tensors typed first)."""
    from ms_lite.converter.passes.conv_pool import fuse_conv_pool
    from ms_lite.converter.report import Report

    specs = Executor(g).specs
    g.values = {o: Value(o, specs[o].shape, specs[o].dtype.np.name)
                for n in g.nodes for o in n.outputs}
    return fuse_conv_pool(g, Report(g))


@pytest.mark.parametrize("batch", [1, 3])
@pytest.mark.parametrize("conv_attrs", [{}, {"stride": (2, 1)}, {"dilation": (2, 1)},
                                        {"pad_mode": "pad", "pad": (1, 0, 2, 1)},
                                        {"pad_mode": "same"}])
@pytest.mark.parametrize("act,pool", [("RELU", "MaxPool"), ("RELU6", "MaxPool"),
                                      ("RELU", "AvgPool"), ("NO_ACTIVATION", "MaxPool")])
@pytest.mark.parametrize("fuse", [False, True])
def test_plan_equals_the_executor(batch, conv_attrs, act, pool, fuse):
    g = _cnn(batch, conv_attrs, act, pool)
    if fuse:
        g = _fused(g)
        assert [n.op for n in g.nodes][0] == (
            "Conv2DPoolFusion" if pool == "MaxPool" else "Conv2DFusion")
    x = (np.random.default_rng(5).standard_normal((batch, 2, 11, 10)) * 3).astype(np.float32)
    ex = Executor(g)
    plan = Plan(ex, threads=2)
    # conv and pool (one fused node or two) and the Dense; the Reshape is a view
    assert plan.fast_steps == len(ex.steps) - 1 == (2 if fuse and pool == "MaxPool" else 3)
    np.testing.assert_allclose(plan.run([x])[0], ex.run([x])[0], rtol=1e-5, atol=1e-5)


def test_plan_outputs_are_copies_and_views_share_buffers():
    g = _cnn(1, {}, out_is_view=True)
    ex = Executor(g)
    plan = Plan(ex)
    x = np.ones((1, 2, 11, 10), np.float32)
    y, z = plan.run([x])
    np.testing.assert_array_equal(z, y.reshape(-1))
    np.testing.assert_allclose(y, ex.run([x])[0], rtol=1e-5, atol=1e-5)
    y2, _ = plan.run([-x])
    assert not np.array_equal(y, y2)  # the first result was a copy
    # shape-only steps are views: no call runs for them
    assert len(plan.calls) == 1 + 1 + 1  # the convolution; pool; the Dense's one pass


def test_unfused_operators_run_their_registry_kernels():
    rng = np.random.default_rng(6)
    g = Graph([Value("x", (2, 5), "float32"), Value("m", (2, 5), "int32")],
              [Value("y", (2, 5), "float32"), Value("s", (2, 5), "float32")],
              [Node("Sigmoid", ["x"], ["a"], {}, "sig"),
               Node("Add", ["a", "m"], ["y"], {}, "add"),  # int32 input: cast per call
               Node("Mul", ["y", "k"], ["s"], {}, "mul")],
              {"k": rng.standard_normal((1, 5)).astype(np.float32)}, "misc")
    ex = Executor(g)
    plan = Plan(ex)
    assert plan.fast_steps == 0
    x = rng.standard_normal((2, 5)).astype(np.float32)
    m = rng.integers(-3, 3, (2, 5)).astype(np.int32)
    for got, want in zip(plan.run([x, m]), ex.run([x, m])):
        np.testing.assert_array_equal(got, want)


def test_thread_num_holds_for_ms_ops_kernels_during_a_run_only():
    from ms_ops.kernels import threads
    from ms_tensor.context import get_context

    g = Graph([Value("x", (2, 5), "float32")], [Value("y", (2, 5), "float32")],
              [Node("Sigmoid", ["x"], ["y"], {}, "sig")], {}, "one")
    ex = Executor(g)
    seen, kernel = [], ex.steps[0].kernel

    def spy(*args, **kwargs):
        seen.append(threads.num_threads())
        return kernel(*args, **kwargs)

    ex.steps[0].kernel = spy
    before, setting = threads.num_threads(), get_context("runtime_num_threads")
    x = np.zeros((2, 5), np.float32)
    np.testing.assert_array_equal(Plan(ex, threads=3).run([x])[0], np.full((2, 5), 0.5))
    Plan(ex, threads=0).run([x])
    assert seen == [3, before]  # 0: the policy's count, untouched
    assert threads.num_threads() == before
    assert get_context("runtime_num_threads") == setting


def test_kernels_refuse_arrays_they_cannot_write_or_read():
    a = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="bias_act: out must be a C-contiguous writable 2-d "
                                         "float32 array"):
        _f32.bias_act(a.astype(np.float64), None, 1)
    ro = a.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        _f32.bias_act(ro, None, 1)
    x, wm = np.zeros((2, 1, 5, 5), np.float32), np.zeros((3, 9), np.float32)
    with pytest.raises(ValueError, match=r"conv: x \(2, 1, 5, 5\), wm \(3, 9\)"):
        _f32.conv(x, wm, np.zeros((9, 16), np.float32), np.zeros((2, 3, 8), np.float32),
                  3, 3, 1, 1, 1, 1, 0, 0, 3, 3, 0)
    with pytest.raises(ValueError, match="pool: x must be a C-contiguous 3-d"):
        _f32.pool(np.zeros((2, 4, 4), np.float32)[:, ::2], np.zeros((2, 1, 1), np.float32),
                  2, 2, 2, 2, False, 0)


def test_pool_windows_take_mindspores_forms_and_refuse_what_they_cannot_run():
    from ms_lite.kernels.windows import Window, valid_window

    assert valid_window("MaxPool", (1, 2, 7, 6), {"kernel_size": (1, 1, 3, 2),
                                                   "strides": 2}) == Window(3, 2, 2, 2, 3, 3)
    with pytest.raises(ValueError, match="only 'VALID'"):
        valid_window("AvgPool", (1, 2, 7, 6), {"kernel_size": 2, "pad_mode": "SAME"})
    with pytest.raises(ValueError, match="larger than the input"):
        valid_window("MaxPool", (1, 2, 3, 6), {"kernel_size": 4})
