"""The bytecode of fused elementwise programs: opcodes, assembler, numpy reference, runner.

A program is an int32 array of ``(opcode, dst, a, b)`` instructions. ``dst`` is a register;
``a`` and ``b`` are operands, numbered in one space: the registers ``0 .. n_regs-1``, then
the array operands, then the scalar operands (broadcast). Unary ops ignore ``b``. Reading
an array or a scalar straight from its operand number, with no load instruction, keeps
a chain such as ``((x + b) * b + b) ...`` at one instruction per operator, however often
it reads ``b``. Operand ``result`` after the last instruction is the output. The compiled
kernel (``_fused.pyx``) runs the program block by block in one pass over memory;
``run_reference`` runs it with whole-array numpy operations and is what the kernel is
tested against.
"""

from __future__ import annotations

import numpy as np

from ms_graph.kernels import _fused

__all__ = ["OPCODES", "UNARY", "BINARY", "Program", "Assembler", "run", "run_reference"]

OPCODES = {
    "add": 0, "sub": 1, "mul": 2, "div": 3, "neg": 4, "exp": 5, "log": 6, "sqrt": 7,
    "tanh": 8, "sigmoid": 9, "relu": 10, "max": 11, "min": 12, "pow": 13, "square": 14,
    "abs": 15,
}
NAMES = {v: k for k, v in OPCODES.items()}
UNARY = frozenset({"neg", "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "square", "abs"})
BINARY = frozenset({"add", "sub", "mul", "div", "max", "min", "pow"})


class Program:
    """An assembled program plus how to feed it from a fused node's arguments.

    ``array_args`` are the argument positions of the array operands (operand
    ``n_regs + k`` is argument ``array_args[k]``); the scalar operands that follow are the
    constants ``consts``, then the one-element arguments at positions ``scalar_args``.
    Constructing it checks the program and prepares its compiled kernel (``kernel``), so
    a malformed program fails here, once, and a run reads and writes only its operands.
    """

    __slots__ = ("code", "n_regs", "result", "consts", "array_args", "scalar_args",
                 "kernel", "_const_table")

    def __init__(self, code, n_regs, result, consts, array_args, scalar_args):
        code = np.array(code, dtype=np.int32)
        if code.size == 0:
            code = code.reshape(0, 4)
        code.flags.writeable = False
        self.code = code
        self.n_regs = int(n_regs)
        self.result = int(result)
        self.consts = tuple(float(c) for c in consts)
        self.array_args = tuple(array_args)
        self.scalar_args = tuple(scalar_args)
        self._const_table = np.array(self.consts, dtype=np.float64)
        self._const_table.flags.writeable = False
        self.kernel = _fused.Kernel(code, self.n_regs, len(self.array_args),
                                    len(self.consts) + len(self.scalar_args), self.result)

    def scalars(self, args) -> np.ndarray:
        """The scalar table for one run: constants, then the scalar arguments' values."""
        if not self.scalar_args:
            return self._const_table
        runtime = [float(np.asarray(args[i]).reshape(-1)[0]) for i in self.scalar_args]
        return np.array(self.consts + tuple(runtime), dtype=np.float64)

    def operand_name(self, k: int) -> str:
        """``r3``, ``arg0`` or a constant's repr, as ``text`` writes operand ``k``."""
        if k < self.n_regs:
            return f"r{k}"
        k -= self.n_regs
        if k < len(self.array_args):
            return f"arg{self.array_args[k]}"
        k -= len(self.array_args)
        if k < len(self.consts):
            return repr(self.consts[k])
        return f"arg{self.scalar_args[k - len(self.consts)]}"

    def text(self) -> str:
        """One instruction a line, e.g. ``r1 = mul arg0 0.5``."""
        name = self.operand_name
        lines = []
        for op, d, a, b in self.code.tolist():
            ops = name(a) if NAMES[op] in UNARY else f"{name(a)} {name(b)}"
            lines.append(f"r{d} = {NAMES[op]} {ops}")
        return "\n".join(lines + [f"return {name(self.result)}"])

    def __repr__(self) -> str:
        return f"<Program {len(self.code)} instructions, {self.n_regs} registers>"


class Assembler:
    """Builds a Program from an expression tree, evaluated operands first.

    ``load_*`` return operand handles (an array or a scalar: no instruction), ``apply``
    emits one instruction into a fresh register. A register is read once (a tree), so it
    is free after the instruction that reads it; the destination is taken before the
    operands are freed, so no instruction writes a register it reads (the kernel's loops
    then need no overlap checks). The register count is the tree's Strahler-like depth
    plus one, not its size.
    """

    def __init__(self):
        self._code: list[tuple] = []
        self._free: list[int] = []
        self._n_regs = 0
        self._consts: list[float] = []
        self._const_keys: dict[bytes, int] = {}
        self._arrays: dict[int, int] = {}  # argument position -> array operand number
        self._scalars: dict[int, int] = {}  # argument position -> scalar argument number

    # Operand handles until finish(): ("r", register), ("a", array k), ("c", constant k),
    # ("s", scalar argument k).
    def load_array(self, arg: int) -> tuple:
        return ("a", self._arrays.setdefault(arg, len(self._arrays)))

    def load_const(self, value: float) -> tuple:
        value = float(value)
        # Key by bit pattern, so 0.0 and -0.0 (and NaNs) stay distinct constants.
        k = self._const_keys.setdefault(np.float64(value).tobytes(), len(self._consts))
        if k == len(self._consts):
            self._consts.append(value)
        return ("c", k)

    def load_scalar_arg(self, arg: int) -> tuple:
        return ("s", self._scalars.setdefault(arg, len(self._scalars)))

    def _reg(self) -> int:
        if self._free:
            return self._free.pop()
        self._n_regs += 1
        return self._n_regs - 1

    def apply(self, name: str, *operands: tuple) -> tuple:
        if name not in OPCODES or (name in UNARY and len(operands) != 1) \
                or (name in BINARY and len(operands) != 2):
            raise ValueError(f"fused op {name!r} with {len(operands)} operands")
        d = self._reg()
        self._free.extend(k for kind, k in reversed(operands) if kind == "r")
        self._code.append((OPCODES[name], d, operands[0],
                           operands[1] if len(operands) == 2 else operands[0]))
        return ("r", d)

    def finish(self, result: tuple) -> Program:
        base = {"r": 0, "a": self._n_regs, "c": self._n_regs + len(self._arrays)}
        base["s"] = base["c"] + len(self._consts)

        def number(handle):
            return base[handle[0]] + handle[1]

        code = [(op, d, number(a), number(b)) for op, d, a, b in self._code]
        return Program(code, self._n_regs, number(result), self._consts,
                       list(self._arrays), list(self._scalars))


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
    operands: list = [None] * program.n_regs
    operands += [np.asarray(a, dtype).reshape(-1) for a in arrays]
    operands += [np.full(out.size, s, dtype) for s in scalars]
    with np.errstate(all="ignore"):
        for op, d, a, b in program.code.tolist():
            name = NAMES[op]
            if name in UNARY:
                operands[d] = _NUMPY[name](operands[a])
            else:
                operands[d] = _NUMPY[name](operands[a], operands[b])
    out.reshape(-1)[...] = operands[program.result]
    return out


def run(program: Program, arrays, scalars, out: np.ndarray, threads: int = 0) -> np.ndarray:
    """Run ``program`` with the compiled kernel into ``out`` (C-contiguous float32/64).

    ``arrays``: one per array operand, C-contiguous, of ``out``'s dtype and size;
    ``scalars``: ``program.scalars(args)``; ``threads=0`` lets OpenMP choose.
    """
    return program.kernel.run(tuple(arrays), scalars, out, threads)
