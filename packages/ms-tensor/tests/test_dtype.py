import itertools
import pickle

import numpy as np
import pytest

from ms_tensor import dtype as mstype
from ms_tensor.dtype import (
    WEAK_BOOL,
    WEAK_FLOAT,
    WEAK_INT,
    bfloat16,
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    result_type,
    uint8,
    uint64,
)

# (a, b, result) cells of MindSpore 2.x's promotion table, checked on MindSpore 2.10 (CPU).
TABLE = [
    (int32, float16, float16),     # the higher category wins whatever its width
    (int64, float16, float16),
    (uint8, int8, int16),
    (float16, bfloat16, float32),  # two 16-bit floats of different layout meet at float32
    (bfloat16, float32, float32),
    (bfloat16, int64, bfloat16),
    (float16, float32, float32),
    (float32, float64, float64),
    (int16, int64, int64),
    (uint8, int32, int32),
    (bool_, uint8, uint8),
    (bool_, float16, float16),
    (bool_, bool_, bool_),
    (complex64, complex128, complex128),
    (complex64, float64, complex128),
    (uint64, int8, int64),         # MindSpore refuses these; numpy would give float64
]

WEAK = [
    (bool_, WEAK_INT, int64),      # Tensor([True]) + 2
    (int32, WEAK_FLOAT, float32),  # Tensor([1], int32) + 2.5
    (bool_, WEAK_FLOAT, float32),
    (int8, WEAK_INT, int8),        # a scalar never widens a tensor within its category
    (int32, WEAK_BOOL, int32),
    (float16, WEAK_FLOAT, float16),
    (bfloat16, WEAK_FLOAT, bfloat16),
    (uint8, WEAK_INT, uint8),
    (complex64, WEAK_FLOAT, complex64),
]


@pytest.mark.parametrize("a,b,expected", TABLE, ids=lambda v: str(v))
def test_promote_types_follows_mindspore_table(a, b, expected):
    assert promote_types(a, b) is expected
    assert promote_types(b, a) is expected


@pytest.mark.parametrize("t,w,expected", WEAK, ids=lambda v: str(v))
def test_python_scalar_adapts_to_the_tensor(t, w, expected):
    assert promote_types(t, w) is expected
    assert promote_types(w, t) is expected


def test_two_python_scalars_stay_weak_until_made_concrete():
    assert promote_types(WEAK_INT, WEAK_FLOAT) is WEAK_FLOAT
    assert promote_types(WEAK_BOOL, WEAK_INT) is WEAK_INT
    assert result_type(WEAK_INT, WEAK_INT) is int64
    assert result_type(WEAK_INT, WEAK_FLOAT) is float32
    assert result_type(WEAK_BOOL) is bool_


def test_result_type_folds_over_many():
    assert result_type(uint8, int8, float16) is float16
    assert result_type(int32, WEAK_FLOAT, float64) is float64
    assert result_type(float16, bfloat16, WEAK_FLOAT) is float32


@pytest.mark.parametrize("a,b", list(itertools.combinations_with_replacement(mstype.all_types, 2)),
                         ids=lambda v: str(v))
def test_promotion_is_symmetric_and_never_narrows(a, b):
    r = promote_types(a, b)
    assert r is promote_types(b, a)
    assert isinstance(r, mstype.DType)
    rank = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
    assert rank[r.kind] == max(rank[a.kind], rank[b.kind])


def test_dtype_names_and_aliases_match_mindspore():
    assert [str(t) for t in (bool_, int8, uint8, float16, bfloat16, float32, complex128)] == \
        ["Bool", "Int8", "UInt8", "Float16", "BFloat16", "Float32", "Complex128"]
    assert repr(float32) == "Float32"
    assert mstype.float_ is float32 and mstype.int_ is int32 and mstype.uint is mstype.uint32
    assert mstype.half is float16 and mstype.single is float32 and mstype.double is float64


def test_dtype_knows_its_numpy_type_and_size():
    assert float16.np == np.float16 and float16.itemsize == 2
    assert int64.np == np.int64 and int64.bits == 64
    assert bfloat16.itemsize == 2


@pytest.mark.parametrize("t", mstype.all_types, ids=str)
def test_numpy_round_trip(t):
    assert mstype.from_numpy(t.np) is t
    assert mstype.from_numpy(np.dtype(t.np).name if t is not bfloat16 else t.np) is t
    assert mstype.to_numpy(t) == t.np


def test_from_numpy_rejects_types_mindspore_lacks():
    with pytest.raises(TypeError, match=r"has no MindSpore equivalent; supported: Bool, Int8"):
        mstype.from_numpy(np.dtype("U3"))
    with pytest.raises(TypeError, match="has no MindSpore equivalent"):
        mstype.from_numpy(np.dtype("datetime64[s]"))


def test_dtype_is_a_singleton_through_pickle():
    assert pickle.loads(pickle.dumps(float32)) is float32
    assert pickle.loads(pickle.dumps(bfloat16)) is bfloat16


def test_kind_predicates():
    assert mstype.is_float(bfloat16) and not mstype.is_float(int32)
    assert mstype.is_int(uint8) and mstype.is_int(int64) and not mstype.is_int(bool_)
    assert mstype.is_complex(complex64) and not mstype.is_complex(float64)
    assert mstype.number_types == mstype.float_types | mstype.int_types
