"""MindSpore's jit options: each works (jit_level picks fusion, input_signature checks
calls) or raises ValueError naming the option."""

import os

import ms_graph
import numpy as np
import pytest

import ms_ops as ops
from ms_tensor import Tensor, context, reset_context


def _t(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def _fused_stages(tmp_path, **options):
    """Whether the compiled graph went through fusion (read from the saved stages)."""
    context.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        f = ms_graph.jit(lambda x: ops.tanh(x * 2 + 1) * x, capture_mode="trace", **options)
        x = _t(4, 4)
        np.testing.assert_allclose(f(x).asnumpy(), f(x).asnumpy(), rtol=1e-6)
        want = np.tanh(x.asnumpy() * 2 + 1) * x.asnumpy()
        np.testing.assert_allclose(f(x).asnumpy(), want, rtol=1e-6)
    finally:
        reset_context()
    stages = " ".join(sorted(os.listdir(tmp_path)))
    return "fuse_elementwise" in stages


def test_jit_level_o0_compiles_without_fusion(tmp_path):
    assert not _fused_stages(tmp_path / "o0", jit_level="O0")
    assert _fused_stages(tmp_path / "o1", jit_level="O1")
    assert _fused_stages(tmp_path / "default")


def test_context_jit_config_and_enable_graph_kernel_set_the_default(tmp_path):
    context.set_context(jit_config={"jit_level": "O0"})
    assert not _fused_stages(tmp_path / "config")
    context.set_context(enable_graph_kernel=False)
    assert not _fused_stages(tmp_path / "kernel")
    context.set_context(enable_graph_kernel=False)  # _fused_stages resets the context
    assert _fused_stages(tmp_path / "explicit", jit_level="O1")  # the option wins


@pytest.mark.parametrize("options,match", [
    ({"capture_mode": "bytecode"}, "capture_mode='bytecode' is not supported"),
    ({"jit_level": "O2"}, "jit_level='O2' is not supported"),
    ({"dynamic": 1}, "dynamic=1 is not supported"),
    ({"fullgraph": "yes"}, "fullgraph='yes' is not supported"),
    ({"backend": "GE"}, "backend='GE' is not supported"),
    ({"mode": "PIJit"}, "mode='PIJit' is not supported"),
    ({"hash_args": object}, "hash_args=.* is not supported"),
    ({"compile_once": True}, "compile_once=True is not supported"),
    ({"jit_config": {"infer_boost": "on"}}, r"jit_config\['infer_boost'\]='on'"),
    ({"infer_boost": "on"}, "infer_boost='on' is not supported"),
    ({"exec_order": "bfs"}, "exec_order='bfs' is not supported"),
])
def test_unsupported_options_raise_naming_the_option(options, match):
    with pytest.raises(ValueError, match=match):
        ms_graph.jit(lambda x: x, **options)


def test_supported_values_are_accepted():
    x = _t(2, 2)
    for options in ({"fullgraph": True}, {"backend": "ms_backend"}, {"dynamic": 0},
                    {"mode": "PSJit"}, {"jit_config": {"jit_level": "O1"}}):
        np.testing.assert_allclose(ms_graph.jit(lambda x: x * 2, **options)(x).asnumpy(),
                                   x.asnumpy() * 2)


def test_input_signature_checks_every_call():
    f = ms_graph.jit(lambda x: x * 2, capture_mode="trace",
                     input_signature=(_t(2, 3),))
    np.testing.assert_allclose(f(_t(2, 3)).asnumpy(), _t(2, 3).asnumpy() * 2)
    with pytest.raises(TypeError, match=r"argument 0 is .*\(3, 3\), input_signature says"):
        f(_t(3, 3))
