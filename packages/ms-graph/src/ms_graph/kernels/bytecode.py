"""The bytecode of fused elementwise programs: opcodes, assembler, numpy reference, runner.

A program is an int32 array of ``(opcode, dst, a, b)`` instructions over registers.
``loada dst k`` loads array operand ``k``; ``loads dst k`` loads scalar ``k`` (broadcast);
unary ops read register ``a``, binary ops registers ``a`` and ``b``. The value of register
``result`` after the last instruction is the output. The compiled kernel
(``_fused.pyx``) runs it block by block in one pass over memory; ``run_reference`` runs the
same program with whole-array numpy operations and is what the kernel is tested against.
"""

from __future__ import annotations

import numpy as np

__all__ = ["OPCODES", "UNARY", "BINARY", "Program", "Assembler", "run", "run_reference"]

OPCODES = {
    "loada": 0, "loads": 1, "add": 2, "sub": 3, "mul": 4, "div": 5, "neg": 6, "exp": 7,
    "log": 8, "sqrt": 9, "tanh": 10, "sigmoid": 11, "relu": 12, "max": 13, "min": 14,
    "pow": 15, "square": 16, "abs": 17,
}
NAMES = {v: k for k, v in OPCODES.items()}
UNARY = frozenset({"neg", "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "square", "abs"})
BINARY = frozenset({"add", "sub", "mul", "div", "max", "min", "pow"})


class Program:
    """An assembled program plus how to feed it from a fused node's arguments.

    ``array_args`` are the argument positions that are full-size arrays (operand ``k`` of
    ``loada`` is ``array_args[k]``); scalar operands are the constants ``consts`` followed
    by the one-element arguments at positions ``scalar_args``.
    """

    __slots__ = ("code", "n_regs", "result", "consts", "array_args", "scalar_args")

    def __init__(self, code, n_regs, result, consts, array_args, scalar_args):
        self.code = np.ascontiguousarray(code, dtype=np.int32).reshape(-1, 4)
        self.n_regs = n_regs
        self.result = result
        self.consts = tuple(float(c) for c in consts)
        self.array_args = tuple(array_args)
        self.scalar_args = tuple(scalar_args)

    def scalars(self, args) -> np.ndarray:
        """The scalar table for one run: constants, then the scalar arguments' values."""
        runtime = [float(np.asarray(args[i]).reshape(-1)[0]) for i in self.scalar_args]
        return np.array(self.consts + tuple(runtime), dtype=np.float64)

    def text(self) -> str:
        """One instruction a line, e.g. ``r1 = mul r0 r2``."""
        lines = []
        for op, d, a, b in self.code.tolist():
            name = NAMES[op]
            if name == "loada":
                lines.append(f"r{d} = arg{self.array_args[a]}")
            elif name == "loads":
                n = len(self.consts)
                src = repr(self.consts[a]) if a < n else f"arg{self.scalar_args[a - n]}"
                lines.append(f"r{d} = {src}")
            elif name in UNARY:
                lines.append(f"r{d} = {name} r{a}")
            else:
                lines.append(f"r{d} = {name} r{a} r{b}")
        return "\n".join(lines + [f"return r{self.result}"])

    def __repr__(self) -> str:
        return f"<Program {len(self.code)} instructions, {self.n_regs} registers>"


class Assembler:
    """Builds a Program from an expression tree, evaluated operands first.

    Every register is read exactly once (a tree), so an operand's register is free as soon
    as its instruction is emitted, and the destination reuses it: the register count is
    the tree's Strahler-like depth, not its size.
    """

    def __init__(self):
        self._code: list[tuple] = []
        self._free: list[int] = []
        self._n_regs = 0
        self._consts: list[float] = []
        self._arrays: list[int] = []  # argument position of each array operand
        self._scalars: list[int] = []  # argument position of each scalar operand

    def _reg(self) -> int:
        if self._free:
            return self._free.pop()
        self._n_regs += 1
        return self._n_regs - 1

    def load_array(self, arg: int) -> int:
        if arg not in self._arrays:
            self._arrays.append(arg)
        d = self._reg()
        self._code.append((OPCODES["loada"], d, self._arrays.index(arg), 0))
        return d

    def load_const(self, value: float) -> int:
        value = float(value)
        # Compare bit patterns, so 0.0 and -0.0 (and NaNs) stay distinct constants.
        key = np.float64(value).tobytes()
        keys = [np.float64(c).tobytes() for c in self._consts]
        if key not in keys:
            self._consts.append(value)
            keys.append(key)
        d = self._reg()
        self._code.append((OPCODES["loads"], d, keys.index(key), 0))
        return d

    def load_scalar_arg(self, arg: int) -> int:
        if arg not in self._scalars:
            self._scalars.append(arg)
        d = self._reg()
        # Scalar arguments follow the constants; the index is fixed up in finish().
        self._code.append((OPCODES["loads"], d, -1 - self._scalars.index(arg), 0))
        return d

    def apply(self, name: str, *regs: int) -> int:
        if (name in UNARY and len(regs) != 1) or (name in BINARY and len(regs) != 2) \
                or name not in OPCODES:
            raise ValueError(f"fused op {name!r} with {len(regs)} operands")
        self._free.extend(reversed(regs))
        d = self._reg()
        self._code.append((OPCODES[name], d, regs[0], regs[1] if len(regs) == 2 else 0))
        return d

    def finish(self, result: int) -> Program:
        n = len(self._consts)
        loads = OPCODES["loads"]
        code = [(op, d, n + (-1 - a) if op == loads and a < 0 else a, b)
                for op, d, a, b in self._code]
        return Program(code, self._n_regs, result, self._consts, self._arrays, self._scalars)


def _sigmoid(x):
    e = np.exp(-np.abs(x))  # as ms-ops' Sigmoid kernel: never overflows, never cancels
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


_NUMPY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "neg": np.negative, "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tanh": np.tanh,
    "sigmoid": _sigmoid, "relu": lambda x: np.maximum(x, np.zeros((), x.dtype)),
    "max": np.maximum, "min": np.minimum, "pow": np.power, "square": np.square,
    "abs": np.abs,
}


def run_reference(program: Program, arrays, scalars, out: np.ndarray) -> np.ndarray:
    """Run ``program`` with numpy, one whole-array operation per instruction."""
    dtype = out.dtype
    regs: list = [None] * program.n_regs
    with np.errstate(all="ignore"):
        for op, d, a, b in program.code.tolist():
            name = NAMES[op]
            if name == "loada":
                regs[d] = np.asarray(arrays[a], dtype).reshape(-1)
            elif name == "loads":
                regs[d] = np.full(out.size, scalars[a], dtype)
            elif name in UNARY:
                regs[d] = _NUMPY[name](regs[a])
            else:
                regs[d] = _NUMPY[name](regs[a], regs[b])
    out.reshape(-1)[...] = regs[program.result]
    return out


def run(program: Program, arrays, scalars, out: np.ndarray, threads: int = 0) -> np.ndarray:
    """Run ``program`` with the compiled kernel into ``out`` (C-contiguous float32/64)."""
    from ms_graph.kernels import _fused

    return _fused.run(program.code, tuple(arrays), scalars, program.n_regs, program.result,
                      out, threads)
