"""``support_parallel``: the threaded build computes exactly what the single-threaded one
does, on any number of threads; the pool lives in its own file; Cortex-M is refused."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ms_lite.codegen import generate, targets

needs_gcc = pytest.mark.skipif(bool(targets.missing_tools("x86")),
                               reason="gcc or make is not installed")


def _outputs(project, args=()):
    run = targets.run_program(project.path, "x86", args=args)
    got, passed = targets.parse_golden(run.stdout, project.outputs)
    assert passed and run.returncode == 0, run.stdout
    return got


@needs_gcc
@pytest.mark.parametrize("model, fuse", [("small_cnn", False), ("int8_cnn", False),
                                         ("int8_cnn", True)])
def test_threads_equal_the_single_threaded_build(model, fuse, request, tmp_path):
    graph = request.getfixturevalue(model)()
    single = generate(graph, tmp_path, project_name="single", fuse=fuse)
    threaded = generate(graph, tmp_path, project_name="threaded", support_parallel=True,
                        fuse=fuse)
    for p in (single, threaded):
        targets.build(p.path, "x86")
    want = _outputs(single)
    for threads in (1, 2, 3, 7):
        for g, w in zip(_outputs(threaded, [threads]), want):
            np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8))
    run = targets.run_program(threaded.path, "x86", args=[99])
    assert run.returncode == 1 and "cannot run 99 threads" in run.stdout
    bench = targets.run_program(threaded.path, "x86", "benchmark", args=[5, 3])
    assert re.search(r"benchmark: loops=5 median_us=", bench.stdout), bench.stdout


def test_the_single_threaded_library_has_no_os_dependency(small_cnn, tmp_path):
    single = generate(small_cnn(), tmp_path, project_name="single")
    threaded = generate(small_cnn(), tmp_path, project_name="threaded", support_parallel=True)
    assert not (single.path / "src/thread_pool.c").exists()
    assert "pthread" not in (single.path / "src/net.c").read_text()
    assert "PARALLEL := 0" in (single.path / "Makefile").read_text()
    assert "PARALLEL := 1" in (threaded.path / "Makefile").read_text()
    lib = (threaded.path / "src/net.c").read_text()
    assert "pthread" not in lib  # 2 Conv2D, Dense and MatMul run as tasks:
    assert lib.count("net_parallel_run(net_task_") == 4
    assert "#include <pthread.h>" in (threaded.path / "src/thread_pool.c").read_text()
    assert "net_set_thread_num" in (threaded.path / "include/net.h").read_text()
    assert "THREADS_PREFER_PTHREAD_FLAG" in (threaded.path / "CMakeLists.txt").read_text()


def test_cortex_m_is_refused_with_the_reason(small_cnn, tmp_path):
    with pytest.raises(ValueError, match="not available for target Cortex-M: a Cortex-M runs "
                                         "the generated code bare-metal on one core"):
        generate(small_cnn(), tmp_path, target="Cortex-M", support_parallel=True)
