"""MINDIR written and read back: hand-built lite graphs round-trip through the file and run
equal; bad files and unsupported operators give errors naming them; files MindSpore 2.10
itself exports are read (differential, skipped without /tmp/msenv)."""

from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest

pytest.importorskip("google.protobuf")

from ms_lite.ir import Graph, Node, Value  # noqa: E402
from ms_lite.mindir.reader import MindirFileError, load_mindir  # noqa: E402
from ms_lite.mindir.writer import MindirExportError, mindspore_native, save_mindir, to_mindir  # noqa: E402
from ms_tensor import Tensor, registry  # noqa: E402

MS_PYTHON = "/tmp/msenv/bin/python"
R = np.random.default_rng(0)


def run(graph, feeds):
    """Each node through its registry operator, eagerly."""
    from ms_ops.opdef import TENSOR

    reg = registry.load()
    env = {k: Tensor(v) for k, v in graph.constants.items()}
    env.update({v.name: Tensor(feeds[v.name]) for v in graph.inputs})
    for n in graph.nodes:
        op = reg.primitive(n.op)
        tensors, args = iter(n.inputs), []
        for a in op.inputs:
            if a.kind == TENSOR:
                name = next(tensors, "")
                args.append(env[name] if name else None)
            else:
                args.append(n.attrs.get(a.name, a.default))
        static = {a.name for a in op.inputs if a.kind != TENSOR}
        out = op(*args, **{k: v for k, v in n.attrs.items() if k not in static})
        for name, t in zip(n.outputs, out if isinstance(out, tuple) else (out,)):
            env[name] = t
    return [env[v.name].asnumpy() for v in graph.outputs]


def small_cnn() -> Graph:
    f = np.float32
    consts = {"w": R.standard_normal((4, 2, 3, 3)).astype(f), "fw": R.standard_normal(
        (3, 16)).astype(f), "fb": R.standard_normal(3).astype(f)}
    nodes = [
        Node("Conv2D", ["x", "w"], ["c"], {"out_channel": 4, "kernel_size": (3, 3),
                                           "pad_mode": "pad", "pad": (1, 1, 1, 1)}, "conv"),
        Node("Sigmoid", ["c"], ["s"], {}, "sig"),
        Node("AvgPool", ["s"], ["p"], {"kernel_size": (2, 2), "strides": (2, 2)}, "pool"),
        Node("Flatten", ["p"], ["fl"], {}, "flat"),
        Node("Dense", ["fl", "fw", "fb"], ["d"], {}, "fc"),
        Node("Tanh", ["d"], ["t"], {}, "tanh"),
        Node("Softmax", ["t"], ["y"], {"axis": -1}, "softmax"),
    ]
    g = Graph([Value("x", (2, 2, 4, 4), "float32")], [Value("y", (2, 3), "float32")], nodes,
              consts, "small")
    return g.validate()


def test_round_trip_runs_equal(tmp_path):
    g = small_cnn()
    x = R.standard_normal((2, 2, 4, 4)).astype(np.float32)
    path = save_mindir(g, tmp_path / "small")
    assert path.endswith("small.mindir")
    back = load_mindir(path)
    assert [n.op for n in back.nodes] == ["Conv2D", "Sigmoid", "AvgPool", "Flatten", "MatMul",
                                          "Add", "Tanh", "Softmax"]
    assert sorted(back.constants) == ["fb", "fw", "w"]
    np.testing.assert_allclose(run(back, {"x": x})[0], run(g, {"x": x})[0], rtol=1e-6)


def test_unknown_operator_is_named():
    g = Graph([Value("x", (2, 3), "float32")], [Value("y", (2,), "float32")],
              [Node("NoSuchOp", ["x"], ["y"], {}, "mystery")], {}, "g")
    with pytest.raises(MindirExportError, match="NoSuchOp.*'mystery'"):
        to_mindir(g)


def test_mindspore_native_tells_which_encoding():
    assert mindspore_native(small_cnn())
    g = Graph([Value("x", (2, 3), "float32")], [Value("y", (2,), "float32")],
              [Node("LogSumExp", ["x"], ["y"], {"axis": (1,)}, "lse")], {}, "g")
    assert not mindspore_native(g)


def test_bad_files_name_the_file(tmp_path):
    with pytest.raises(MindirFileError, match="nope.mindir: cannot read"):
        load_mindir(tmp_path / "nope.mindir")
    good = open(save_mindir(small_cnn(), tmp_path / "good"), "rb").read()
    rng = np.random.default_rng(1)
    for k in range(30):  # truncated or flipped: a MindirFileError naming the file
        data = bytearray(good[: rng.integers(0, len(good))])
        if k % 2 and data:
            data[rng.integers(0, len(data))] ^= 0x5A
        path = tmp_path / f"bad{k}.mindir"
        path.write_bytes(bytes(data))
        try:
            load_mindir(path)
        except MindirFileError as e:
            assert f"bad{k}.mindir" in str(e)


_EXPORT = """
import numpy as np, mindspore as ms
from mindspore import nn, ops
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn = nn.BatchNorm2d(2)
        self.gelu, self.lrelu, self.r6 = nn.GELU(approximate=False), nn.LeakyReLU(0.1), nn.ReLU6()
        self.pool = nn.MaxPool2d(2, 2)
        self.ln = nn.LayerNorm((2,), begin_norm_axis=-1, begin_params_axis=-1)
        self.fc = nn.Dense(8, 3)
        self.idx = ms.Tensor(np.array([0, 1], np.int32))
    def construct(self, x):
        x = self.conv(x)
        y = self.r6(self.lrelu(self.gelu(self.bn(x))))
        y = ops.concat((ops.transpose(y, (0, 1, 3, 2)), x), 1)
        y = ops.squeeze(ops.expand_dims(y, 0), 0)
        y = ops.ReduceMean(keep_dims=True)(y, (2, 3)) + ops.ReduceSum(True)(y, 1)[:, :, :1, :1]
        y = ops.pow(y, 2.0)
        z = self.ln(self.pool(x))
        z = ops.BatchMatMul()(z, ops.transpose(z, (0, 1, 3, 2)))
        z = ops.gather(z, self.idx, 1)
        return y, self.fc(ops.flatten(z))
ms.set_seed(0)
net = Net()
x = np.load("x.npy")
ms.export(net, ms.Tensor(x), file_name="ms_net", file_format="MINDIR")
for k, t in enumerate(net(ms.Tensor(x))):
    np.save(f"y{k}.npy", t.asnumpy())
for k in range(2):  # and the files microspore wrote
    ours = nn.GraphCell(ms.load(f"ours{k}.mindir"))
    np.save(f"ours{k}_y.npy", ours(ms.Tensor(np.load(f"ours{k}_x.npy"))).asnumpy())
"""


_RERUN = """
import numpy as np, mindspore as ms
from mindspore import nn
outs = nn.GraphCell(ms.load("rewritten.mindir"))(ms.Tensor(np.load("x.npy")))
for k, t in enumerate(outs):
    np.save(f"re{k}.npy", t.asnumpy())
"""


def elementwise_chain() -> Graph:
    """Every elementwise operator written in MindSpore's encoding, one after another."""
    chain = [("Exp", []), ("Log", []), ("Abs", []), ("Sqrt", []), ("Neg", []), ("Add", ["c"]),
             ("Sub", ["c"]), ("Mul", ["c"]), ("Div", ["c"]), ("Maximum", ["c"]),
             ("Minimum", ["c"]), ("ReLU", []), ("LogSoftmax", [])]
    nodes, prev = [], "x"
    for i, (op, extra) in enumerate(chain):
        attrs = {"axis": -1} if op == "LogSoftmax" else {}
        nodes.append(Node(op, [prev] + extra, [f"v{i}"], attrs, f"n{i}"))
        prev = f"v{i}"
    return Graph([Value("x", (3, 6), "float32")], [Value(prev, (3, 6), "float32")], nodes,
                 {"c": np.linspace(0.5, 2, 6).astype(np.float32)}, "elementwise").validate()


@pytest.mark.skipif(not os.access(MS_PYTHON, os.X_OK), reason="MindSpore 2.10 env absent")
def test_mindspore_differential(tmp_path):
    """One MindSpore 2.10 process: it exports a network that we read and run, and it runs
    the files we wrote of every operator we write in its encoding (padded conv, sigmoid,
    avg pool, flatten, dense, tanh, softmax; the elementwise chain)."""
    x = R.standard_normal((2, 1, 4, 4)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    ours = [(small_cnn(), R.standard_normal((2, 2, 4, 4)).astype(np.float32)),
            (elementwise_chain(), R.standard_normal((3, 6)).astype(np.float32))]
    for k, (g, gx) in enumerate(ours):
        assert mindspore_native(g)
        np.save(tmp_path / f"ours{k}_x.npy", gx)
        save_mindir(g, tmp_path / f"ours{k}")
    (tmp_path / "export.py").write_text(_EXPORT)
    proc = subprocess.run([MS_PYTHON, "export.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    g = load_mindir(tmp_path / "ms_net.mindir")  # MindSpore's file, read and run here
    for k, got in enumerate(run(g, {g.inputs[0].name: x})):
        np.testing.assert_allclose(got, np.load(tmp_path / f"y{k}.npy"), rtol=1e-5, atol=1e-5)
    # ... and written back by us (every operator in MindSpore's encoding), run by MindSpore
    assert mindspore_native(g)
    save_mindir(g, tmp_path / "rewritten")
    (tmp_path / "rerun.py").write_text(_RERUN)
    proc = subprocess.run([MS_PYTHON, "rerun.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for k in range(2):
        np.testing.assert_allclose(np.load(tmp_path / f"re{k}.npy"),
                                   np.load(tmp_path / f"y{k}.npy"), rtol=1e-5, atol=1e-5)
    for k, (g, gx) in enumerate(ours):
        np.testing.assert_allclose(np.load(tmp_path / f"ours{k}_y.npy"), run(g, {"x": gx})[0],
                                   rtol=1e-5, atol=1e-5, err_msg=g.name)


def _sample_graph(op, args, attrs):
    from ms_ops.opdef import TENSOR

    inputs, names, attrs = [], [], dict(attrs)
    for a, v in zip(op.inputs, args):
        if a.kind != TENSOR:
            attrs[a.name] = v
        elif v is None:
            names.append("")
        else:
            arr = np.asarray(v)
            arr = arr.astype(np.float32) if arr.dtype == np.float64 else arr
            inputs.append((f"in{len(inputs)}", arr))
            names.append(inputs[-1][0])
    feeds = dict(inputs)
    g = Graph([Value(n, a.shape, a.dtype.name) for n, a in inputs], [], [
        Node(op.name, names, ["out"], attrs, "node0")], {}, op.name)
    (want,) = run(Graph(g.inputs, [Value("out", (), "float32")], g.nodes, {}, "g"), feeds)[:1]
    g.outputs.append(Value("out", want.shape, want.dtype.name))
    return g, feeds, want


def test_every_operator_round_trips_on_its_samples(tmp_path):
    """Each registry operator's samples: written (MindSpore's encoding or the generic one),
    read back, run equal (the first output; sampled operators that eager rejects in
    float32 are left out)."""
    reg = registry.load()
    checked = 0
    for name in reg.names("primitive"):
        sampler, op = reg.lookup("op_sample", name), reg.primitive(name)
        if sampler is None or op.stateful:
            continue
        for args, attrs in list(sampler(np.random.default_rng(0)))[:2]:
            try:
                g, feeds, want = _sample_graph(op, args, attrs)
            except (TypeError, ValueError, KeyError):
                continue
            try:
                back = load_mindir(save_mindir(g, tmp_path / "op"))
            except MindirExportError as e:  # complex results: refused by name
                assert "has no MINDIR type" in str(e) and name in str(e)
                continue
            got = run(back, feeds)[0]
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, err_msg=name)
            checked += 1
    assert checked > 100
