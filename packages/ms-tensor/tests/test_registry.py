import re
import subprocess
import sys
import types

import pluggy
import pytest

from ms_tensor import registry
from ms_tensor.backend import Backend, CPUBackend
from ms_tensor.hookspecs import HOOK_ORDER, hookimpl
from ms_tensor.registry import RegistrationError, Registry


def _op(name):
    return types.SimpleNamespace(name=name)


@pytest.fixture
def reg():
    r = Registry()
    r.view("tensor").add_backend(CPUBackend())
    r.view("ops").add_primitive(_op("Foo"))
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


def test_collision_names_both_plugins(reg):
    reg.view("plugin-a").add_function("twice", 1)
    with pytest.raises(RegistrationError, match=r"function 'twice' is registered twice: by "
                                                r"plugin 'plugin-a' and by plugin 'plugin-b'; "
                                                r"pass priority=\.\.\."):
        reg.view("plugin-b").add_function("twice", 2)


def test_kernel_collision_names_the_backend(reg):
    reg.view("ops").add_kernel("Foo", "CPU", len)
    with pytest.raises(RegistrationError, match="kernel 'Foo' for backend 'CPU' is registered "
                                                "twice: by plugin 'ops' and by plugin 'fast'"):
        reg.view("fast").add_kernel("Foo", "CPU", abs)


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


def test_equal_priorities_are_an_error(reg):
    reg.view("a").add_function("f", 1, priority=3)
    with pytest.raises(RegistrationError, match="with the same priority 3: by plugin 'a' and "
                                                "by plugin 'b'"):
        reg.view("b").add_function("f", 2, priority=3)


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


def test_kernel_and_bprop_need_a_registered_primitive(reg):
    with pytest.raises(RegistrationError, match="plugin 'p' adds a CPU kernel for unknown "
                                                "primitive 'Bar'"):
        reg.view("p").add_kernel("Bar", "CPU", len)
    with pytest.raises(RegistrationError, match="gradient rule for unknown primitive 'Bar'"):
        reg.view("p").add_bprop(_op("Bar"), len)


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
    def ms_register_functions(self, registry):
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
    with pytest.raises(RegistrationError, match="'zz-one' and by plugin 'zz-two'"):
        registry.load()
    assert registry.loaded() is None


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


def test_hooks_are_called_in_the_documented_order():
    assert HOOK_ORDER[0] == "ms_register_backends"
    assert HOOK_ORDER.index("ms_register_primitives") < HOOK_ORDER.index("ms_register_kernels")


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
        "    def ms_register_functions(self, registry):\n"
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
