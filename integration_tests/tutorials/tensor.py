"""The tensor tutorial's patterns: creation, attributes, indexing, operations, conversion."""

import mindspore
import numpy as np
from _common import report
from mindspore import Tensor, ops

data = [1, 0, 1, 0]
x_data = Tensor(data)
x_np = Tensor(np.array(data, np.float32))
x_ones = ops.ones_like(x_np)
x_zeros = ops.zeros_like(x_np)
lin = ops.linspace(0.0, 1.0, 5)
ar = ops.arange(0, 10, 3)
t = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
attrs = [list(t.shape), str(t.dtype), t.ndim, t.size, t.itemsize, t.nbytes, list(t.strides)]
first_row, first_col, last_col = t[0], t[:, 0], t[..., -1]
cat = ops.cat((t, t), axis=1)
stack = ops.stack([x_np, x_np])
prod = t * t
mm = ops.matmul(t, t.T)
bcast = t + Tensor(np.array([1, 2, 3, 4], np.float32))
v = Tensor(np.array([3.0, -1.0, 2.0, 5.0], np.float32))
values, indices = v.sort()
top_v, top_i = v.topk(2)
masked = v.masked_fill(v > 2.0, 0.0)
nz = Tensor(np.array([[0, 1], [2, 0]], np.int32)).nonzero()
div_floor = ops.div(Tensor([7.0, -7.0]), Tensor([2.0, 2.0]), rounding_mode="floor")
div_trunc = ops.div(Tensor([7.0, -7.0]), Tensor([2.0, 2.0]), rounding_mode="trunc")
pad = ops.pad(Tensor(np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)), (1, 1, 1, 1),
              mode="reflect")
cast = t.astype(mindspore.int32)
report(x_data=x_data, x_np=x_np, ones=x_ones, zeros=x_zeros, lin=lin, ar=ar, attrs=attrs,
       rows=[first_row, first_col, last_col], cat=cat, stack=stack, prod=prod, mm=mm,
       bcast=bcast, sort=[values, indices], topk=[top_v, top_i], norm=v.norm(),
       masked=masked, nz=nz, div=[div_floor, div_trunc], pad=pad, cast=cast,
       item=v[3].item(), tolist=v.tolist(), numpy=v.asnumpy().sum())
