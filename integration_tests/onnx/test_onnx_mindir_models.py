"""Whole networks through ms-lite's ONNX and MINDIR doors: the seed's LeNet5 and an MLP
exported (ONNX in onnxruntime, MINDIR in real MindSpore 2.10) equal eager; ONNX models
(built here, and exported by PyTorch) convert into a microspore package that matches
onnxruntime."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import microspore as ms  # noqa: E402
from microspore import nn  # noqa: E402
from ms_lite.ir import from_cell  # noqa: E402
from ms_lite.mindir.reader import load_mindir  # noqa: E402
from ms_lite.mindir.writer import save_mindir  # noqa: E402
from ms_lite.onnx.convert import convert  # noqa: E402
from ms_lite.onnx.export import export_onnx  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MS_PYTHON = "/tmp/msenv/bin/python"


def _lenet():
    spec = importlib.util.spec_from_file_location("lenet_example", ROOT / "examples/lenet.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ms.set_seed(0)
    return mod.LeNet5()


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Dense(20, 32), nn.Dense(32, 16), nn.Dense(16, 4)
        self.relu, self.softmax = nn.ReLU(), nn.Softmax()

    def construct(self, x):
        return self.softmax(self.fc3(self.relu(self.fc2(self.relu(self.fc1(x))))))


NETS = {"lenet5": (_lenet, (2, 1, 32, 32)), "mlp": (MLP, (3, 20))}


@pytest.fixture(params=sorted(NETS))
def net_and_input(request):
    make, shape = NETS[request.param]
    net = make()
    net.set_train(False)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    return request.param, net, x


def test_onnx_export_equals_eager(net_and_input, tmp_path):
    name, net, x = net_and_input
    want = net(ms.Tensor(x)).asnumpy()
    path = tmp_path / f"{name}.onnx"
    export_onnx(from_cell(net, x), path)
    got = ort.InferenceSession(str(path)).run(None, {"x": x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_onnx_round_trip_through_convert(net_and_input, tmp_path):
    """export -> microspore convert -> the generated package equals onnxruntime."""
    name, net, x = net_and_input
    path = tmp_path / f"{name}.onnx"
    export_onnx(from_cell(net, x), path)
    out = tmp_path / f"{name}_pkg"
    convert(path, str(out))
    want = ort.InferenceSession(str(path)).run(None, {"x": x})[0]
    converted = _load_package(out)
    np.testing.assert_allclose(converted(ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:  # the generated construct compiles too, and computes the same
        got = converted(ms.Tensor(x)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_microspore_convert_command(tmp_path):
    """The registered command, as a user runs it."""
    net = MLP()
    net.set_train(False)
    x = np.ones((3, 20), np.float32)
    export_onnx(from_cell(net, x), tmp_path / "mlp.onnx")
    out = tmp_path / "cli_pkg"
    proc = subprocess.run([sys.executable, "-m", "microspore", "convert",
                           str(tmp_path / "mlp.onnx"), "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "wrote" in proc.stdout
    assert sorted(p.name for p in out.iterdir()) == ["__init__.py", "model.py",
                                                     "model.safetensors", "report.txt"]
    text = (out / "model.py").read_text()
    assert "class Model(nn.Cell):" in text and "def construct(self, x):" in text
    np.testing.assert_allclose(_load_package(out)(ms.Tensor(x)).asnumpy(),
                               net(ms.Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-6)
    help_text = subprocess.run([sys.executable, "-m", "microspore", "--help"],
                               capture_output=True, text=True, timeout=120).stdout
    assert "convert" in help_text


def _load_package(directory: Path):
    name = f"converted_{directory.name}_{abs(hash(str(directory)))}"
    spec = importlib.util.spec_from_file_location(name, directory / "__init__.py",
                                                  submodule_search_locations=[str(directory)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod.load()


def test_mindir_round_trip_equals_eager(net_and_input, tmp_path):
    name, net, x = net_and_input
    path = save_mindir(from_cell(net, x), tmp_path / name)
    g = load_mindir(path)
    want = net(ms.Tensor(x)).asnumpy()
    onnx_path = tmp_path / "back.onnx"
    export_onnx(g, onnx_path)  # the read-back graph, run by onnxruntime
    got = ort.InferenceSession(str(onnx_path)).run(None, {g.inputs[0].name: x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


_MS_RUN = """
import sys, numpy as np, mindspore as ms
from mindspore import nn
for model, x, y in zip(*[iter(sys.argv[1:])] * 3):
    net = nn.GraphCell(ms.load(model))
    np.save(y, net(ms.Tensor(np.load(x))).asnumpy())

class LeNet5(nn.Cell):  # and MindSpore's own export of the seed's LeNet5, for the converter
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1, self.fc2, self.fc3 = nn.Dense(400, 120), nn.Dense(120, 84), nn.Dense(84, 10)
        self.relu, self.pool, self.flatten = nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten()
    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.flatten(self.pool(self.relu(self.conv2(x))))
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))
ms.set_seed(0)
net, x = LeNet5(), ms.Tensor(np.load(sys.argv[2]))
ms.export(net, x, file_name="ms_lenet", file_format="MINDIR")
np.save("ms_lenet_y.npy", net(x).asnumpy())
"""


@pytest.mark.skipif(not os.access(MS_PYTHON, os.X_OK), reason="MindSpore 2.10 env absent")
def test_real_mindspore_runs_our_mindir(tmp_path):
    """Differential: MindSpore 2.10's ms.load + nn.GraphCell on the files we wrote (both
    networks in one MindSpore process: its import takes seconds)."""
    args, expected = [], {}
    for name, (make, shape) in sorted(NETS.items()):
        net = make()
        net.set_train(False)
        x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
        np.save(tmp_path / f"{name}_x.npy", x)
        args += [save_mindir(from_cell(net, x), tmp_path / name), str(tmp_path / f"{name}_x.npy"),
                 str(tmp_path / f"{name}_y.npy")]
        expected[name] = net(ms.Tensor(x)).asnumpy()
    script = tmp_path / "run.py"
    script.write_text(_MS_RUN)
    proc = subprocess.run([MS_PYTHON, str(script), *args], capture_output=True, text=True,
                          timeout=240, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for name, want in expected.items():
        got = np.load(tmp_path / f"{name}_y.npy")
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=name)
    # MindSpore's own LeNet5 file -> microspore_lite.Converter -> the lite runtime
    x = np.load(tmp_path / "lenet5_x.npy")
    got = _convert_and_run("MINDIR", tmp_path / "ms_lenet.mindir", tmp_path / "ms_lenet", x)
    np.testing.assert_allclose(got, np.load(tmp_path / "ms_lenet_y.npy"), rtol=1e-5, atol=1e-6)


def _convert_and_run(fmk: str, model_file, output_file, x):
    """MindSpore Lite's Python flow: Converter().convert, then Model.build_from_file."""
    import microspore_lite as mslite

    mslite.Converter().convert(fmk_type=getattr(mslite.FmkType, fmk), model_file=str(model_file),
                               output_file=str(output_file))
    context = mslite.Context()
    context.target = ["cpu"]
    model = mslite.Model()
    model.build_from_file(f"{output_file}.ms", mslite.ModelType.MINDIR_LITE, context)
    inputs = model.get_inputs()
    inputs[0].set_data_from_numpy(x)
    return model.predict(inputs)[0].get_data_to_numpy()


def test_onnx_through_the_lite_converter(tmp_path):
    """An ONNX file -> microspore_lite.Converter (fmk ONNX, read by this importer) -> the lite
    runtime equals onnxruntime."""
    net = _lenet()
    net.set_train(False)
    x = np.random.default_rng(2).standard_normal((1, 1, 32, 32)).astype(np.float32)
    path = tmp_path / "lenet.onnx"
    export_onnx(from_cell(net, x), path)
    got = _convert_and_run("ONNX", path, tmp_path / "lenet", x)
    want = ort.InferenceSession(str(path)).run(None, {"x": x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_pytorch_exported_models_convert(tmp_path):
    torch = pytest.importorskip("torch")
    from torch import nn as tnn

    class Small(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv = tnn.Conv2d(3, 8, 3, padding=1)
            self.bn = tnn.BatchNorm2d(8)
            self.pool = tnn.AvgPool2d(2)
            self.fc = tnn.Linear(8 * 4 * 4, 5)

        def forward(self, x):
            x = self.pool(torch.relu(self.bn(self.conv(x))))
            x = x.view(x.size(0), -1)
            return torch.softmax(torch.sigmoid(self.fc(x)) * 2 - 1, dim=1)

    class Block(tnn.Module):
        """Batch norm without conv bias, grouped strided conv, GELU, transposed conv,
        concat, slicing, adaptive pooling, layer norm, attention-style matmuls, clamp."""

        def __init__(self):
            super().__init__()
            self.conv1 = tnn.Conv2d(3, 8, 3, padding=1, bias=False)
            self.bn1 = tnn.BatchNorm2d(8)
            self.conv2 = tnn.Conv2d(8, 8, 3, stride=2, padding=1, groups=2)
            self.up = tnn.ConvTranspose2d(8, 4, 2, stride=2)
            self.pool = tnn.AdaptiveAvgPool2d(1)
            self.ln = tnn.LayerNorm(12)
            self.fc = tnn.Linear(12, 6)

        def forward(self, x):
            y = torch.relu(self.bn1(self.conv1(x)))
            z = self.up(tnn.functional.gelu(self.conv2(y)))
            z = torch.cat([z, x * 0.5, torch.sigmoid(x)], dim=1)[:, :, 1:, :]
            g = self.pool(z).flatten(1)
            t = torch.cat([g, g[:, :2]], dim=1)
            h = self.ln(t).unsqueeze(1)
            att = torch.softmax(h @ h.transpose(1, 2) / 3.0, dim=-1) @ h
            return self.fc(att.squeeze(1)).clamp(-1, 1) + torch.tanh(t).mean(1, keepdim=True)

    torch.manual_seed(0)
    block = Block()
    with torch.no_grad():  # batch-norm statistics that are not the identity
        block.bn1.running_mean.uniform_(-0.5, 0.5)
        block.bn1.running_var.uniform_(0.5, 2.0)
    models = {"block": (block, (2, 3, 8, 8)), "small_cnn": (Small(), (2, 3, 8, 8)),
              "mlp": (tnn.Sequential(tnn.Linear(6, 16), tnn.Tanh(), tnn.Dropout(0.5),
                                     tnn.Linear(16, 3), tnn.LeakyReLU(0.1)), (4, 6))}
    for name, (model, shape) in models.items():
        model.eval()
        x = torch.randn(*shape)
        path = tmp_path / f"{name}.onnx"
        torch.onnx.export(model, (x,), str(path), input_names=["x"], output_names=["y"],
                          dynamo=False)
        out = tmp_path / f"{name}_pkg"
        result = convert(path, str(out))
        assert not result.unsupported
        want = ort.InferenceSession(str(path)).run(None, {"x": x.numpy()})[0]
        got = _load_package(out)(ms.Tensor(x.numpy())).asnumpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=name)
