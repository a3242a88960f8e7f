"""The RAM-lowering rewrites: an int8 convolution pooled in the same kernel, the input
quantized by net_set_input, or read row by row from the caller's buffer, give the same
bits as the plain schedule, in a smaller arena."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ms_lite.codegen import fusion, generate, targets
from ms_lite.codegen.generate import typed
from ms_lite.ir import Value

needs_gcc = pytest.mark.skipif(bool(targets.missing_tools("x86")),
                               reason="gcc or make is not installed")


def _q_also_an_output(g):
    """int8_cnn whose quantized input is an output too: it cannot be streamed."""
    return dataclasses.replace(g, outputs=g.outputs + [Value("q", (2, 2, 15, 15), "int8")])


def test_the_rewrites_find_the_pair_and_the_input_cast(int8_cnn):
    g = typed(int8_cnn())
    fused = fusion.fuse_conv_pool(g)
    assert [n.op for n in fused.nodes][:3] == ["QuantDTypeCast", fusion.FUSED_OP, "QuantReLU"]
    node = fused.nodes[1]
    assert node.outputs == ["p"] and node.attrs["conv_shape"] == (2, 6, 8, 8)
    assert list(fusion.input_casts(fused)) == ["x"]
    rw = fusion.rewrite(g)
    assert rw.refs == ("x",) and not rw.casts
    assert rw.graph.nodes[0].op == fusion.STREAM_OP and rw.graph.nodes[0].inputs[0] == "x"
    # 2 channels x the 4 input rows (stride 2, 3x3 kernel, pad 1) of one pooled row x 15
    assert rw.graph.value(rw.graph.nodes[0].outputs[1]).shape == (2 * 5 * 15,)
    rw = fusion.rewrite(_q_also_an_output(g))
    assert not rw.refs and list(rw.casts) == ["x"]
    # a convolution whose output is also a graph output stays as it is
    g2 = dataclasses.replace(g, outputs=g.outputs + [Value("c", (2, 6, 8, 8), "int8")])
    assert fusion.FUSED_OP not in [n.op for n in fusion.fuse_conv_pool(g2).nodes]


def _run(project):
    targets.build(project.path, "x86")
    run = targets.run_program(project.path, "x86")
    got, passed = targets.parse_golden(run.stdout, project.outputs)
    assert passed, run.stdout
    return got


@needs_gcc
@pytest.mark.parametrize("variant", ["streamed", "cast"])
def test_rewritten_and_plain_schedules_give_the_same_bits(int8_cnn, tmp_path, variant):
    g = int8_cnn() if variant == "streamed" else _q_also_an_output(int8_cnn())
    x = (np.random.default_rng(7).standard_normal((2, 2, 15, 15)) * 3).astype(np.float32)
    plain, fused = [generate(g, tmp_path, project_name=f"p{int(f)}", golden_inputs=[x],
                             fuse=f) for f in (False, True)]
    for a, b in zip(_run(plain), _run(fused)):
        np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))
    assert fused.arena_size < plain.arena_size
    assert "c" in plain.plan.placements and "c" not in fused.plan.placements
    assert "x" in plain.plan.placements and "x" not in fused.plan.placements
    report = (fused.path / "memory_plan.txt").read_text()
    if variant == "streamed":
        assert "x: not in the arena; read from the caller's buffer" in report
        assert "q" not in fused.plan.placements
    else:
        assert "x: not in the arena; net_set_input quantizes it into q" in report


@needs_gcc
def test_float_conv_pool_fusion_gives_the_same_floats(small_cnn, tmp_path):
    """The converted small CNN: a grouped strided Conv2DFusion (ReLU6) read by a SAME 3x3/2
    max pooling, whose windows overlap (pixels are computed twice, to the same float)."""
    from ms_lite.converter.pipeline import optimize

    graph, _ = optimize(small_cnn())
    fused_ops = [n.op for n in fusion.fuse_conv_pool(typed(graph)).nodes]
    assert fused_ops.count(fusion.FUSED_F32_OP) == 1
    plain, fused = [generate(graph, tmp_path, project_name=f"f{int(f)}", fuse=f)
                    for f in (False, True)]
    for a, b in zip(_run(plain), _run(fused)):
        np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))
    # the convolution's output is gone (the peak is elsewhere: the input and c1)
    assert "r2" in plain.plan.placements and "r2" not in fused.plan.placements
    assert fused.arena_size <= plain.arena_size
