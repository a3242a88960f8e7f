"""Seed 000_6eee104ec2630034.txt, section 8 (常用API, mindspore.ops.functional): ``ops.Pow``
against the functional ``ops.tensor_pow``. The seed prints ``[ 1.  8. 64.]``.

Only ``mindspore`` is renamed to ``microspore``.
"""

import numpy as np
import microspore
from microspore import Tensor
import microspore.ops as ops

input_x = microspore.Tensor(np.array([1.0, 2.0, 4.0]), microspore.float32)
input_y = 3.0
# 使用Primitive算子需先实例化
pow = ops.Pow()
output = pow(input_x, input_y)

# 直接使用functional接口
output = ops.tensor_pow(input_x, input_y)
print(output)
