"""Eager collectives that call the MPI library from C, without mpi4py's per-call parsing.

mpi4py's ``comm.Allreduce(x, out)`` reads both buffers through the buffer protocol and
looks their datatype up on every call: about a microsecond, a tenth of a 1 KB allreduce
between two ranks of a node. A plan here is made once per (operation, op, group), after
the operator's checks; a call checks only that the tensor's array is one MPI reads as it
is, and hands its pointer to MPI_Allreduce (MPI_Allgather, MPI_Bcast,
MPI_Reduce_scatter_block).

Nothing is linked at build time: ``bind`` receives the addresses of those functions in
the MPI library mpi4py loaded (ms_parallel.direct looks them up), so the process keeps
one MPI. Handles are MPICH's ABI, a C ``int`` (MPICH, Intel MPI, MVAPICH, Cray MPICH):
ms_parallel.direct binds this module only where mpi4py's handles have that form.
"""

cimport numpy as cnp

from ms_parallel.recycle import placed as _placed
from cpython.object cimport PyObject
from libc.limits cimport INT_MAX

cnp.import_array()

# int MPI_Allreduce(const void *send, void *recv, int count, MPI_Datatype, MPI_Op, MPI_Comm)
# and MPI_Reduce_scatter_block(send, recv, int recvcount, MPI_Datatype, MPI_Op, MPI_Comm)
ctypedef int (*reduce_fn)(const void*, void*, int, int, int, int) noexcept nogil
# int MPI_Allgather(const void *send, int, MPI_Datatype, void *recv, int, MPI_Datatype, MPI_Comm)
ctypedef int (*gather_fn)(const void*, int, int, void*, int, int, int) noexcept nogil
# int MPI_Bcast(void *buffer, int count, MPI_Datatype, int root, MPI_Comm)
ctypedef int (*bcast_fn)(void*, int, int, int, int) noexcept nogil

cdef enum:
    NTYPES = 32
cdef reduce_fn _allreduce = NULL
cdef reduce_fn _reduce_scatter = NULL
cdef gather_fn _allgather = NULL
cdef bcast_fn _bcast = NULL
cdef void* _in_place = NULL
cdef int _types[NTYPES]  # numpy type number -> MPI datatype handle; 0: not direct
cdef object _error = None  # error(ierr) -> the exception to raise (mpi4py's)


def bind(Py_ssize_t allreduce, Py_ssize_t allgather, Py_ssize_t bcast,
         Py_ssize_t reduce_scatter_block, Py_ssize_t in_place, dict types, error):
    """Point the calls at an MPI library's functions (addresses), its MPI_IN_PLACE,
    ``types`` ({numpy type number: MPI datatype handle}) and ``error(ierr)``."""
    global _allreduce, _allgather, _bcast, _reduce_scatter, _in_place, _error
    cdef int k
    for k in range(NTYPES):
        _types[k] = 0
    for num, handle in types.items():
        if 0 <= num < NTYPES:
            _types[num] = handle
    _allreduce = <reduce_fn><void*>allreduce
    _allgather = <gather_fn><void*>allgather
    _bcast = <bcast_fn><void*>bcast
    _reduce_scatter = <reduce_fn><void*>reduce_scatter_block
    _in_place = <void*>in_place
    _error = error


def bound():
    return _allreduce != NULL


cdef inline int _datatype(object x) noexcept:
    """The MPI datatype of a numpy array MPI may read as it is (exact ndarray, C-contiguous,
    aligned, native byte order, an MPI-native dtype, at most INT_MAX elements); else 0."""
    if not cnp.PyArray_CheckExact(x):
        return 0
    cdef cnp.ndarray a = <cnp.ndarray>x
    if not cnp.PyArray_ISCARRAY_RO(a) or cnp.PyArray_ISBYTESWAPPED(a) or \
            cnp.PyArray_SIZE(a) > INT_MAX:
        return 0
    cdef int t = cnp.PyArray_TYPE(a)
    return _types[t] if 0 <= t < NTYPES else 0


cdef inline int _check(int ierr) except -1:
    if ierr:
        raise _error(ierr)
    return 0


cdef inline cnp.ndarray _empty(cnp.ndarray like, Py_ssize_t rows):
    """A new C-ordered array of ``like``'s dtype and shape, with ``rows`` on axis 0; from a
    page up, at ``like``'s offset within its page (ms_parallel.recycle.placed: where MPI
    reduces into it fastest)."""
    cdef cnp.npy_intp dims[64]  # numpy's most dimensions (NPY_MAXDIMS)
    cdef int k, nd = cnp.PyArray_NDIM(like)
    for k in range(nd):
        dims[k] = cnp.PyArray_DIM(like, k)
    if nd:
        dims[0] = rows
    if cnp.PyArray_NBYTES(like) >= 4096:
        return _placed(tuple([dims[k] for k in range(nd)]), like.dtype, like)
    return cnp.PyArray_EMPTY(nd, dims, cnp.PyArray_TYPE(like), 0)


cdef class Plan:
    """One collective over one communicator: ``plan(t)`` is its result as a new Tensor,
    or NotImplemented where ``t`` is not a Tensor whose array MPI reads as it is (the
    caller then takes the generic path, which converts or raises)."""

    cdef readonly int comm, size, op, root, rank
    cdef object tensor, wrap, recycle, last
    cdef Py_ssize_t recycle_bytes

    def __init__(self, int comm, int size, int rank, tensor, wrap, int op=0, int root=0,
                 recycle=None, Py_ssize_t recycle_bytes=0):
        """``tensor``: the Tensor class; ``wrap(array)``: a Tensor around an array;
        ``recycle(array)``: a result array like ``array`` for results of at least
        ``recycle_bytes`` (ms_parallel.recycle), None for always a new one."""
        self.comm, self.size, self.rank, self.op, self.root = comm, size, rank, op, root
        self.tensor, self.wrap = tensor, wrap
        self.recycle, self.recycle_bytes = recycle, recycle_bytes

    cdef inline object _array(self, object t):
        return t._data if type(t) is self.tensor else None

    cdef cnp.ndarray _result(self, cnp.ndarray like, Py_ssize_t rows):
        """A result array: the last one, where this plan holds the only reference to it
        (the tensor it was returned in and every view of it are gone: as ms_parallel.recycle
        does for large ones, so a loop that drops each result allocates nothing), else a
        new one of ``like``'s dtype and shape with ``rows`` on axis 0."""
        if self.last is not None and (<PyObject*>self.last).ob_refcnt == 1 and \
                _fits(<cnp.ndarray>self.last, like, rows):
            return <cnp.ndarray>self.last
        self.last = _empty(like, rows)
        return <cnp.ndarray>self.last


cdef inline bint _fits(cnp.ndarray out, cnp.ndarray like, Py_ssize_t rows) noexcept:
    """Whether ``out`` has ``like``'s dtype and shape with ``rows`` on axis 0."""
    cdef int k, nd = cnp.PyArray_NDIM(like)
    if cnp.PyArray_NDIM(out) != nd or cnp.PyArray_TYPE(out) != cnp.PyArray_TYPE(like):
        return False
    for k in range(nd):
        if cnp.PyArray_DIM(out, k) != (rows if k == 0 else cnp.PyArray_DIM(like, k)):
            return False
    return True


cdef class AllReduce(Plan):
    def __call__(self, t):
        x = self._array(t)
        cdef int dt = _datatype(x)
        if dt == 0:
            return NotImplemented
        cdef cnp.ndarray a = <cnp.ndarray>x, out
        if self.recycle is not None and cnp.PyArray_NBYTES(a) >= self.recycle_bytes:
            out = self.recycle(a)
        else:
            out = self._result(a, cnp.PyArray_DIM(a, 0) if cnp.PyArray_NDIM(a) else 0)
        cdef void* src = cnp.PyArray_DATA(a)
        cdef void* dst = cnp.PyArray_DATA(out)
        cdef int n = <int>cnp.PyArray_SIZE(a), ierr
        with nogil:
            ierr = _allreduce(src, dst, n, dt, self.op, self.comm)
        _check(ierr)
        return self.wrap(out)

    def inplace(self, t):
        """Reduce ``t``'s own array (MPI_IN_PLACE); False where it is not one MPI may
        write as it is (read-only, not C-contiguous, ...)."""
        x = self._array(t)
        cdef int dt = _datatype(x)
        if dt == 0 or not cnp.PyArray_ISWRITEABLE(<cnp.ndarray>x):
            return False
        cdef void* buf = cnp.PyArray_DATA(<cnp.ndarray>x)
        cdef int n = <int>cnp.PyArray_SIZE(<cnp.ndarray>x), ierr
        with nogil:
            ierr = _allreduce(_in_place, buf, n, dt, self.op, self.comm)
        _check(ierr)
        return True


cdef class AllGather(Plan):
    def __call__(self, t):
        x = self._array(t)
        cdef int dt = _datatype(x)
        if dt == 0 or cnp.PyArray_NDIM(<cnp.ndarray>x) == 0:
            return NotImplemented
        cdef cnp.ndarray a = <cnp.ndarray>x
        if cnp.PyArray_SIZE(a) * self.size > INT_MAX:
            return NotImplemented
        cdef cnp.ndarray out = self._result(a, cnp.PyArray_DIM(a, 0) * self.size)
        cdef void* src = cnp.PyArray_DATA(a)
        cdef void* dst = cnp.PyArray_DATA(out)
        cdef int n = <int>cnp.PyArray_SIZE(a), ierr
        with nogil:
            ierr = _allgather(src, n, dt, dst, n, dt, self.comm)
        _check(ierr)
        return self.wrap(out)


cdef class ReduceScatter(Plan):
    def __call__(self, t):
        x = self._array(t)
        cdef int dt = _datatype(x)
        if dt == 0 or cnp.PyArray_NDIM(<cnp.ndarray>x) == 0 or \
                cnp.PyArray_DIM(<cnp.ndarray>x, 0) % self.size:
            return NotImplemented
        cdef cnp.ndarray a = <cnp.ndarray>x
        cdef cnp.ndarray out = self._result(a, cnp.PyArray_DIM(a, 0) // self.size)
        cdef void* src = cnp.PyArray_DATA(a)
        cdef void* dst = cnp.PyArray_DATA(out)
        cdef int n = <int>cnp.PyArray_SIZE(out), ierr
        with nogil:
            ierr = _reduce_scatter(src, dst, n, dt, self.op, self.comm)
        _check(ierr)
        return self.wrap(out)


cdef class Broadcast(Plan):
    def __call__(self, t):
        x = self._array(t)
        cdef int dt = _datatype(x)
        if dt == 0:
            return NotImplemented
        cdef cnp.ndarray a = <cnp.ndarray>x
        cdef cnp.ndarray out = self._result(a, cnp.PyArray_DIM(a, 0) if cnp.PyArray_NDIM(a) else 0)
        if self.rank == self.root:
            cnp.PyArray_CopyInto(out, a)
        cdef void* buf = cnp.PyArray_DATA(out)
        cdef int n = <int>cnp.PyArray_SIZE(a), ierr
        with nogil:
            ierr = _bcast(buf, n, dt, self.root, self.comm)
        _check(ierr)
        return self.wrap(out)

    def inplace(self, t):
        """Root's values into ``t``'s own array; False where MPI may not write it."""
        x = self._array(t)
        cdef int dt = _datatype(x)
        if dt == 0 or not cnp.PyArray_ISWRITEABLE(<cnp.ndarray>x):
            return False
        cdef void* buf = cnp.PyArray_DATA(<cnp.ndarray>x)
        cdef int n = <int>cnp.PyArray_SIZE(<cnp.ndarray>x), ierr
        with nogil:
            ierr = _bcast(buf, n, dt, self.root, self.comm)
        _check(ierr)
        return True

