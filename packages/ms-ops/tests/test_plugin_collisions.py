"""A plugin that defines an operator microspore already has (a user's ``Softsign``) is
disabled with a warning naming both plugins; the framework keeps working."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ms_ops as ops
from ms_ops import Arg, OpDef
from ms_ops.infer import elementwise
from ms_tensor import Tensor, registry
from ms_tensor.hookspecs import hookimpl

Softsign = OpDef("Softsign", (Arg("x"),), infer=elementwise(), functional="softsign",
                 methods="softsign", doc="A user's own softsign, which is always zero.")
Softsign.kernel("CPU")(np.zeros_like)
Softsign.samples(lambda rng: iter([((rng.standard_normal(3),), {})]))


class _UserPlugin:
    @hookimpl
    def ms_register_ops(self, registry):
        registry.add_ops(Softsign)


@pytest.fixture
def user_plugin():
    registry.register_plugin(_UserPlugin(), "user-softsign")
    yield
    registry.unregister_plugin("user-softsign")


def test_a_colliding_operator_leaves_the_framework_working(user_plugin):
    with pytest.warns(registry.RegistrationWarning,
                      match=r"primitive 'Softsign' is registered by plugin 'ops' and by "
                            r"plugin 'user-softsign'; 'user-softsign'.s registration is "
                            "disabled"):
        reg = registry.load()
    x = Tensor(np.array([-1.0, 3.0], np.float32))
    np.testing.assert_allclose((x + x).asnumpy(), [-2.0, 6.0])
    np.testing.assert_allclose(ops.softsign(x).asnumpy(), [-0.5, 0.75])  # the built-in
    assert not hasattr(x, "softsign")  # the dropped operator's method did not slip in
    assert reg.primitive("Softsign") is not Softsign
    assert not [e for e in reg.entries() if e.plugin == "user-softsign"]  # none of it
    assert [(c.kept, c.dropped) for c in reg.conflicts] == [("ops", "user-softsign")]
    assert "conflict: primitive 'Softsign' is registered by plugin 'ops' and by plugin " \
           "'user-softsign'" in registry.format_conflicts(reg)


def test_the_listing_names_both_plugins_in_a_fresh_process(tmp_path):
    (tmp_path / "user_softsign.py").write_text(textwrap.dedent('''
        import numpy as np
        from ms_ops import Arg, OpDef
        from ms_ops.infer import elementwise
        from ms_tensor.hookspecs import hookimpl

        Softsign = OpDef("Softsign", (Arg("x"),), infer=elementwise())
        Softsign.kernel("CPU")(np.zeros_like)


        @hookimpl
        def ms_register_ops(registry):
            registry.add_ops(Softsign)
    '''))
    code = ("import sys; sys.path.insert(0, sys.argv[1])\n"
            "import user_softsign\n"
            "from ms_tensor import registry\n"
            "registry.register_plugin(user_softsign, 'user')\n"
            "registry.main()\n")
    out = subprocess.run([sys.executable, "-W", "error::UserWarning:ms_ops", "-c", code,
                          str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "primitive Softsign - ops" in lines and "function softsign - ops" in lines
    assert [line for line in lines if line.startswith("conflict:")] == [
        "conflict: primitive 'Softsign' is registered by plugin 'ops' and by plugin 'user'; "
        "'user''s registration is disabled (pass priority=... to choose)"]
    assert "RegistrationWarning" in out.stderr
