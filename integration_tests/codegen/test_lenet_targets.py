"""The main job's trained LeNet5 compiled to C, float32 and int8 (calibrated on the bundled
digits), equals the Python lite runtime on a test digit on every target: x86-64
natively, ARM64/ARM32 Linux under qemu-user, an MPS2 Cortex-M3 under qemu-system-arm
(float32 within 1e-5, int8 bit for bit), and names the digit's label."""

from __future__ import annotations

import numpy as np
import pytest

from ms_lite.codegen import generate, targets
from ms_lite.runtime.executor import Executor

pytestmark = pytest.mark.slow

TARGETS = ["x86", "ARM64", "ARM32", "Cortex-M"]


@pytest.mark.parametrize("precision", ["fp32", "int8"])
@pytest.mark.parametrize("target", TARGETS)
def test_lenet5_in_c_equals_the_lite_runtime(lenet_graphs, precision, target, tmp_path):
    missing = targets.missing_tools(target)
    if missing:
        pytest.skip(f"{target}: {', '.join(missing)} not installed")
    graphs, x, label = lenet_graphs
    graph = graphs[precision]
    project = generate(graph, tmp_path, project_name=f"lenet_{precision}", target=target,
                       golden_inputs=[x])
    targets.build(project.path, target)
    run = targets.run_program(project.path, target, timeout=300)
    (got,), passed = targets.parse_golden(run.stdout, project.outputs)
    (want,) = Executor(graph).run([x])
    assert passed, run.stdout
    if precision == "int8":  # every int8 step equal, so the dequantized floats are too
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert int(got.argmax()) == label  # a trained network: the comparison means something


def test_lenet5_int8_fits_the_microcontroller_goal(lenet_graphs, tmp_path):
    graphs, _, _ = lenet_graphs
    project = generate(graphs["int8"], tmp_path, target="Cortex-M", ram_budget="8KB")
    assert project.arena_size < 8 * 1024
    # conv+pool fused, the input quantized row by row from the caller's buffer: 1,576 B
    assert project.arena_size < 2 * 1024
    plain = generate(graphs["int8"], tmp_path, project_name="plain", target="Cortex-M",
                     fuse=False)
    assert plain.arena_size > 5 * 1024  # the conv output and both inputs, as before
    assert project.weights_bytes < 64 * 1024


@pytest.mark.parametrize("target, precision", [("x86", "fp32"), ("x86", "int8"),
                                               ("ARM64", "int8"), ("ARM32", "fp32")])
def test_lenet5_on_threads_equals_one_thread(lenet_graphs, precision, target, tmp_path):
    """support_parallel: 1 and 3 threads give the same bits, which pass the golden test."""
    missing = targets.missing_tools(target)
    if missing:
        pytest.skip(f"{target}: {', '.join(missing)} not installed")
    graphs, x, _ = lenet_graphs
    project = generate(graphs[precision], tmp_path, project_name="lenet_mt", target=target,
                       golden_inputs=[x], support_parallel=True)
    targets.build(project.path, target)
    results = []
    for threads in (1, 3):
        run = targets.run_program(project.path, target, args=[threads], timeout=300)
        (got,), passed = targets.parse_golden(run.stdout, project.outputs)
        assert passed, run.stdout
        results.append(got.view(np.uint32))
    np.testing.assert_array_equal(results[0], results[1])
