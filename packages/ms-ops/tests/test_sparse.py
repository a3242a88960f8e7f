"""COOTensor/CSRTensor/RowTensor and the sparse functions against dense numpy references;
gradients reach the stored values and the dense operands."""

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff import grad
from ms_ops.sparse_tensors import COOTensor, CSRTensor, RowTensor
from ms_tensor import Tensor

IDX = np.array([[0, 1], [1, 2], [0, 1]], np.int32)
VAL = np.array([1.0, -2.0, 3.0], np.float32)
D = np.arange(1, 9, dtype=np.float32).reshape(2, 4)


def _coo():
    return COOTensor(Tensor(IDX), Tensor(VAL), (2, 4))


def _csr():
    return CSRTensor(Tensor(np.array([0, 2, 3], np.int32)), Tensor(np.array([0, 3, 1], np.int32)),
                     Tensor(VAL), (2, 4))


def _dense_of_csr():
    out = np.zeros((2, 4), np.float32)
    out[0, 0], out[0, 3], out[1, 1] = VAL
    return out


def test_coo_dense_coalesce_csr_round_trip():
    coo = _coo()
    dense = np.zeros((2, 4), np.float32)
    np.add.at(dense, (IDX[:, 0], IDX[:, 1]), VAL)
    np.testing.assert_array_equal(coo.to_dense().asnumpy(), dense)
    merged = coo.coalesce()
    assert merged.indices.asnumpy().tolist() == [[0, 1], [1, 2]]
    np.testing.assert_array_equal(merged.values.asnumpy(), [4.0, -2.0])
    np.testing.assert_array_equal(coo.to_csr().to_dense().asnumpy(), dense)
    np.testing.assert_array_equal(ops.coo_relu(coo).values.asnumpy(), np.maximum(VAL, 0))
    np.testing.assert_array_equal(Tensor(dense).to_coo().to_dense().asnumpy(), dense)
    with pytest.raises(ValueError, match=r"COOTensor: indices must have shape \(N, 2\)"):
        COOTensor(Tensor(IDX[:, :1]), Tensor(VAL), (2, 4))


def test_csr_products_sums_softmax():
    csr, dense = _csr(), _dense_of_csr()
    np.testing.assert_array_equal(csr.to_dense().asnumpy(), dense)
    m = np.arange(8, dtype=np.float32).reshape(4, 2)
    np.testing.assert_allclose(ops.csr_mm(csr, Tensor(m)).asnumpy(), dense @ m)
    np.testing.assert_allclose(csr.mv(Tensor(m[:, :1])).asnumpy(), dense @ m[:, :1])
    np.testing.assert_allclose(csr.sum(1).asnumpy(), dense.sum(1, keepdims=True))
    np.testing.assert_allclose(ops.csr_reduce_sum(csr, 0).asnumpy(), dense.sum(0, keepdims=True))
    np.testing.assert_allclose(ops.csr_mul(csr, Tensor(D)).values.asnumpy(), [1.0, -8.0, 18.0])
    soft = ops.csr_softmax(csr).values.asnumpy()
    np.testing.assert_allclose(soft[:2].sum(), 1.0, rtol=1e-6)
    np.testing.assert_allclose(ops.csr_add(csr, csr, 1.0, 2.0).to_dense().asnumpy(), 3 * dense)
    np.testing.assert_array_equal(ops.csr2coo(csr.indptr, 3).asnumpy(), [0, 0, 1])
    np.testing.assert_array_equal(ops.coo2csr(Tensor(np.array([0, 0, 1])), 2).asnumpy(),
                                  [0, 2, 3])


def test_gradients_reach_values_and_dense_operands():
    m = Tensor(np.ones((4, 2), np.float32))

    def f(values, dense):
        csr = CSRTensor(Tensor(np.array([0, 2, 3], np.int32)),
                        Tensor(np.array([0, 3, 1], np.int32)), values, (2, 4))
        return ops.csr_mm(csr, dense).sum()

    gv, gd = grad(f, (0, 1))(Tensor(VAL), m)
    np.testing.assert_allclose(gv.asnumpy(), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(gd.asnumpy(), np.repeat(_dense_of_csr().sum(0)[:, None], 2, 1))
    g = grad(lambda v: COOTensor(Tensor(IDX), v, (2, 4)).to_dense().sum())(Tensor(VAL))
    np.testing.assert_allclose(g.asnumpy(), [1.0, 1.0, 1.0])


def test_concat_add_row_tensor_and_accessors():
    both = ops.coo_concat((_coo(), _coo()), 1)
    assert both.shape == (2, 8)
    np.testing.assert_array_equal(both.to_dense().asnumpy()[:, 4:], _coo().to_dense().asnumpy())
    dropped = ops.coo_add(_coo(), _coo(), Tensor(np.float32(3.0)))
    np.testing.assert_array_equal(dropped.values.asnumpy(), [-4.0, 6.0])
    rows = RowTensor(Tensor(np.array([1])), Tensor(np.array([[1.0, 2.0]], np.float32)), (3, 2))
    np.testing.assert_array_equal(rows.to_dense().asnumpy(), [[0, 0], [1, 2], [0, 0]])
    assert ops.coo_tensor_get_dense_shape(_coo()) == (2, 4)
    with pytest.raises(TypeError, match="csr_mm: expected a CSRTensor, got COOTensor"):
        ops.csr_mm(_coo(), Tensor(D))
