"""The generator on x86: a small CNN's C equals the Python lite runtime, the project has
the promised shape, and errors name what is wrong."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

from ms_lite.codegen import MemoryBudgetError, MissingTemplateError, generate, targets
from ms_lite.ir import Graph, Node, Value

needs_gcc = pytest.mark.skipif(bool(targets.missing_tools("x86")),
                               reason="gcc or make is not installed")


@pytest.fixture(scope="module")
def cnn_project(tmp_path_factory, small_cnn):
    return generate(small_cnn(), tmp_path_factory.mktemp("gen"), project_name="cnn")


@needs_gcc
def test_small_cnn_in_c_equals_the_lite_runtime(cnn_project):
    targets.build(cnn_project.path, "x86")
    run = targets.run_program(cnn_project.path, "x86")
    got, passed = targets.parse_golden(run.stdout, cnn_project.outputs)
    assert passed and run.returncode == 0, run.stdout
    for g, want in zip(got, cnn_project.golden_outputs):
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-5)


@needs_gcc
def test_benchmark_main_runs_and_reports_latency(cnn_project):
    targets.build(cnn_project.path, "x86")
    run = targets.run_program(cnn_project.path, "x86", "benchmark", args=[20])
    assert re.search(r"benchmark: loops=20 median_us=[\d.]+ min_us=[\d.]+ arena_bytes=\d+",
                     run.stdout), run.stdout


def test_project_layout_and_library_includes(cnn_project):
    root = cnn_project.path
    for rel in ("include/net.h", "src/net.c", "src/weight.c", "src/weight.h", "Makefile",
                "CMakeLists.txt", "benchmark/golden.c", "benchmark/benchmark.c",
                "memory_plan.txt", "cortex-m/startup.c", "cortex-m/mps2.ld"):
        assert (root / rel).is_file(), rel
    header = (root / "include/net.h").read_text()
    assert f"#define NET_ARENA_SIZE {cnn_project.arena_size}u" in header
    for fn in ("net_init", "net_set_input", "net_run", "net_get_output"):
        assert fn in header
    for rel in ("src/net.c", "src/weight.c", "src/weight.h", "include/net.h"):
        includes = set(re.findall(r"#include <([^>]+)>", (root / rel).read_text()))
        assert includes <= {"stdint.h", "string.h", "math.h"}, (rel, includes)
    lib = (root / "src/net.c").read_text()
    assert "malloc" not in lib and "static uint8_t net_arena[" in lib
    assert "const float w_fw[512]" in (root / "src/weight.c").read_text()
    assert "memmove" not in lib  # Flatten writes in place: it moves no data
    report = (root / "memory_plan.txt").read_text()
    assert f"arena: {cnn_project.arena_size} bytes" in report and "in place of" in report


def test_arena_is_below_the_sum_of_tensors(cnn_project):
    plan = cnn_project.plan
    assert plan.arena_size < plan.sum_of_sizes


@needs_gcc
@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_cmake_builds_the_project(cnn_project, tmp_path):
    r = subprocess.run(["cmake", "-S", str(cnn_project.path), "-B", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(["cmake", "--build", str(tmp_path)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    out = subprocess.run([str(tmp_path / "golden")], capture_output=True, text=True,
                         timeout=60)
    assert "golden: PASS" in out.stdout


def test_operator_without_template_is_named(tmp_path):
    g = Graph([Value("x", (4,), "float32")], [Value("y", (4,), "float32")],
              [Node("Cos", ["x"], ["c"], {}, "cos0"), Node("ReLU", ["c"], ["y"], {}, "r")],
              {}, "no_template")
    with pytest.raises(MissingTemplateError, match=r"Cos \(float32, node 'cos0'\).*"
                                                   r"add_c_template"):
        generate(g, tmp_path)


def test_ram_budget_failure_names_the_peak_tensors(tmp_path, small_cnn):
    with pytest.raises(MemoryBudgetError, match=r"over the RAM budget of 1024 bytes.*c1 "
                                                 r"\(4608 B, shared in place with s1\)"):
        generate(small_cnn(), tmp_path, ram_budget="1KB")


def test_unknown_target_is_refused(tmp_path, small_cnn):
    with pytest.raises(ValueError, match="target must be one of x86, ARM64, ARM32, "
                                         "Cortex-M, got 'riscv'"):
        generate(small_cnn(), tmp_path, target="riscv")


def _conv(out_channel, k, **kw):
    attrs = {"out_channel": out_channel, "kernel_size": k, "mode": 1, "pad_mode": "valid",
             "pad": (0, 0, 0, 0), "stride": (1, 1), "dilation": (1, 1), "group": 1,
             "data_format": "NCHW"}
    attrs.update(kw)
    return attrs


@needs_gcc
def test_convolution_and_pooling_geometries(tmp_path):
    """Dilation, asymmetric padding, strides, depthwise groups, SAME pooling windows."""
    rng = np.random.default_rng(1)
    w = {"wa": rng.standard_normal((5, 4, 3, 2)).astype(np.float32),
         "wb": rng.standard_normal((4, 1, 3, 3)).astype(np.float32),
         "wc": rng.standard_normal((6, 4, 2, 3)).astype(np.float32)}
    nodes = [
        Node("Conv2D", ["x", "wa"], ["a"], _conv(5, (3, 2), pad_mode="pad", pad=(1, 2, 0, 1),
                                                 stride=(2, 1), dilation=(2, 3)), "a"),
        Node("Conv2D", ["x", "wb"], ["b"], _conv(4, (3, 3), pad_mode="same", group=4,
                                                 stride=(3, 2)), "b"),
        Node("Conv2D", ["x", "wc"], ["c"], _conv(6, (2, 3), pad_mode="same"), "c"),
        Node("AvgPool", ["x"], ["d"], {"kernel_size": (3, 2), "strides": (3, 3),
                                       "pad_mode": "SAME", "data_format": "NCHW"}, "d"),
        Node("MaxPool", ["x"], ["e"], {"kernel_size": (3, 3), "strides": (1, 2),
                                       "pad_mode": "SAME", "data_format": "NCHW"}, "e"),
    ]
    g = Graph([Value("x", (2, 4, 11, 9), "float32")], [], nodes, w, "geometries")
    g.outputs = [Value(n, (), "float32") for n in "abcde"]
    from ms_lite.runtime.executor import Executor

    x = rng.standard_normal((2, 4, 11, 9)).astype(np.float32)
    want = Executor(g).run([x])
    g.outputs = [Value(n, o.shape, "float32") for n, o in zip("abcde", want)]
    p = generate(g, tmp_path, golden_inputs=[x])
    targets.build(p.path, "x86")
    got, passed = targets.parse_golden(targets.run_program(p.path, "x86").stdout, p.outputs)
    assert passed
    for gv, wv in zip(got, want):
        np.testing.assert_allclose(gv, wv, rtol=1e-5, atol=1e-5)


@needs_gcc
def test_tensor_names_that_spell_the_same_c_name_stay_apart(tmp_path):
    g = Graph([Value("a.b", (3,), "float32")], [Value("a_b", (3,), "float32")],
              [Node("ReLU", ["a.b"], ["a_b"], {}, "r")], {}, "names")
    p = generate(g, tmp_path)
    targets.build(p.path, "x86")
    assert "golden: PASS" in targets.run_program(p.path, "x86").stdout


def test_a_constant_output_is_refused(tmp_path):
    g = Graph([Value("x", (3,), "float32")], [Value("y", (3,), "float32"),
                                               Value("k", (3,), "float32")],
              [Node("ReLU", ["x"], ["y"], {}, "r")], {"k": np.ones(3, np.float32)}, "const")
    with pytest.raises(ValueError, match="output 'k' is a constant"):
        generate(g, tmp_path)
