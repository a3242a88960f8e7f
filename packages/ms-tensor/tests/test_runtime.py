"""ms_tensor.runtime: the CPU answers MindSpore 2.10 gives on its CPU backend."""

import ms_tensor.runtime as runtime


def test_cpu_has_nothing_to_wait_for_and_no_device_memory():
    assert runtime.synchronize() is None
    stats = runtime.memory_stats()
    assert stats == {"total_reserved_memory": 0, "total_allocated_memory": 0,
                     "total_idle_memory": 0, "total_eager_free_memory": 0,
                     "max_reserved_memory": 0, "max_allocated_memory": 0}
    assert runtime.memory_allocated() == runtime.max_memory_allocated() == 0
    assert runtime.memory_reserved() == runtime.max_memory_reserved() == 0
    assert "no memory pool" in runtime.memory_summary()
    for reset in (runtime.reset_peak_memory_stats, runtime.reset_max_memory_allocated,
                  runtime.reset_max_memory_reserved, runtime.empty_cache):
        assert reset() is None
    assert set(runtime.__all__) <= set(dir(runtime))
