"""The Cython fused-elementwise kernel against its numpy reference, on random programs."""

import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st
from ms_graph.kernels import bytecode
from ms_graph.kernels.bytecode import BINARY, UNARY, Assembler, Program

# IEEE specials, kept away from overflow thresholds: there, one ulp of difference between
# two correct libm implementations turns a finite result into inf (and inf - inf into NaN).
SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e30])


# IEEE-exact operations: numpy and C must agree bit for bit, however deep the tree.
EXACT_UNARY = ("neg", "relu", "square", "abs", "sqrt")
EXACT_BINARY = ("add", "sub", "mul", "div", "max", "min")


@st.composite
def programs(draw, unary=EXACT_UNARY, binary=EXACT_BINARY, n_arrays=3, depth=4):
    """A random expression tree over ``n_arrays`` arrays, constants and one scalar arg."""
    asm = Assembler()

    def tree(d):
        kind = draw(st.sampled_from(["leaf", "unary", "binary"] if d else ["leaf"]))
        if kind == "leaf":
            which = draw(st.integers(0, n_arrays + 1))
            if which < n_arrays:
                return asm.load_array(which)
            if which == n_arrays:
                return asm.load_const(draw(st.floats(-3, 3, allow_nan=False)))
            return asm.load_scalar_arg(n_arrays)
        if kind == "unary":
            return asm.apply(draw(st.sampled_from(unary)), tree(d - 1))
        a = tree(d - 1)
        return asm.apply(draw(st.sampled_from(binary)), a, tree(d - 1))

    program = asm.finish(tree(depth))
    note(program.text())
    return program


@settings(max_examples=150, deadline=None)
@given(programs(), st.sampled_from([np.float32, np.float64]), st.integers(0, 3000),
       st.sampled_from([0, 1, 2]), st.integers(0, 2**32 - 1))
def test_exact_programs_match_reference_bit_for_bit(program, dtype, size, threads, seed):
    rng = np.random.default_rng(seed)
    args = [rng.standard_normal(size).astype(dtype) * 3 for _ in range(3)]
    if size:  # some IEEE specials in every operand
        k = min(size, len(SPECIALS))
        for a in args:
            a[rng.choice(size, k, replace=False)] = SPECIALS[:k]
    args.append(np.array(rng.standard_normal(), dtype))
    arrays = [args[i] for i in program.array_args]
    scalars = program.scalars(args)
    want = bytecode.run_reference(program, arrays, scalars, np.empty(size, dtype))
    got = bytecode.run(program, arrays, scalars, np.empty(size, dtype), threads=threads)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted((UNARY | BINARY) - set(EXACT_UNARY + EXACT_BINARY)))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_transcendental_ops_match_reference(name, dtype):
    # One operation at a time: numpy's SIMD exp/log/tanh and the C library's may differ by
    # an ulp or so, which a deep random tree could amplify without bound (log near 1).
    x = np.concatenate([SPECIALS, np.linspace(-30, 30, 2001)]).astype(dtype)
    asm = Assembler()
    if name in UNARY:
        program = asm.finish(asm.apply(name, asm.load_array(0)))
    else:  # pow: a scalar exponent, as fusion emits it
        program = asm.finish(asm.apply(name, asm.load_array(0), asm.load_const(2.5)))
    scalars = program.scalars([x])
    want = bytecode.run_reference(program, [x], scalars, np.empty_like(x))
    got = bytecode.run(program, [x], scalars, np.empty_like(x))
    rtol = 4e-7 if dtype == np.float32 else 1e-15
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)


def test_large_arrays_use_every_thread_count_alike():
    asm = Assembler()
    r = asm.apply("tanh", asm.apply("mul", asm.load_array(0), asm.load_const(0.5)))
    program = asm.finish(r)
    x = np.linspace(-5, 5, 100_003)
    one = bytecode.run(program, [x], program.scalars([x]), np.empty_like(x), threads=1)
    two = bytecode.run(program, [x], program.scalars([x]), np.empty_like(x), threads=2)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_allclose(one, np.tanh(x * 0.5), rtol=1e-15)


# Operands of these one-register, one-array programs: r0 = 0, arg0 = 1.
@pytest.mark.parametrize("code, result, message", [
    ([(99, 0, 1, 1)], 0, "unknown opcode 99"),
    ([(0, 5, 1, 1)], 0, "destination register 5"),
    ([(0, 0, 3, 1)], 0, "operand 3 or 1 outside 0..1"),
    ([(0, 0, 1, -1)], 0, "operand 1 or -1 outside"),
    ([(0, 0, 1, 1)], 2, "result operand 2 outside 0..1"),
    ([], 0, "result register 0 is never written"),
])
def test_malformed_programs_are_rejected_when_built(code, result, message):
    with pytest.raises(ValueError, match=message):
        Program(code, 1, result, (), (0,), ())


def test_mismatched_arguments_are_rejected():
    program = Program([(0, 0, 1, 1)], 1, 0, (), (0,), ())
    with pytest.raises(ValueError, match="C-contiguous float64 with 4 elements"):
        bytecode.run(program, [np.ones(4, np.float32)], np.zeros(0), np.empty(4))
    with pytest.raises(TypeError, match="float32 or float64"):
        bytecode.run(program, [np.ones(4, np.int32)], np.zeros(0), np.empty(4, np.int32))
    with pytest.raises(ValueError, match="reads 1 arrays and 0 scalars, got 2 and 0"):
        bytecode.run(program, [np.ones(4)] * 2, np.zeros(0), np.empty(4))


def test_result_may_be_an_operand_without_code():
    x = np.arange(5.0)
    assert np.array_equal(bytecode.run(Program([], 0, 0, (), (0,), ()), [x], np.zeros(0),
                                       np.empty(5)), x)
    program = Program([], 0, 0, (2.5,), (), ())
    assert np.array_equal(bytecode.run(program, [], program.scalars([]), np.empty(3)),
                          [2.5, 2.5, 2.5])


def test_repeated_operands_cost_no_instructions():
    # The eager benchmark's chain: x = (x + b) * b, 500 times, reading b a thousand times.
    asm = Assembler()
    r = asm.load_array(0)
    for _ in range(500):
        r = asm.apply("mul", asm.apply("add", r, asm.load_array(1)), asm.load_array(1))
    program = asm.finish(r)
    assert len(program.code) == 1000 and program.n_regs == 2
    rng = np.random.default_rng(0)
    x, b = rng.standard_normal(1500).astype(np.float32), np.full(1500, 0.5, np.float32)
    want = bytecode.run_reference(program, [x, b], program.scalars([]), np.empty_like(x))
    got = bytecode.run(program, [x, b], program.scalars([]), np.empty_like(x))
    np.testing.assert_array_equal(got, want)
