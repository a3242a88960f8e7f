"""ms-device-ascend: microspore's Ascend package, for users who develop on a CPU and train
on Ascend. It is a backend plugin (``ms_device_ascend.plugin``) with:

- an Ascend numerics EMULATION (``set_context(device_target="Ascend",
  ascend_config={"precision_mode": ...})``): Cube operators in float16 with float32
  accumulation, on the CPU; it never pretends to be hardware (``backend``, ``cube``);
- ``microspore ascend check script.py``: what of a script Ascend lacks (``check``);
- ``microspore ascend doctor``: the CANN and rank environment (``doctor``);
- ``microspore ascend rank-table``: hccl_tools' rank table JSON (``rank_table``).

No ACL runtime is shipped: none can be tested without Ascend hardware and CANN.
"""

__version__ = "0.1.0"
