"""The RAM-lowering rewrites: an int8 convolution pooled in the same kernel and the input
quantized by net_set_input give the same bits as the plain schedule, in a smaller arena."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ms_lite.codegen import fusion, generate, targets
from ms_lite.codegen.generate import typed
from ms_lite.ir import Value

needs_gcc = pytest.mark.skipif(bool(targets.missing_tools("x86")),
                               reason="gcc or make is not installed")


def test_the_rewrites_find_the_pair_and_the_input_cast(int8_cnn):
    g = typed(int8_cnn())
    fused = fusion.fuse_conv_pool(g)
    assert [n.op for n in fused.nodes][:3] == ["QuantDTypeCast", fusion.FUSED_OP, "QuantReLU"]
    node = fused.nodes[1]
    assert node.outputs == ["p"] and node.attrs["conv_shape"] == (2, 6, 8, 8)
    assert list(fusion.input_casts(fused)) == ["x"]
    # a convolution whose output is also a graph output stays as it is
    g2 = dataclasses.replace(g, outputs=g.outputs + [Value("c", (2, 6, 8, 8), "int8")])
    assert fusion.FUSED_OP not in [n.op for n in fusion.fuse_conv_pool(g2).nodes]


@needs_gcc
def test_fused_and_plain_schedules_give_the_same_bits(int8_cnn, tmp_path):
    g = int8_cnn()
    x = (np.random.default_rng(7).standard_normal((2, 2, 15, 15)) * 3).astype(np.float32)
    projects = [generate(g, tmp_path, project_name=f"p{int(f)}", golden_inputs=[x], fuse=f)
                for f in (False, True)]
    outs = []
    for p in projects:
        targets.build(p.path, "x86")
        run = targets.run_program(p.path, "x86")
        got, passed = targets.parse_golden(run.stdout, p.outputs)
        assert passed, run.stdout
        outs.append(got)
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))
    plain, fused = projects
    assert fused.arena_size < plain.arena_size
    assert "c" in plain.plan.placements and "c" not in fused.plan.placements
    assert "x" not in fused.plan.placements
    report = (fused.path / "memory_plan.txt").read_text()
    assert "x: not in the arena; net_set_input quantizes it into q" in report
