"""``mindspore.dataset.callback``: callbacks that ``map`` calls as rows pass through it.

>>> import ms_data as ds
>>> class Count(ds.DSCallback):
...     def __init__(self):
...         super().__init__()
...         self.steps = []
...     def ds_step_begin(self, ds_run_context):
...         self.steps.append(ds_run_context.cur_step_num)
>>> cb = Count()
>>> rows = list(ds.NumpySlicesDataset([1, 2, 3], shuffle=False).map(lambda x: x, callbacks=cb))
>>> cb.steps
[1, 2, 3]
"""

from ms_data.callback.ds_callback import DSCallback, DSRunContext, WaitedDSCallback

__all__ = ["DSCallback", "WaitedDSCallback", "DSRunContext"]
