"""The issue's check: the main job's LeNet5 (trained by examples/lenet.py's code, saved by
train_lenet.py) -> ms.export MINDIR -> convert fp32 / fp16 / int8 -> the lite runtime.

fp32 equals eager within 1e-5; int8 top-1 accuracy on the bundled test digits is within
one point of fp32; the int8 file is under a third of the fp32 one."""

import sys

import numpy as np
import pytest

pytest.importorskip("ms_nn")
pytest.importorskip("ms_data")

import microspore as ms  # noqa: E402
import microspore_lite as mslite  # noqa: E402
from integration_tests.lite.train_lenet import CKPT, ROOT  # noqa: E402
from ms_lite.cli import main as lite_cli  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    sys.path.insert(0, str(ROOT / "examples"))
    import lenet

    import microspore.dataset as ds

    net = lenet.LeNet5(10)
    ms.load_param_into_net(net, ms.load_checkpoint(str(CKPT)))
    net.set_train(False)
    data_dir = ds.bundled.digits_dir()
    test = [(np.asarray(x), np.asarray(y)) for x, y in lenet.create_dataset(
        data_dir, "test", training=False).create_tuple_iterator(output_numpy=True)]
    train = lenet.create_dataset(data_dir, "train", batch_size=32, training=False)
    calib = np.concatenate([np.asarray(x) for x, _ in
                            train.create_tuple_iterator(output_numpy=True)][:4])
    tmp = tmp_path_factory.mktemp("lenet")
    np.save(tmp / "calib.npy", calib)
    path = ms.export(net, ms.Tensor(test[0][0]), file_name=str(tmp / "lenet"),
                     file_format="MINDIR")
    return net, test, tmp, path


def _run(ms_path, test):
    ctx = mslite.Context()
    ctx.target = ["cpu"]
    model = mslite.Model()
    model.build_from_file(ms_path, mslite.ModelType.MINDIR_LITE, ctx)
    outs = []
    for x, _ in test:
        inputs = model.get_inputs()
        if inputs[0].shape != list(x.shape):
            model.resize(inputs, [list(x.shape)])
            inputs = model.get_inputs()
        inputs[0].set_data_from_numpy(x)
        outs.append(model.predict(inputs)[0].get_data_to_numpy())
    return outs


def _accuracy(outs, test):
    return np.mean(np.concatenate([o.argmax(1) == y for o, (_, y) in zip(outs, test)]))


def test_lenet_fp32_fp16_int8_through_the_converter(trained, capsys):
    net, test, tmp, mindir = trained
    eager = [net(ms.Tensor(x)).asnumpy() for x, _ in test]

    result = mslite.Converter().convert(mslite.FmkType.MINDIR, mindir, str(tmp / "fp32"))
    # both convolutions pool their own output (the converter's Conv+Pool fusion)
    assert {n.op for n in result.graph.nodes} >= {"Conv2DPoolFusion", "FullConnection"}
    assert "Conv2DFusion" not in {n.op for n in result.graph.nodes}
    assert "Conv2DPoolFusion" in result.report.text()
    fp32 = _run(result.path, test)
    for a, b in zip(fp32, eager):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)

    assert lite_cli(["convert", "--fmk=MINDIR", f"--modelFile={mindir}",
                     f"--outputFile={tmp / 'fp16'}", "--fp16=on"]) == 0
    assert "CONVERT RESULT SUCCESS" in capsys.readouterr().out
    fp16 = _run(str(tmp / "fp16.ms"), test)
    for a, b in zip(fp16, eager):
        np.testing.assert_allclose(a, b, rtol=1e-2, atol=1e-2)

    cfg = tmp / "quant.cfg"
    cfg.write_text("[common_quant_param]\nquant_type=FULL_QUANT\nbit_num=8\n"
                   "[data_preprocess_param]\ncalibrate_path=x:calib.npy\ncalibrate_size=100\n"
                   "[full_quant_param]\nactivation_quant_method=MAX_MIN\n")
    assert lite_cli(["convert", "--fmk=MINDIR", f"--modelFile={mindir}",
                     f"--outputFile={tmp / 'int8'}", f"--configFile={cfg}"]) == 0
    int8 = _run(str(tmp / "int8.ms"), test)
    acc32, acc8 = _accuracy(fp32, test), _accuracy(int8, test)
    assert acc8 >= acc32 - 0.01, (acc32, acc8)
    assert acc32 > 0.5  # a trained network, so the comparison means something
    sizes = {k: (tmp / f"{k}.ms").stat().st_size for k in ("fp32", "fp16", "int8")}
    assert sizes["int8"] < sizes["fp32"] / 3 and sizes["fp16"] < sizes["fp32"] * 0.6
    report = (tmp / "int8.ms.report.txt").read_text()
    assert "QuantConv2D" in report and "QuantFullConnection" in report


def test_lenet_graph_cell_and_load(trained):
    net, test, _, mindir = trained
    cell = ms.nn.GraphCell(ms.load(mindir))
    x = test[0][0]
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), net(ms.Tensor(x)).asnumpy(),
                               rtol=1e-5, atol=1e-6)


def test_lenet_onnx_in_onnxruntime_equals_eager(trained):
    ort = pytest.importorskip("onnxruntime")
    net, test, tmp, _ = trained
    x = test[0][0]
    path = ms.export(net, ms.Tensor(x), file_name=str(tmp / "lenet"), file_format="ONNX")
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    got = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    np.testing.assert_allclose(got, net(ms.Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-5)
