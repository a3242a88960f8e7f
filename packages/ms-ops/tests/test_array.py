import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ms_ops as ops
from ms_ops.defs import array as A
from ms_ops.defs import array_create as AC
from ms_ops.defs import array_join as AJ
from ms_ops.defs import array_reorder as AR
from ms_ops.defs import array_slice as AS
from ms_ops.testing import check_bprop
from ms_tensor import Tensor, bool_, float16, float32, float64, int32, int64

RNG = np.random.default_rng(0)


def _x(shape, dtype=np.float32):
    return (RNG.standard_normal(shape) * 3).astype(dtype)


# -- layout operators: one record each (op, input shape, static args, attrs, numpy) ----------
LAYOUT = [
    ("reshape", A.Reshape, (2, 3, 4), ((4, -1),), {}, lambda x: x.reshape(4, -1)),
    ("reshape_0d", A.Reshape, (1, 1), ((),), {}, lambda x: x.reshape(())),
    ("transpose", A.Transpose, (2, 3, 4), ((2, 0, 1),), {}, lambda x: x.transpose(2, 0, 1)),
    ("transpose_neg", A.Transpose, (2, 3, 4), ((-1, 0, 1),), {}, lambda x: x.transpose(2, 0, 1)),
    ("expand_dims", A.ExpandDims, (2, 3), (-1,), {}, lambda x: x[..., None]),
    ("expand_dims_front", A.ExpandDims, (2, 3), (-3,), {}, lambda x: x[None]),
    ("squeeze_all", A.Squeeze, (1, 3, 1), (), {}, np.squeeze),
    ("squeeze_axis", A.Squeeze, (1, 3, 1), (), {"axis": -1}, lambda x: x.squeeze(-1)),
    ("squeeze_keeps_other", A.Squeeze, (1, 3, 1), (), {"axis": (0, 1)}, lambda x: x.squeeze(0)),
    ("flatten", A.Flatten, (2, 3, 4), (), {}, lambda x: x.reshape(2, 12)),
    ("flatten_1d", A.Flatten, (3,), (), {}, lambda x: x.reshape(3, 1)),
    ("tile", AR.Tile, (2, 3), ((2, 1),), {}, lambda x: np.tile(x, (2, 1))),
    ("tile_short", AR.Tile, (2, 3), ((3,),), {}, lambda x: np.tile(x, 3)),
    ("tile_long", AR.Tile, (2, 3), ((2, 1, 2),), {}, lambda x: np.tile(x, (2, 1, 2))),
    ("broadcast_to", A.BroadcastTo, (3, 1), (), {"shape": (2, 3, 4)},
     lambda x: np.broadcast_to(x, (2, 3, 4))),
    ("broadcast_to_keep", A.BroadcastTo, (3, 1), (), {"shape": (2, -1, 4)},
     lambda x: np.broadcast_to(x, (2, 3, 4))),
    ("reverse", AR.ReverseV2, (2, 3, 4), (), {"axis": (0, -1)}, lambda x: x[::-1, :, ::-1]),
    ("roll_flat", AR.Roll, (2, 3), (), {"shifts": 1}, lambda x: np.roll(x, 1)),
    ("roll_dims", AR.Roll, (2, 3), (), {"shifts": (1, -1), "dims": (0, 1)},
     lambda x: np.roll(x, (1, -1), (0, 1))),
    ("identity", A.Identity, (2, 3), (), {}, lambda x: x),
]
_IDS = [r[0] for r in LAYOUT]


@pytest.mark.parametrize("name,op,shape,args,attrs,ref", LAYOUT, ids=_IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_layout_matches_numpy(name, op, shape, args, attrs, ref, dtype):
    x = _x(shape).astype(dtype)
    out = op(Tensor(x), *args, **attrs)
    want = ref(x)
    assert out.shape == want.shape and out.asnumpy().dtype == dtype
    np.testing.assert_array_equal(out.asnumpy(), want)


@pytest.mark.parametrize("name,op,shape,args,attrs,ref", LAYOUT, ids=_IDS)
def test_layout_gradients(name, op, shape, args, attrs, ref):
    check_bprop(op, _x(shape, np.float64), *args, attrs=attrs)


@pytest.mark.parametrize("call,exc,match", [
    (lambda x: A.Reshape(x, (4,)), ValueError,
     r"Reshape: cannot reshape input of shape \(2, 3\) \(size 6\) to \(4,\)"),
    (lambda x: A.Transpose(x, (0, 0)), ValueError,
     r"Transpose: input_perm \(0, 0\) is not a permutation of the 2 axes"),
    (lambda x: A.Transpose(x, (0, 2)), ValueError, "Transpose: input_perm 2 is out of range"),
    (lambda x: A.ExpandDims(x, 3), ValueError,
     r"ExpandDims: axis 3 is out of range for input shape \(2, 3\) \(expected -3 <= axis <= 2\)"),
    (lambda x: AR.Tile(x, (2, -1)), ValueError, "Tile: 'dims' must be >= 0, got -1"),
    (lambda x: A.BroadcastTo(x, (3, 3)), ValueError,
     r"BroadcastTo: cannot broadcast input of shape \(2, 3\) to \(3, 3\): dimension 0 is 2"),
    (lambda x: A.BroadcastTo(x, (3,)), ValueError, "BroadcastTo: .* fewer dimensions"),
    (lambda x: AR.Roll(x, shifts=(1, 2), dims=(0,)), ValueError,
     r"Roll: shifts \(1, 2\) and dims \(0,\) must have the same length"),
    (lambda x: A.Squeeze(x, axis=2), ValueError, "Squeeze: axis 2 is out of range for a 2-d"),
    (lambda x: AR.ReverseV2(x, axis=(5,)), ValueError, "ReverseV2: axis 5 is out of range"),
    (lambda x: A.Cast(x, "float32"), TypeError, "Cast: dtype must be a microspore dtype"),
    (lambda x: A.Flatten(x[0, 0]), ValueError, "Flatten: input must have at least 1 dimension"),
])
def test_layout_errors_name_operator_and_shapes(call, exc, match):
    with pytest.raises(exc, match=match):
        call(Tensor(_x((2, 3))))


def test_cast_gradient_returns_the_input_dtype():
    from ms_tensor import registry

    check_bprop(A.Cast, _x((2, 3), np.float64), float64)
    x = Tensor(_x((2, 3)))
    (g, _) = registry.load().bprop(A.Cast)(x, float64, out=A.Cast(x, float64),
                                           dout=Tensor(np.ones((2, 3))))
    assert g.dtype == float32


def test_views_and_copies():
    x = Tensor(_x((2, 3)))
    b = A.BroadcastTo(x, (4, 2, 3)).asnumpy()
    assert b.flags.writeable and not np.shares_memory(b, x.asnumpy())  # materialized
    c = A.Identity(x).asnumpy()
    assert not np.shares_memory(c, x.asnumpy())
    assert A.Cast(x, float64).dtype == float64


@settings(max_examples=25, deadline=None)
@given(st.permutations(range(4)))
def test_transpose_round_trips(perm):
    x = _x((2, 3, 4, 5))
    out = A.Transpose(Tensor(x), tuple(perm))
    back = A.Transpose(out, tuple(int(i) for i in np.argsort(perm)))
    np.testing.assert_array_equal(out.asnumpy(), x.transpose(perm))
    np.testing.assert_array_equal(back.asnumpy(), x)


# -- Select / where -----------------------------------------------------------------------
def test_select_broadcasts_and_promotes():
    cond = np.array([[True], [False]])
    x, y = _x((2, 3)), np.arange(3, dtype=np.int32)
    out = ops.where(Tensor(cond), Tensor(x), Tensor(y))
    assert out.dtype == float32
    np.testing.assert_array_equal(out.asnumpy(), np.where(cond, x, y))
    assert ops.where(Tensor(cond), Tensor(y), 1.5).dtype == float32
    assert ops.select(Tensor([True, False]), 1, 0).asnumpy().tolist() == [1, 0]
    assert ops.Select()(Tensor([True, False]), Tensor([1.0, 2.0]), Tensor([3.0, 4.0])) \
        .asnumpy().tolist() == [1.0, 4.0]


def test_select_gradient_and_errors():
    cond = RNG.standard_normal((2, 3)) > 0
    check_bprop(AR.Select, cond, _x((2, 3), np.float64), _x((3,), np.float64))
    with pytest.raises(TypeError, match="Select: input 'condition' has dtype Float32, "
                                        "expected Bool"):
        ops.where(Tensor(_x((2,))), Tensor(_x((2,))), 0.0)
    with pytest.raises(ValueError, match=r"Select: condition shape \(2,\) and x shape \(3,\)"):
        ops.where(Tensor([True, False]), Tensor(_x((3,))), 0.0)


# -- functional and Tensor forms ---------------------------------------------------------------
def test_functional_layout_forms():
    x = _x((2, 3, 4))
    t = Tensor(x)
    np.testing.assert_array_equal(ops.reshape(t, [4, 6]).asnumpy(), x.reshape(4, 6))
    np.testing.assert_array_equal(ops.transpose(t, (1, 0, 2)).asnumpy(), x.transpose(1, 0, 2))
    np.testing.assert_array_equal(ops.permute(t, (2, 0, 1)).asnumpy(), x.transpose(2, 0, 1))
    np.testing.assert_array_equal(ops.swapaxes(t, 0, -1).asnumpy(), x.swapaxes(0, -1))
    np.testing.assert_array_equal(ops.moveaxis(t, 0, -1).asnumpy(), np.moveaxis(x, 0, -1))
    np.testing.assert_array_equal(ops.moveaxis(t, (0, 1), (2, 0)).asnumpy(),
                                  np.moveaxis(x, (0, 1), (2, 0)))
    np.testing.assert_array_equal(ops.flip(t, (0, 2)).asnumpy(), np.flip(x, (0, 2)))
    np.testing.assert_array_equal(ops.flip(t, -1).asnumpy(), np.flip(x, -1))
    np.testing.assert_array_equal(ops.roll(t, 2, 1).asnumpy(), np.roll(x, 2, 1))
    np.testing.assert_array_equal(ops.tile(t, (1, 2)).asnumpy(), np.tile(x, (1, 2)))
    assert ops.broadcast_to(Tensor(_x((3, 1))), (2, -1, 4)).shape == (2, 3, 4)
    assert ops.unsqueeze(t, 1).shape == (2, 1, 3, 4)
    assert ops.expand_dims(t, 0).shape == (1, 2, 3, 4)
    assert ops.squeeze(Tensor(_x((1, 2, 1)))).shape == (2,)
    assert ops.squeeze(Tensor(_x((1, 2, 1))), 1).shape == (1, 2, 1)  # not size 1: kept
    assert ops.cast(t, float16).dtype == float16
    assert ops.identity(t).asnumpy().tolist() == x.tolist()


def test_flatten_follows_mindspore():
    x = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    assert ops.flatten(x).shape == (2, 12)
    assert ops.flatten(x, start_dim=0, end_dim=1).shape == (6, 4)
    assert ops.flatten(Tensor(3.0)).shape == (1,)
    f = ops.flatten(x, order="F")  # MindSpore 2.10's values
    assert f.shape == (4, 6) and f.asnumpy()[0].tolist() == [0, 12, 4, 16, 8, 20]
    assert ops.Flatten()(x).shape == (2, 12)
    with pytest.raises(ValueError, match="flatten: start_dim 2 comes after end_dim 1"):
        ops.flatten(x, start_dim=2, end_dim=1)


def test_tensor_layout_methods():
    x = _x((2, 3))
    t = Tensor(x)
    assert t.reshape(3, -1).shape == (3, 2) and t.reshape((3, 2)).shape == (3, 2)
    assert t.view(6).shape == (6,) and t.view((1, 6)).shape == (1, 6)
    np.testing.assert_array_equal(t.transpose().asnumpy(), x.T)
    np.testing.assert_array_equal(t.transpose(1, 0).asnumpy(), x.T)
    np.testing.assert_array_equal(t.permute(1, 0).asnumpy(), x.T)
    np.testing.assert_array_equal(t.T.asnumpy(), x.T)
    assert t.expand_dims(0).shape == (1, 2, 3) and t.unsqueeze(-1).shape == (2, 3, 1)
    assert Tensor(_x((1, 3))).squeeze().shape == (3,)
    assert Tensor(_x((2, 3, 4))).flatten().shape == (24,)
    assert Tensor(_x((2, 3, 4))).flatten(start_dim=1).shape == (2, 12)
    assert t.astype(float16).dtype == float16 and t.astype("int32").dtype == int32
    assert t.astype(np.float64).dtype == float64
    assert t.astype(float32, copy=False) is t and t.astype(float32) is not t
    np.testing.assert_array_equal(t.swapaxes(0, 1).asnumpy(), x.T)
    assert t.broadcast_to((4, 2, 3)).shape == (4, 2, 3)
    np.testing.assert_array_equal(t.tile((2, 2)).asnumpy(), np.tile(x, (2, 2)))
    np.testing.assert_array_equal(t.ravel().asnumpy(), x.ravel())
    np.testing.assert_array_equal(t.flip(0).asnumpy(), x[::-1])
    np.testing.assert_array_equal(t.roll(1).asnumpy(), np.roll(x, 1))
    assert Tensor(_x((2, 3, 4))).moveaxis(0, -1).shape == (3, 4, 2)


@pytest.mark.parametrize("repeats,axis", [(2, None), (2, 1), (3, -2), ([1, 0, 2], 1),
                                          ((2,), 0), (0, 0)])
def test_tensor_repeat_is_numpy_repeat(repeats, axis):
    x = _x((2, 3))
    np.testing.assert_array_equal(Tensor(x).repeat(repeats, axis).asnumpy(),
                                  np.repeat(x, repeats, axis))


def test_tensor_repeat_rejects_bad_counts():
    with pytest.raises(ValueError, match=r"repeat: repeats must be a non-negative int or 3 of "
                                         r"them for axis 1 of shape \(2, 3\)"):
        Tensor(_x((2, 3))).repeat([1, 2], 1)


# -- joining and splitting ------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_matches_numpy(axis):
    parts = [_x((2, 3, 4)), _x((2, 3, 4)), _x((2, 3, 4))]
    parts[1] = np.concatenate([parts[1], parts[1]], axis)  # a longer middle part
    ts = [Tensor(p) for p in parts]
    want = np.concatenate(parts, axis)
    np.testing.assert_array_equal(ops.concat(ts, axis).asnumpy(), want)
    np.testing.assert_array_equal(ops.cat(tuple(ts), axis).asnumpy(), want)
    np.testing.assert_array_equal(ops.Concat(axis)(ts).asnumpy(), want)
    np.testing.assert_array_equal(ops.Concat(axis=axis)(ts[0], ts[2]).asnumpy(),
                                  np.concatenate([parts[0], parts[2]], axis))


def test_concat_of_many_and_of_one():
    parts = [Tensor(np.full((1, 2), i, np.int32)) for i in range(7)]
    out = ops.concat(parts)
    assert out.dtype == int32
    assert out.asnumpy()[:, 0].tolist() == list(range(7))
    single = ops.concat([parts[3]])
    assert single is not parts[3] and single.asnumpy().tolist() == [[3, 3]]


def test_concat_gradient_and_errors():
    check_bprop(AJ.Concat, _x((2, 3), np.float64), _x((2, 1), np.float64), attrs={"axis": -1})
    a, b = Tensor(_x((2, 3))), Tensor(_x((3, 3)))
    with pytest.raises(ValueError, match=r"Concat: tensors\[1\] shape \(3, 3\) does not match "
                                         r"tensors\[0\] shape \(2, 3\) outside axis 1"):
        ops.concat((a, b), 1)
    with pytest.raises(ValueError, match=r"Concat: inputs\[1\] shape \(3, 3\)"):
        AJ.Concat(a, b, axis=1)
    with pytest.raises(TypeError, match=r"Concat: tensors\[1\] has dtype Int32, expected "
                                        r"Float32"):
        ops.concat((a, Tensor(np.ones((2, 3), np.int32))))
    with pytest.raises(ValueError, match="Concat: cannot concatenate 0-d tensors"):
        ops.concat((Tensor(1.0), Tensor(2.0)))
    with pytest.raises(TypeError, match="Concat: tensors must be a non-empty list"):
        ops.concat([])
    with pytest.raises(ValueError, match="Concat: axis 2 is out of range for a 2-d input"):
        ops.concat((a, a), 2)


@pytest.mark.parametrize("axis", [0, 1, -1, -3])
def test_stack_matches_numpy(axis):
    parts = [_x((2, 3)) for _ in range(3)]
    want = np.stack(parts, axis)
    np.testing.assert_array_equal(ops.stack([Tensor(p) for p in parts], axis).asnumpy(), want)
    np.testing.assert_array_equal(ops.Stack(axis)([Tensor(p) for p in parts]).asnumpy(), want)


def test_stack_errors():
    with pytest.raises(ValueError, match=r"Stack: tensors\[1\] shape \(3,\) does not match "
                                         r"tensors\[0\] shape \(2,\)"):
        ops.stack([Tensor(_x((2,))), Tensor(_x((3,)))])
    with pytest.raises(TypeError, match=r"Stack: tensors\[1\] has dtype Int32"):
        ops.stack([Tensor(_x((2,))), Tensor(np.ones(2, np.int32))])
    with pytest.raises(ValueError, match="Stack: axis 3 is out of range"):
        ops.stack([Tensor(_x((2,)))], 3)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unstack_matches_numpy_and_gradient(axis):
    x = _x((2, 3, 2))
    parts = ops.unstack(Tensor(x), axis)
    assert len(parts) == x.shape[axis]
    for i, p in enumerate(parts):
        np.testing.assert_array_equal(p.asnumpy(), np.take(x, i, axis))
    assert len(ops.Unstack(axis=axis)(Tensor(x))) == x.shape[axis]
    check_bprop(AJ.Unstack, x.astype(np.float64), attrs={"axis": axis})
    with pytest.raises(ValueError, match=r"Unstack: num 5 does not match axis 0 of input shape"):
        AJ.Unstack(Tensor(x), axis=0, num=5)


@pytest.mark.parametrize("axis,num", [(0, 2), (1, 3), (-1, 1)])
def test_split_matches_numpy_and_gradient(axis, num):
    x = _x((2, 3, 3))
    parts = ops.Split(axis, num)(Tensor(x))
    for p, w in zip(parts, np.split(x, num, axis)):
        np.testing.assert_array_equal(p.asnumpy(), w)
    check_bprop(AJ.Split, x.astype(np.float64), attrs={"axis": axis, "output_num": num})


def test_split_v_matches_numpy_and_gradient():
    x = _x((2, 6))
    parts = ops.SplitV((1, -1, 2), 1, 3)(Tensor(x))
    assert [p.shape for p in parts] == [(2, 1), (2, 3), (2, 2)]
    np.testing.assert_array_equal(parts[1].asnumpy(), x[:, 1:4])
    check_bprop(AJ.SplitV, x.astype(np.float64),
                attrs={"size_splits": (2, 4), "split_dim": -1, "num_split": 2})


def test_split_errors():
    x = Tensor(_x((2, 3)))
    with pytest.raises(ValueError, match=r"Split: axis 1 of input shape \(2, 3\) \(length 3\) "
                                         r"cannot be split into 2 equal parts"):
        ops.Split(1, 2)(x)
    with pytest.raises(ValueError, match=r"SplitV: size_splits \(1, 1\) sum to 2, but the axis "
                                         r"has length 3"):
        ops.SplitV((1, 1), 1, 2)(x)
    with pytest.raises(ValueError, match=r"SplitV: size_splits \(-1, -1\) may contain at most"):
        ops.SplitV((-1, -1), 1, 2)(x)


def test_functional_split_and_chunk_follow_mindspore():
    x = Tensor(np.arange(5))
    assert [p.asnumpy().tolist() for p in ops.split(x, 2)] == [[0, 1], [2, 3], [4]]
    assert [p.asnumpy().tolist() for p in ops.split(x, [1, 4])] == [[0], [1, 2, 3, 4]]
    assert [p.asnumpy().tolist() for p in ops.chunk(x, 3)] == [[0, 1], [2, 3], [4]]
    assert [p.shape for p in ops.chunk(Tensor(np.arange(6)), 4)] == [(2,), (2,), (2,)]
    assert [p.shape for p in Tensor(_x((2, 4))).split(2, axis=1)] == [(2, 2), (2, 2)]
    assert len(Tensor(_x((2, 4))).chunk(2)) == 2


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=5), st.integers(-2, 1))
def test_split_then_concat_round_trips(sizes, axis):
    shape = [2, 2]
    shape[axis] = sum(sizes)
    x = _x(tuple(shape))
    parts = ops.split(Tensor(x), sizes, axis)
    np.testing.assert_array_equal(ops.concat(parts, axis).asnumpy(), x)


# -- slicing and padding -----------------------------------------------------------------------
def test_slice_matches_numpy_gradient_and_errors():
    x = _x((3, 4, 5))
    out = ops.slice(Tensor(x), (1, 0, 2), (2, -1, 3))
    np.testing.assert_array_equal(out.asnumpy(), x[1:3, :, 2:5])
    assert ops.Slice()(Tensor(x), [0, 1, 1], [1, 2, 2]).shape == (1, 2, 2)
    check_bprop(AS.Slice, x.astype(np.float64), (1, 1, 0), (1, 2, -1))
    with pytest.raises(ValueError, match=r"Slice: begin \(0, 3, 0\) and size \(1, 2, 1\) run "
                                         r"past axis 1 of input shape \(3, 4, 5\)"):
        ops.slice(Tensor(x), (0, 3, 0), (1, 2, 1))
    with pytest.raises(ValueError, match="Slice: begin .* must have one entry per axis"):
        ops.slice(Tensor(x), (0,), (1,))


STRIDED = [  # begin, end, strides, masks, numpy index
    ((0, 2), (2, 0), (1, -1), {}, (slice(0, 2), slice(2, 0, -1))),
    ((1, 0), (2, 2), (1, 1), {"begin_mask": 1, "end_mask": 2, "shrink_axis_mask": 1},
     (0, slice(0, None))),
    ((0, 1), (1, 3), (1, 1), {"ellipsis_mask": 1}, (Ellipsis, slice(1, 3))),
    ((0, 0, 1), (1, 2, 3), (1, 1, 2), {"new_axis_mask": 2}, (slice(0, 1), None, slice(1, 3, 2))),
    ((-1,), (-3,), (-1,), {}, (slice(-1, -3, -1),)),
    ((1, 0, 0), (2, 3, 4), (1, 1, 1), {"shrink_axis_mask": 5}, (1, slice(0, 3), 0)),
    ((0, 10), (5, -10), (2, -3), {}, (slice(0, 5, 2), slice(10, -10, -3))),
]


@pytest.mark.parametrize("begin,end,strides,masks,index", STRIDED)
def test_strided_slice_matches_numpy_and_gradient(begin, end, strides, masks, index):
    x = _x((2, 3, 4))
    out = ops.StridedSlice(**masks)(Tensor(x), begin, end, strides)
    np.testing.assert_array_equal(out.asnumpy(), x[index])
    np.testing.assert_array_equal(
        ops.strided_slice(Tensor(x), begin, end, strides, **masks).asnumpy(), x[index])
    check_bprop(AS.StridedSlice, x.astype(np.float64), begin, end, strides, attrs=masks)


def test_strided_slice_matches_mindspore_values_and_errors():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert ops.StridedSlice()(x, (0, 2), (2, 0), (1, -1)).asnumpy().tolist() == \
        [[2, 1], [5, 4]]
    assert ops.StridedSlice(begin_mask=1, end_mask=2, shrink_axis_mask=1)(
        x, (1, 0), (2, 2), (1, 1)).asnumpy().tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match=r"StridedSlice: strides \(1, 0\) must not contain 0"):
        ops.StridedSlice()(x, (0, 0), (1, 1), (1, 0))
    with pytest.raises(ValueError, match=r"StridedSlice: index 5 is out of bounds for axis 0 "
                                         r"with size 2"):
        ops.StridedSlice(shrink_axis_mask=1)(x, (5,), (6,), (1,))
    with pytest.raises(ValueError, match="StridedSlice: begin .* must have the same length"):
        ops.StridedSlice()(x, (0, 0), (1,), (1, 1))


def test_pad_matches_mindspore_gradient_and_errors():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = ops.Pad(((1, 0), (0, 2)))(Tensor(x))
    assert out.asnumpy().tolist() == [[0, 0, 0, 0, 0], [0, 1, 2, 0, 0], [3, 4, 5, 0, 0]]
    check_bprop(AS.Pad, x.astype(np.float64), attrs={"paddings": ((0, 1), (2, 1))})
    with pytest.raises(ValueError, match="Pad: 'paddings' must be >= 0, got -1"):
        ops.Pad(((0, -1), (0, 0)))(Tensor(x))
    with pytest.raises(ValueError, match=r"Pad: paddings \(\(1, 1\),\) must hold one"):
        ops.Pad(((1, 1),))(Tensor(x))


def test_functional_pad_follows_mindspore():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert ops.pad(x, (1, 2)).asnumpy().tolist() == [[0, 0, 1, 2, 0, 0], [0, 3, 4, 5, 0, 0]]
    assert ops.pad(x, (-1, 1, 1, 0), value=9.0).asnumpy().tolist() == \
        [[9, 9, 9], [1, 2, 9], [4, 5, 9]]
    # not contiguous: all befores (last axis first), then all afters
    split = ops.PadV3(paddings_contiguous=False)(x, (1, 0, 0, 2), 0)
    assert split.shape == (4, 4) and split.asnumpy()[0].tolist() == [0, 0, 1, 2]
    with pytest.raises(ValueError, match="pad: mode must be one of"):
        ops.pad(x, (1, 1), mode="wrap")
    with pytest.raises(ValueError, match=r"PadV3: paddings \(-2, -2\) crop more than input "
                                         r"shape \(2, 3\) has"):
        ops.pad(x, (-2, -2))
    with pytest.raises(ValueError, match=r"PadV3: paddings \(1, 1, 1\) must have an even length"):
        ops.pad(x, (1, 1, 1))


@pytest.mark.parametrize("paddings", [(1, 2), (-1, 1, 1, 0), (0, -2, 2, 1)])
def test_pad_v3_gradient(paddings):
    check_bprop(AS.PadV3, _x((3, 4), np.float64), paddings, 0.5)


# -- creation ---------------------------------------------------------------------------------
def test_fill_full_and_dtypes():
    assert ops.fill(int32, (2,), 3.7).asnumpy().tolist() == [3, 3]
    out = ops.Fill()(float32, (2, 3), 2)
    assert out.dtype == float32 and out.asnumpy().tolist() == [[2.0] * 3] * 2
    assert ops.full((2,), 3).dtype == int64
    assert ops.full((2,), 2.5).dtype == float32
    assert ops.full(2, True).dtype == bool_
    assert ops.full((2,), Tensor(2.5, float16)).dtype == float16
    assert ops.full((2,), 1, dtype=float64).dtype == float64
    like = ops.full_like(Tensor(np.zeros((2, 3), np.int32)), 2.5)
    assert like.dtype == int32 and like.asnumpy().tolist() == [[2] * 3] * 2


def test_fill_gradient_and_errors():
    check_bprop(AC.Fill, float64, (2, 3), np.array(1.5))
    with pytest.raises(ValueError, match=r"Fill: value must hold one element, got shape \(2,\)"):
        ops.fill(float32, (2,), Tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="Fill: 'shape' must be >= 0, got -2"):
        ops.fill(float32, (2, -2), 1.0)
    with pytest.raises(TypeError, match="Fill: type must be a microspore dtype"):
        ops.Fill()("float32", (2,), 1.0)


def test_zeros_ones_and_likes():
    assert ops.zeros((2, 3)).dtype == float32 and ops.zeros(2).shape == (2,)
    assert ops.ones(3, int32).asnumpy().tolist() == [1, 1, 1]
    assert ops.Zeros()((2,), int32).dtype == int32
    assert ops.Ones()((1, 2)).asnumpy().tolist() == [[1.0, 1.0]]
    x = Tensor(np.ones((2, 3), np.int32))
    assert ops.zeros_like(x).dtype == int32 and ops.zeros_like(x).asnumpy().sum() == 0
    assert ops.zeros_like(x, dtype=float32).dtype == float32
    assert ops.ones_like(x).asnumpy().tolist() == [[1] * 3] * 2
    assert ops.ones_like(x, dtype=float16).dtype == float16
    assert ops.ZerosLike()(x).shape == (2, 3) and ops.OnesLike()(x).dtype == int32
    out = ops.zeros((2,))
    out[0] = 5.0  # results are ordinary writable arrays
    assert out.asnumpy().tolist() == [5.0, 0.0]
    with pytest.raises(TypeError, match="Zeros: size must be an int or a tuple of ints"):
        ops.Zeros()("2")


@pytest.mark.parametrize("args,kwargs,dtype,want", [
    ((5,), {}, int64, [0, 1, 2, 3, 4]),
    ((0, 1, 0.3), {}, float32, np.arange(0, 1, 0.3)),
    ((5, 0, -2), {}, int64, [5, 3, 1]),
    ((0, 5, 2.0), {}, float32, [0, 2, 4]),
    ((0, 5), {"dtype": float32}, float32, [0, 1, 2, 3, 4]),
    ((5.0,), {}, float32, [0, 1, 2, 3, 4]),
    ((3, 3), {}, int64, []),
])
def test_arange_matches_mindspore(args, kwargs, dtype, want):
    out = ops.arange(*args, **kwargs)
    assert out.dtype == dtype
    np.testing.assert_allclose(out.asnumpy(), np.asarray(want, np.float32), rtol=1e-6)


def test_range_accepts_tensor_bounds_and_checks_them():
    out = ops.Range()(Tensor(0, int32), Tensor(5, int32), Tensor(2, int32))
    assert out.dtype == int64 and out.asnumpy().tolist() == [0, 2, 4]
    assert ops.range(Tensor(0.0), Tensor(1.0), Tensor(0.25)).asnumpy().tolist() == \
        [0, 0.25, 0.5, 0.75]
    with pytest.raises(ValueError, match="Range: step cannot be 0"):
        ops.arange(0, 5, 0)
    with pytest.raises(ValueError, match="Range: step 1 moves away from end 0 when starting"):
        ops.arange(5, 0, 1)
    with pytest.raises(ValueError, match="Range: the range has 10 elements, more than maxlen 4"):
        ops.range(0, 10, 1, maxlen=4)
    with pytest.raises(TypeError, match="Range: start must be an int or a float, got str"):
        ops.arange("0", 5)


def test_eye():
    assert ops.eye(2, 3).asnumpy().tolist() == [[1, 0, 0], [0, 1, 0]]
    assert ops.eye(2).dtype == float32 and ops.eye(2).shape == (2, 2)
    assert ops.eye(3, 2, int32).dtype == int32
    assert ops.Eye()(2, 2, int32).asnumpy().tolist() == [[1, 0], [0, 1]]
    with pytest.raises(ValueError, match="Eye: 'n' must be >= 0, got -1"):
        ops.eye(-1)


def test_one_hot_follows_mindspore():
    out = ops.one_hot(Tensor(np.array([0, 2, 5])), 3)
    assert out.dtype == int64 and out.asnumpy().tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 0]]
    out = ops.one_hot(Tensor(np.array([0, -1])), 3, Tensor(1.0), Tensor(0.0))
    assert out.dtype == float32 and out.asnumpy().tolist() == [[1, 0, 0], [0, 0, 0]]
    out = ops.one_hot(Tensor(np.array([[0, 1], [2, 0]])), 3, axis=0)
    assert out.asnumpy().tolist() == [[[1, 0], [0, 1]], [[0, 1], [0, 0]], [[0, 0], [1, 0]]]
    out = ops.OneHot(axis=1)(Tensor(np.array([[0, 1]], np.int32)), 2, 5.0, -1.0)
    assert out.shape == (1, 2, 2) and out.asnumpy().tolist() == [[[5, -1], [-1, 5]]]
    with pytest.raises(TypeError, match="OneHot: input 'indices' has dtype Float32"):
        ops.one_hot(Tensor([0.0, 1.0]), 3)
    with pytest.raises(ValueError, match=r"OneHot: axis 3 is out of range for indices of shape "
                                         r"\(2,\)"):
        ops.one_hot(Tensor([0, 1]), 3, axis=3)
