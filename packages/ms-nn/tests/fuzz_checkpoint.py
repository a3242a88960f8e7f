"""atheris fuzz target: ``load_checkpoint`` on any bytes returns, or raises ValueError naming
the file; never another exception, a hang, or an allocation beyond what the file holds.

    python packages/ms-nn/tests/fuzz_checkpoint.py -max_total_time=600 [corpus_dir]

Takes libFuzzer's options. An empty (or no) corpus is seeded with real checkpoints of every
dtype; a crash input is saved as ``crash-*`` in the working directory.
``test_checkpoint_fuzz.py`` runs it briefly.
"""

import json
import os
import random
import sys
import tempfile

import numpy as np

_TOKENS = ("dtype", "shape", "data_offsets", "__metadata__", "format", "order", "strings",
           "complex128", "microspore-checkpoint-1", "BOOL", "U8", "I8", "U16", "I16", "U32",
           "I32", "U64", "I64", "F16", "BF16", "F32", "F64", "C64", "F8_E4M3", "C128")


def _seeds(directory: str) -> None:
    from ms_nn.train.checkpoint import save_checkpoint
    from ms_tensor import Tensor
    from ms_tensor import dtype as mstype

    save_checkpoint({str(t): Tensor(np.arange(3).astype(t.np)) for t in mstype.all_types},
                    os.path.join(directory, "all.ckpt"))
    save_checkpoint({"w": Tensor(np.ones((2, 2), np.float32))}, os.path.join(directory, "w.ckpt"),
                    append_dict={"epoch_num": 3, "tag": "x"})
    save_checkpoint({"z": Tensor(np.array(1j, np.complex128)), "e": Tensor(np.zeros((0, 3)))},
                    os.path.join(directory, "z.ckpt"))


# What a hostile header puts where a value was: every JSON type, edge numbers, our tokens.
_ODD = (None, True, False, -1, 0, 1, 2 ** 31, 2 ** 62, 2 ** 64, 1.5, -0.0, "", "F32", "C64",
        "[]", "{}", '["a"]', '{"a": 1}', "[1]", [], {}, [0], [-1], [0, 0], [[0]], ["F32"],
        {"dtype": "F32"}, "x" * 300)


def _mutate_json(header: bytes, rng: random.Random):
    """The header with one JSON value replaced, copied or dropped; None if it is not JSON."""
    try:
        root = json.loads(header)
    except ValueError:
        return None
    slots = []  # (container, key) of every value below the root

    def walk(node):
        items = node.items() if isinstance(node, dict) else enumerate(node) \
            if isinstance(node, list) else ()
        for key, value in list(items):
            slots.append((node, key))
            walk(value)

    walk(root)
    if not slots:
        return json.dumps(rng.choice(_ODD)).encode()
    node, key = rng.choice(slots)
    action = rng.random()
    if action < 0.6:
        node[key] = rng.choice(_ODD)
    elif action < 0.7 and isinstance(node[key], str):  # metadata holds JSON inside strings
        node[key] = json.dumps(rng.choice(_ODD))
    elif action < 0.85:
        del node[key]
    elif isinstance(node, dict):
        node[rng.choice(_TOKENS)] = node[key]
    else:
        node.append(node[key])
    return json.dumps(root).encode()


def _limit_memory(extra: int = 1 << 30) -> None:
    """A lying header that makes the loader allocate more than the file holds hits this limit
    and crashes the run (MemoryError) instead of swapping."""
    try:
        import resource

        with open("/proc/self/status") as f:
            vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
        resource.setrlimit(resource.RLIMIT_AS, (vm + extra, vm + extra))
    except (ImportError, OSError, StopIteration, ValueError):
        pass


def main(argv) -> None:
    import atheris

    from ms_nn.train import _safetensors_file, checkpoint

    for module in (_safetensors_file, checkpoint):  # coverage feedback for the loader
        for fn in vars(module).values():
            if getattr(fn, "__module__", None) == module.__name__ and hasattr(fn, "__code__"):
                atheris.instrument_func(fn)
    work = tempfile.mkdtemp(prefix="fuzz_checkpoint_")
    path = os.path.join(work, "fuzzed.ckpt")
    corpora = [a for a in argv[1:] if not a.startswith("-")]
    if not corpora:
        corpora = [os.path.join(work, "corpus")]
        os.mkdir(corpora[0])
        argv = [*argv, corpora[0]]
    if not any(os.listdir(c) for c in corpora if os.path.isdir(c)):
        _seeds(corpora[0])
    tokens = os.path.join(work, "tokens.dict")
    with open(tokens, "w") as f:
        f.writelines(f'"{t}"\n' for t in _TOKENS)
    argv = [*argv, f"-dict={tokens}"]

    def one_input(data: bytes) -> None:
        with open(path, "wb") as f:
            f.write(data)
        try:
            loaded = checkpoint.load_checkpoint(path)
        except ValueError as exc:
            if path not in str(exc):
                raise AssertionError(f"the error does not name the file: {exc}") from exc
            return
        for name, value in loaded.items():
            assert isinstance(name, str) and (isinstance(value, str) or value.shape is not None)

    def mutate(data: bytes, max_size: int, seed: int) -> bytes:
        # Most of the time keep the length prefix true and mutate the header's bytes, its
        # JSON structure or the data alone, so that mutations get past the first check into
        # the header's meaning.
        n = int.from_bytes(data[:8], "little") if len(data) >= 8 else -1
        if seed % 4 == 0 or not 0 <= n <= len(data) - 8:
            return atheris.Mutate(data, max_size)
        header, body = data[8:8 + n], data[8 + n:]
        if seed % 4 == 1:
            header = atheris.Mutate(header, len(header) + 64)
        elif seed % 4 == 2:
            header = _mutate_json(header, random.Random(seed)) or header
        else:
            body = atheris.Mutate(body, len(body) + 64)
        return (len(header).to_bytes(8, "little") + header + body)[:max_size]

    _limit_memory()
    atheris.Setup(argv, one_input, custom_mutator=mutate)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
