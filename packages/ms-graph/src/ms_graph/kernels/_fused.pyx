# cython: language_level=3
"""Run a fused elementwise program (``ms_graph.kernels.bytecode``) over flat arrays.

The program is a list of ``(opcode, dst, a, b)`` instructions; ``dst`` is a register,
``a`` and ``b`` index one operand table: registers, then the input arrays, then the
scalars. Each register holds one block of up to ``BLOCK`` elements, so the whole program
runs on a block while it sits in L1 cache: every input is read once and the output
written once (one pass over memory, no full-size temporaries), and the interpreter's
dispatch cost is paid per block, not per element. Operands are plain pointers (an array
operand points into the array at the block's start, a scalar into a block-long copy made
once per run), so no instruction loads or copies anything. Blocks are independent, so
they are shared among OpenMP threads.
"""

cimport numpy as cnp
cimport openmp
from cython.parallel cimport prange
from libc.math cimport exp, expf, fabs, fabsf, log, logf, pow, powf, sqrt, sqrtf, tanh, tanhf
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

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
    OP_ADD = 0
    OP_SUB = 1
    OP_MUL = 2
    OP_DIV = 3
    OP_NEG = 4
    OP_EXP = 5
    OP_LOG = 6
    OP_SQRT = 7
    OP_TANH = 8
    OP_SIGMOID = 9
    OP_RELU = 10
    OP_MAX = 11
    OP_MIN = 12
    OP_POW = 13
    OP_SQUARE = 14
    OP_ABS = 15
    N_OPS = 16


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


cdef void _block(const int* code, Py_ssize_t n_instr, real** ops, Py_ssize_t n) noexcept nogil:
    """Run every instruction on the ``n`` elements the operand table points at."""
    cdef Py_ssize_t i, j
    cdef int op
    cdef const int* c
    cdef real* rd
    cdef real* ra
    cdef real* rb
    for i in range(n_instr):
        c = code + 4 * i
        op = c[0]
        rd = ops[c[1]]
        ra = ops[c[2]]
        rb = ops[c[3]]
        # The common ones get loops of their own, which the compiler vectorizes.
        if op == OP_ADD:
            for j in range(n):
                rd[j] = ra[j] + rb[j]
        elif op == OP_MUL:
            for j in range(n):
                rd[j] = ra[j] * rb[j]
        elif op == OP_SUB:
            for j in range(n):
                rd[j] = ra[j] - rb[j]
        elif op == OP_DIV:
            for j in range(n):
                rd[j] = ra[j] / rb[j]
        elif op == OP_NEG:
            for j in range(n):
                rd[j] = -ra[j]
        elif op == OP_SQUARE:
            for j in range(n):
                rd[j] = ra[j] * ra[j]
        elif op == OP_MAX or op == OP_MIN or op == OP_POW:
            for j in range(n):
                rd[j] = _binary(op, ra[j], rb[j])
        else:
            for j in range(n):
                rd[j] = _unary(op, ra[j])


cdef int _run(const int* code, Py_ssize_t n_instr, int n_regs, Py_ssize_t n_arrays,
              real** arrays, const double* scalars, Py_ssize_t n_scalars, int result,
              real* out, Py_ssize_t size, int threads) noexcept nogil:
    """Returns 0, or -1 when the registers could not be allocated."""
    cdef Py_ssize_t width = min(<Py_ssize_t> BLOCK, size)
    cdef Py_ssize_t n_blocks = (size + width - 1) // width
    cdef Py_ssize_t n_ops = n_regs + n_arrays + n_scalars
    cdef Py_ssize_t b, k, t, start
    cdef real* mem
    cdef real* broadcast
    cdef real** tables
    cdef real** ops
    if n_blocks < PARALLEL_MIN_BLOCKS:
        threads = 1
    # Per thread: its registers and its operand table; shared: the broadcast scalars.
    # (+ 1: malloc(0) may return NULL, which would read as out of memory.)
    mem = <real*> malloc((threads * n_regs + n_scalars) * width * sizeof(real) + 1)
    tables = <real**> malloc(threads * n_ops * sizeof(real*) + 1)
    if mem == NULL or tables == NULL:
        free(mem)
        free(tables)
        return -1
    broadcast = mem + threads * n_regs * width
    for k in range(n_scalars):
        for b in range(width):
            broadcast[k * width + b] = <real> scalars[k]
    for t in range(threads):
        ops = tables + t * n_ops
        for k in range(n_regs):
            ops[k] = mem + (t * n_regs + k) * width
        for k in range(n_scalars):
            ops[n_regs + n_arrays + k] = broadcast + k * width
    if threads == 1:
        for b in range(n_blocks):
            _run_block(code, n_instr, tables, n_regs, n_arrays, arrays, result, out,
                       b * width, min(width, size - b * width))
    else:
        for b in prange(n_blocks, schedule="static", num_threads=threads):
            start = b * width
            _run_block(code, n_instr, tables + openmp.omp_get_thread_num() * n_ops, n_regs,
                       n_arrays, arrays, result, out, start, min(width, size - start))
    free(mem)
    free(tables)
    return 0


cdef inline void _run_block(const int* code, Py_ssize_t n_instr, real** ops, int n_regs,
                            Py_ssize_t n_arrays, real** arrays, int result, real* out,
                            Py_ssize_t start, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(n_arrays):
        ops[n_regs + k] = arrays[k] + start
    _block(code, n_instr, ops, n)
    memcpy(out + start, ops[result], n * sizeof(real))


cdef class Kernel:
    """One program, checked once, ready to run on arrays of any size.

    Checking at construction (rather than per run) keeps a small call cheap: a chain of
    1,000 operators on 16 elements runs in a few microseconds.
    """

    cdef const int[:, ::1] code
    cdef int n_regs, result
    cdef Py_ssize_t n_arrays, n_scalars

    def __init__(self, code, int n_regs, Py_ssize_t n_arrays, Py_ssize_t n_scalars,
                 int result):
        array = np.ascontiguousarray(code, dtype=np.int32)
        if array.size == 0:
            array = array.reshape(0, 4)
        if array.ndim != 2 or array.shape[1] != 4:
            raise ValueError(f"fused program: code must have shape (n, 4), got {array.shape}")
        if n_regs < 0 or n_arrays < 0 or n_scalars < 0:
            raise ValueError(f"fused program: negative operand counts {n_regs}, {n_arrays}, "
                             f"{n_scalars}")
        cdef const int[:, ::1] c = array
        cdef Py_ssize_t i, n_ops = n_regs + n_arrays + n_scalars
        if not 0 <= result < n_ops:
            raise ValueError(f"fused program: result operand {result} outside 0..{n_ops - 1}")
        if result < n_regs and c.shape[0] == 0:
            raise ValueError(f"fused program: result register {result} is never written")
        for i in range(c.shape[0]):
            if not 0 <= c[i, 0] < N_OPS:
                raise ValueError(f"fused program, instruction {i}: unknown opcode {c[i, 0]}")
            if not 0 <= c[i, 1] < n_regs:
                raise ValueError(f"fused program, instruction {i}: destination register "
                                 f"{c[i, 1]} outside 0..{n_regs - 1}")
            if not (0 <= c[i, 2] < n_ops and 0 <= c[i, 3] < n_ops):
                raise ValueError(f"fused program, instruction {i}: operand {c[i, 2]} or "
                                 f"{c[i, 3]} outside 0..{n_ops - 1}")
        self.code = c
        self.n_regs, self.result = n_regs, result
        self.n_arrays, self.n_scalars = n_arrays, n_scalars

    def run(self, tuple arrays, scalars, cnp.ndarray out, int threads=0):
        """Write every element of ``out`` (float32 or float64, C-contiguous).

        ``arrays``: one per array operand, C-contiguous, of ``out``'s dtype and size;
        ``scalars``: float64, one per scalar operand; ``threads=0`` lets OpenMP choose.
        """
        cdef const double[::1] s = np.ascontiguousarray(scalars, dtype=np.float64)
        cdef Py_ssize_t k, size = out.size
        cdef cnp.ndarray a
        cdef int rc
        cdef void** ptrs
        cdef const double* sp = NULL
        cdef const int* code = NULL
        if out.dtype != np.float32 and out.dtype != np.float64:
            raise TypeError(f"fused kernel: out must be float32 or float64, got {out.dtype}")
        if not out.flags.c_contiguous or not out.flags.writeable:
            raise ValueError("fused kernel: out must be a writeable C-contiguous array")
        if len(arrays) != self.n_arrays or s.shape[0] != self.n_scalars:
            raise ValueError(f"fused kernel: the program reads {self.n_arrays} arrays and "
                             f"{self.n_scalars} scalars, got {len(arrays)} and {s.shape[0]}")
        for x in arrays:
            if not isinstance(x, np.ndarray) or x.dtype != out.dtype or x.size != size \
                    or not x.flags.c_contiguous:
                raise ValueError(f"fused kernel: every array must be C-contiguous "
                                 f"{out.dtype} with {size} elements, got "
                                 f"{getattr(x, 'dtype', type(x))} {getattr(x, 'shape', '')}")
        if size == 0:
            return out
        if threads <= 0:
            threads = openmp.omp_get_max_threads()
        if s.shape[0]:
            sp = &s[0]
        if self.code.shape[0]:
            code = &self.code[0, 0]
        ptrs = <void**> malloc((self.n_arrays + 1) * sizeof(void*))
        if ptrs == NULL:
            raise MemoryError()
        for k in range(self.n_arrays):
            a = arrays[k]
            ptrs[k] = cnp.PyArray_DATA(a)
        if out.dtype == np.float32:
            with nogil:
                rc = _run[float](code, self.code.shape[0], self.n_regs, self.n_arrays,
                                 <float**> ptrs, sp, self.n_scalars, self.result,
                                 <float*> cnp.PyArray_DATA(out), size, threads)
        else:
            with nogil:
                rc = _run[double](code, self.code.shape[0], self.n_regs, self.n_arrays,
                                  <double**> ptrs, sp, self.n_scalars, self.result,
                                  <double*> cnp.PyArray_DATA(out), size, threads)
        free(ptrs)
        if rc:
            raise MemoryError("fused kernel: no memory for its registers")
        return out
