import re
import subprocess
import sys

import pluggy
import pytest

from ms_tensor import registry
from ms_tensor.backend import Backend, CPUBackend
from ms_tensor.hookspecs import HOOK_ORDER, hookimpl
from ms_tensor.registry import RegistrationError, Registry


class _Op:
    """The protocol ``add_op`` reads: a name and what to register for it."""

    def __init__(self, name, *rows):
        self.name = name
        self.rows = rows

    def registrations(self):
        yield "primitive", self.name, None, self, {}
        yield from self.rows


def _op(name, *rows):
    return _Op(name, *rows)


@pytest.fixture
def reg():
    r = Registry(framework=("tensor", "ops"))
    r.view("tensor").add_backend(CPUBackend())
    r.view("ops").add_op(_op("Foo"))
    return r


def test_entries_record_the_plugin_that_added_them(reg):
    fn = object()
    reg.view("ops").add_kernel("Foo", "CPU", fn, dtypes=["a"])
    e = reg.entry("kernel", "Foo", "CPU")
    assert (e.kind, e.name, e.backend, e.plugin, e.value) == ("kernel", "Foo", "CPU", "ops", fn)
    assert e.info["dtypes"] == frozenset({"a"})
    assert e.info["out"] is False  # a kernel takes out= only when its plugin says so
    assert reg.kernel(_op("Foo"), "CPU") is fn
    assert reg.primitive("Foo").name == "Foo"
    assert reg.names("backend") == ["CPU"]


def test_a_kernel_can_declare_that_it_writes_into_out(reg):
    reg.view("ops").add_kernel("Foo", "CPU", object(), out=True)
    assert reg.entry("kernel", "Foo", "CPU").info["out"] is True


def test_op_registers_everything_it_declares(reg):
    op = _op("Bar", ("kernel", "Bar", "CPU", len, {"dtypes": ["f"], "out": 1}),
             ("bprop", "Bar", None, abs, {}), ("function", "bar", None, min, {}))
    assert reg.view("p").add_op(op) is True
    assert reg.primitive("Bar") is op and reg.bprop(op) is abs
    assert reg.entry("kernel", "Bar", "CPU").info == {"dtypes": frozenset({"f"}), "out": True}
    assert reg.lookup("function", "bar") is min
    assert {e.plugin for e in reg.entries() if e.name in ("Bar", "bar")} == {"p"}


def test_collision_keeps_the_older_plugin_and_names_both(reg):
    reg.view("plugin-a").add_function("twice", 1)
    with pytest.warns(registry.RegistrationWarning,
                      match=r"function 'twice' is registered by plugin 'plugin-a' and by "
                            r"plugin 'plugin-b'; 'plugin-b'.s registration is disabled"):
        reg.view("plugin-b").add_function("twice", 2)
    assert reg.lookup("function", "twice") == 1
    assert reg.conflicts == [registry.Conflict("function 'twice'", "plugin-a", "plugin-b")]


def test_a_colliding_op_is_dropped_whole_and_the_framework_wins(reg):
    reg.view("ops").add_function("foo", "builtin")
    mine = _op("Foo", ("kernel", "Foo", "CPU", len, {}), ("function", "foo", None, "mine", {}))
    with pytest.warns(registry.RegistrationWarning, match="'ops' and by plugin 'user'"):
        assert reg.view("user").add_op(mine) is False
    assert reg.primitive("Foo") is not mine and reg.kernel("Foo", "CPU") is None
    assert reg.lookup("function", "foo") == "builtin"
    assert [c.dropped for c in reg.conflicts] == ["user"]


def test_the_framework_wins_even_when_it_registers_second():
    r = Registry(framework=("ops",))
    r.view("user").add_function("f", "user")
    with pytest.warns(registry.RegistrationWarning):
        r.view("ops").add_function("f", "builtin")
    assert r.lookup("function", "f") == "builtin"
    assert r.conflicts == [registry.Conflict("function 'f'", "ops", "user")]


def test_one_plugin_registering_a_thing_twice_is_its_own_error(reg):
    reg.view("p").add_function("f", 1)
    with pytest.raises(RegistrationError, match="function 'f' is registered twice by plugin 'p'"):
        reg.view("p").add_function("f", 2)


def test_kernel_override_needs_a_priority(reg):
    reg.view("ops").add_kernel("Foo", "CPU", len)
    with pytest.warns(registry.RegistrationWarning, match="kernel 'Foo' for backend 'CPU'"):
        reg.view("fast").add_kernel("Foo", "CPU", abs)
    assert reg.kernel("Foo", "CPU") is len
    reg.view("fast").add_kernel("Foo", "CPU", abs, priority=1)
    assert reg.kernel("Foo", "CPU") is abs


def test_lazy_values_import_on_first_lookup(reg):
    reg.view("graph").add_pass("p", "json.decoder:JSONDecoder.decode")
    e = reg.entry("pass", "p")
    assert type(e._value).__name__ == "_Lazy"
    import json.decoder
    assert e.value is json.decoder.JSONDecoder.decode and e._value is e.value
    reg.view("lite").add_op(_op("T", ("c_template", "T", None, "a:b", {})))
    assert reg.lookup("c_template", "T") == "a:b"  # C source is never an import path


@pytest.mark.parametrize("first,second,winner", [
    (None, 10, "b"),   # an explicit priority beats none, whatever the order
    (10, None, "a"),
    (5, 10, "b"),
    (10, 5, "a"),
    (-1, None, "a"),
])
def test_explicit_priority_wins(reg, first, second, winner):
    reg.view("a").add_tensor_method("m", "a", priority=first)
    reg.view("b").add_tensor_method("m", "b", priority=second)
    assert reg.lookup("tensor_method", "m") == winner
    assert reg.entry("tensor_method", "m").plugin == winner


def test_equal_priorities_keep_the_first(reg):
    reg.view("a").add_function("f", 1, priority=3)
    with pytest.warns(registry.RegistrationWarning, match="by plugin 'a' and by plugin 'b'"):
        reg.view("b").add_function("f", 2, priority=3)
    assert reg.lookup("function", "f") == 1


def test_kernel_for_unknown_backend_lists_known_ones(reg):
    with pytest.raises(RegistrationError, match=r"plugin 'gpu' adds a kernel for 'Foo' on "
                                                r"unknown backend 'XPU'; registered backends: "
                                                r"CPU"):
        reg.view("gpu").add_kernel("Foo", "XPU", len)
    with pytest.raises(RegistrationError, match="unknown backend 'XPU'; registered backends: CPU"):
        reg.kernel("Foo", "XPU")
    with pytest.raises(RegistrationError, match="unknown backend 'XPU'"):
        reg.backend("XPU")
    assert reg.kernel("Foo", "CPU") is None  # known backend, no kernel yet


def test_kernel_needs_a_registered_primitive_and_backend(reg):
    with pytest.raises(RegistrationError, match="plugin 'p' adds a CPU kernel for unknown "
                                                "primitive 'Bar'"):
        reg.view("p").add_kernel("Bar", "CPU", len)
    with pytest.raises(RegistrationError, match="on unknown backend 'XPU'"):
        reg.view("p").add_op(_op("Bar", ("kernel", "Bar", "XPU", len, {})))


def test_generic_kinds_and_passes(reg):
    reg.view("data").add("dataset_source", "csv", len, fmt="csv")
    reg.view("graph").add_pass("cse", abs, stage="late")
    assert reg.entry("dataset_source", "csv").info == {"fmt": "csv"}
    assert reg.entry("pass", "cse").info == {"stage": "late"}
    assert [e.kind for e in reg.entries()] == sorted(e.kind for e in reg.entries())


class _Plugin:
    def __init__(self, name, priority=None):
        self.name = name
        self.priority = priority

    @hookimpl
    def ms_register_ops(self, registry):
        registry.add_function("zz_registry_test_fn", self.name, priority=self.priority)


@pytest.fixture
def plugins():
    names = []

    def add(name, priority=None):
        registry.register_plugin(_Plugin(name, priority), name)
        names.append(name)

    yield add
    for n in names:
        registry.unregister_plugin(n)


def test_register_and_unregister_plugin(plugins):
    plugins("zz-one")
    reg = registry.load()
    assert reg.lookup("function", "zz_registry_test_fn") == "zz-one"
    assert reg.entry("function", "zz_registry_test_fn").plugin == "zz-one"
    assert registry.load() is reg  # loaded once
    registry.unregister_plugin("zz-one")
    assert registry.loaded() is None
    assert registry.load().lookup("function", "zz_registry_test_fn") is None


def test_two_plugins_collide_on_load(plugins):
    plugins("zz-one")
    plugins("zz-two")
    with pytest.warns(registry.RegistrationWarning, match="'zz-one' and by plugin 'zz-two'"):
        reg = registry.load()
    assert reg.lookup("function", "zz_registry_test_fn") == "zz-one"
    assert "'zz-two'" in registry.format_conflicts(reg)


def test_plugin_priority_on_load(plugins):
    plugins("zz-one")
    plugins("zz-two", priority=1)
    assert registry.load().lookup("function", "zz_registry_test_fn") == "zz-two"


def test_reload_notifies_listeners(plugins):
    seen = []
    listener = seen.append
    registry.on_load(listener)  # called at once if loaded, then after every load
    try:
        before = len(seen)
        plugins("zz-one")
        reg = registry.load()
        assert seen[-1] is reg and len(seen) == before + 1
    finally:
        registry._on_load.remove(listener)


def test_misspelled_hook_is_an_error():
    class Typo:
        @hookimpl
        def ms_register_kernel(self, registry):  # missing "s"
            pass

    registry.register_plugin(Typo(), "zz-typo")
    try:
        with pytest.raises(pluggy.PluginValidationError, match="ms_register_kernel"):
            registry.load()
    finally:
        registry.unregister_plugin("zz-typo")


def test_cpu_backend_comes_from_ms_tensor_itself():
    reg = registry.load()
    e = reg.entry("backend", "CPU")
    assert e.plugin == "tensor" and isinstance(e.value, Backend)
    assert reg.backend("CPU").to_host(reg.backend("CPU").asarray([1, 2])).tolist() == [1, 2]


def test_hooks_are_called_in_the_order_they_are_specified():
    assert HOOK_ORDER == ("ms_register_backends", "ms_register_ops", "ms_register_kernels",
                          "ms_register_passes", "ms_register_cli_commands",
                          "ms_register_explainers", "ms_register_c_templates",
                          "ms_register_onnx")


LINE = re.compile(r"^(\S+) (\S+) (\S+) (\S+)$")


def _run(*args):
    out = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_python_m_registry_prints_kind_name_backend_plugin():
    lines = _run("-m", "ms_tensor.registry")
    assert "backend CPU - tensor" in lines
    assert all(LINE.match(line) for line in lines), lines
    assert lines == sorted(lines, key=lambda s: (s.split()[0], s.split()[1],
                                                 s.split()[2].replace("-", "")))


def test_registry_listing_shows_a_registered_plugin():
    code = (
        "from ms_tensor import registry\n"
        "from ms_tensor.hookspecs import hookimpl\n"
        "class P:\n"
        "    @hookimpl\n"
        "    def ms_register_ops(self, registry):\n"
        "        registry.add_function('zz_listed', len)\n"
        "registry.register_plugin(P(), 'zz-lister')\n"
        "registry.main()\n"
    )
    assert "function zz_listed - zz-lister" in _run("-c", code)


def test_in_order_keeps_registration_order():
    reg = registry.Registry()
    view = reg.view("p")
    for name in ("zeta", "alpha", "mid"):
        view.add_pass(name, lambda g: g)
    assert [e.name for e in reg.in_order("pass")] == ["zeta", "alpha", "mid"]
    assert [e.name for e in reg.entries("pass")] == ["alpha", "mid", "zeta"]
