# cython: language_level=3
"""Run a fused elementwise program (``ms_graph.kernels.bytecode``) over flat arrays.

The program is a list of ``(opcode, dst, a, b)`` instructions over registers. Each register
holds one block of ``BLOCK`` elements, so the whole program runs on a block while it sits in
L1 cache: every input is read once and the output written once (one pass over memory, no
full-size temporaries), and the interpreter's dispatch cost is paid per block, not per
element. Blocks are independent, so they are shared among OpenMP threads.
"""

cimport numpy as cnp
cimport openmp
from cython.parallel cimport prange
from libc.math cimport exp, expf, fabs, fabsf, log, logf, pow, powf, sqrt, sqrtf, tanh, tanhf
from libc.stdlib cimport free, malloc

import numpy as np

cnp.import_array()

ctypedef fused real:
    float
    double

cdef enum:
    BLOCK = 512
    PARALLEL_MIN_BLOCKS = 32

# Keep in step with ms_graph.kernels.bytecode.OPCODES.
cdef enum:
    OP_LOADA = 0
    OP_LOADS = 1
    OP_ADD = 2
    OP_SUB = 3
    OP_MUL = 4
    OP_DIV = 5
    OP_NEG = 6
    OP_EXP = 7
    OP_LOG = 8
    OP_SQRT = 9
    OP_TANH = 10
    OP_SIGMOID = 11
    OP_RELU = 12
    OP_MAX = 13
    OP_MIN = 14
    OP_POW = 15
    OP_SQUARE = 16
    OP_ABS = 17
    N_OPS = 18


cdef inline real _exp(real x) noexcept nogil:
    if real is float:
        return expf(x)
    else:
        return exp(x)


cdef inline real _unary(int op, real x) noexcept nogil:
    cdef real e
    if op == OP_NEG:
        return -x
    if op == OP_EXP:
        return _exp(x)
    if op == OP_LOG:
        if real is float:
            return logf(x)
        else:
            return log(x)
    if op == OP_SQRT:
        if real is float:
            return sqrtf(x)
        else:
            return sqrt(x)
    if op == OP_TANH:
        if real is float:
            return tanhf(x)
        else:
            return tanh(x)
    if op == OP_SIGMOID:  # exp(-|x|) never overflows; pick the branch that cannot cancel
        if real is float:
            e = expf(-fabsf(x))
        else:
            e = exp(-fabs(x))
        if x >= 0:
            return 1 / (1 + e)
        return e / (1 + e)
    if op == OP_RELU:  # NaN stays NaN, as numpy's maximum(x, 0)
        return x if (x > 0 or x != x) else 0
    if op == OP_SQUARE:
        return x * x
    # OP_ABS
    if real is float:
        return fabsf(x)
    else:
        return fabs(x)


cdef inline real _binary(int op, real x, real y) noexcept nogil:
    if op == OP_ADD:
        return x + y
    if op == OP_SUB:
        return x - y
    if op == OP_MUL:
        return x * y
    if op == OP_DIV:
        return x / y
    # As numpy's maximum/minimum: NaN in either operand gives NaN, a tie (0.0 and -0.0)
    # gives the second operand.
    if op == OP_MAX:
        return x if (x > y or x != x) else y
    if op == OP_MIN:
        return x if (x < y or x != x) else y
    # OP_POW
    if real is float:
        return powf(x, y)
    else:
        return pow(x, y)


cdef void _block(const int* code, Py_ssize_t n_instr, real** arrays, const double* scalars,
                 real* regs, Py_ssize_t start, Py_ssize_t n, int result,
                 real* out) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef int op
    cdef real s
    cdef real* rd
    cdef real* ra
    cdef real* rb
    cdef real* src
    for i in range(n_instr):
        op = code[4 * i]
        rd = regs + code[4 * i + 1] * BLOCK
        if op == OP_LOADA:
            src = arrays[code[4 * i + 2]] + start
            for j in range(n):
                rd[j] = src[j]
        elif op == OP_LOADS:
            s = <real> scalars[code[4 * i + 2]]
            for j in range(n):
                rd[j] = s
        elif op == OP_ADD or op == OP_SUB or op == OP_MUL or op == OP_DIV or op == OP_MAX \
                or op == OP_MIN or op == OP_POW:
            ra = regs + code[4 * i + 2] * BLOCK
            rb = regs + code[4 * i + 3] * BLOCK
            if op == OP_ADD:  # the common ones get loops the compiler vectorizes
                for j in range(n):
                    rd[j] = ra[j] + rb[j]
            elif op == OP_SUB:
                for j in range(n):
                    rd[j] = ra[j] - rb[j]
            elif op == OP_MUL:
                for j in range(n):
                    rd[j] = ra[j] * rb[j]
            elif op == OP_DIV:
                for j in range(n):
                    rd[j] = ra[j] / rb[j]
            else:
                for j in range(n):
                    rd[j] = _binary(op, ra[j], rb[j])
        else:
            ra = regs + code[4 * i + 2] * BLOCK
            if op == OP_NEG:
                for j in range(n):
                    rd[j] = -ra[j]
            elif op == OP_SQUARE:
                for j in range(n):
                    rd[j] = ra[j] * ra[j]
            else:
                for j in range(n):
                    rd[j] = _unary(op, ra[j])
    src = regs + result * BLOCK
    out += start
    for j in range(n):
        out[j] = src[j]


cdef int _run(const int* code, Py_ssize_t n_instr, real** arrays, const double* scalars,
              int n_regs, int result, real* out, Py_ssize_t size, int threads) noexcept nogil:
    """Returns 0, or -1 when the register files could not be allocated."""
    cdef Py_ssize_t n_blocks = (size + BLOCK - 1) // BLOCK
    cdef Py_ssize_t b, start, file_size = n_regs * BLOCK
    cdef real* regs
    if n_blocks < PARALLEL_MIN_BLOCKS:
        threads = 1
    # One register file per thread, allocated up front.
    regs = <real*> malloc(threads * file_size * sizeof(real))
    if regs == NULL:
        return -1
    if threads == 1:
        for b in range(n_blocks):
            start = b * BLOCK
            _block(code, n_instr, arrays, scalars, regs, start,
                   min(<Py_ssize_t> BLOCK, size - start), result, out)
    else:
        for b in prange(n_blocks, schedule="static", num_threads=threads):
            start = b * BLOCK
            _block(code, n_instr, arrays, scalars,
                   regs + openmp.omp_get_thread_num() * file_size, start,
                   min(<Py_ssize_t> BLOCK, size - start), result, out)
    free(regs)
    return 0


def _check(int[:, ::1] code, Py_ssize_t n_arrays, Py_ssize_t n_scalars, int n_regs,
           int result):
    """Reject a program that would read or write outside its arrays or registers."""
    cdef Py_ssize_t i
    cdef int op
    if not 0 <= result < n_regs:
        raise ValueError(f"result register {result} outside 0..{n_regs - 1}")
    for i in range(code.shape[0]):
        op = code[i, 0]
        if not 0 <= op < N_OPS:
            raise ValueError(f"instruction {i}: unknown opcode {op}")
        if not 0 <= code[i, 1] < n_regs:
            raise ValueError(f"instruction {i}: destination register {code[i, 1]} outside "
                             f"0..{n_regs - 1}")
        if op == OP_LOADA:
            if not 0 <= code[i, 2] < n_arrays:
                raise ValueError(f"instruction {i}: array {code[i, 2]} of {n_arrays}")
        elif op == OP_LOADS:
            if not 0 <= code[i, 2] < n_scalars:
                raise ValueError(f"instruction {i}: scalar {code[i, 2]} of {n_scalars}")
        else:
            if not 0 <= code[i, 2] < n_regs or not 0 <= code[i, 3] < n_regs:
                raise ValueError(f"instruction {i}: operand register outside 0..{n_regs - 1}")


def run(code, tuple arrays, scalars, int n_regs, int result, cnp.ndarray out, int threads=0):
    """Run ``code`` (int32, shape (n, 4)) writing every element of ``out``.

    ``arrays`` are C-contiguous arrays of ``out``'s dtype (float32 or float64) and size;
    ``scalars`` a float64 vector; ``threads=0`` lets OpenMP choose.
    """
    cdef int[:, ::1] c = np.ascontiguousarray(code, dtype=np.int32)
    cdef double[::1] s = np.ascontiguousarray(scalars, dtype=np.float64)
    cdef Py_ssize_t k, size = out.size, n_arr = len(arrays)
    cdef int rc
    cdef void** ptrs
    cdef const double* sp = NULL
    if c.shape[0] == 0 or c.shape[1] != 4:
        raise ValueError(f"code must have shape (n, 4) with n > 0, got {tuple(code.shape)}")
    if threads <= 0:
        threads = openmp.omp_get_max_threads()
    _check(c, n_arr, s.shape[0], n_regs, result)
    if out.dtype != np.float32 and out.dtype != np.float64:
        raise TypeError(f"out must be float32 or float64, got {out.dtype}")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("out must be a writeable C-contiguous array")
    for a in arrays:
        if not isinstance(a, np.ndarray) or a.dtype != out.dtype or a.size != size \
                or not a.flags.c_contiguous:
            raise ValueError(f"every array must be C-contiguous {out.dtype} with {size} "
                             f"elements, got {getattr(a, 'dtype', type(a))} "
                             f"{getattr(a, 'shape', '')}")
    if size == 0:
        return out
    if s.shape[0]:
        sp = &s[0]
    ptrs = <void**> malloc((n_arr + 1) * sizeof(void*))
    if ptrs == NULL:
        raise MemoryError()
    try:
        for k in range(n_arr):
            ptrs[k] = cnp.PyArray_DATA(<cnp.ndarray> arrays[k])
        if out.dtype == np.float32:
            with nogil:
                rc = _run[float](&c[0, 0], c.shape[0], <float**> ptrs, sp, n_regs, result,
                                 <float*> cnp.PyArray_DATA(out), size, threads)
        else:
            with nogil:
                rc = _run[double](&c[0, 0], c.shape[0], <double**> ptrs, sp, n_regs, result,
                                  <double*> cnp.PyArray_DATA(out), size, threads)
    finally:
        free(ptrs)
    if rc:
        raise MemoryError("no memory for the fused kernel's registers")
    return out
