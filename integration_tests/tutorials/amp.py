"""The mixed-precision tutorial's patterns: auto_mixed_precision levels, float16 compute
with float32 weights, loss scaling and all_finite."""

import numpy as np
from _common import report
from mindspore import Tensor, amp, nn


def make_net():
    net = nn.SequentialCell(nn.Dense(6, 8), nn.ReLU(), nn.Dense(8, 3))
    rng = np.random.default_rng(6)
    for p in net.trainable_params():
        p.set_data(Tensor((rng.standard_normal(p.shape) * 0.5).astype(np.float32)))
    return net


x = Tensor(np.linspace(-2, 2, 12, dtype=np.float32).reshape(2, 6))
outs = {level: amp.auto_mixed_precision(make_net(), level)(x) for level in ("O0", "O1", "O2", "O3")}
scaler = amp.StaticLossScaler(1024.0)
scaled = scaler.scale(Tensor(np.float32(0.5)))
unscaled = scaler.unscale(Tensor(np.float32(512.0)))
finite = [amp.all_finite([Tensor([1.0, 2.0])]), amp.all_finite([Tensor([1.0, np.inf])])]
manager = amp.DynamicLossScaleManager(init_loss_scale=16, scale_factor=2, scale_window=2)
scales = []
for overflow in (False, False, True, False):
    manager.update_loss_scale(overflow)
    scales.append(manager.get_loss_scale())
net = make_net()
train = amp.build_train_network(net, nn.Momentum(net.trainable_params(), 0.01, 0.9),
                                nn.MSELoss(), level="O2",
                                loss_scale_manager=amp.FixedLossScaleManager(128.0, False))
losses = [train(x, Tensor(np.ones((2, 3), np.float32))) for _ in range(3)]
report(outs=outs, scaled=scaled, unscaled=unscaled, finite=finite, scales=scales,
       losses=losses, dtype=str(outs["O2"].dtype))
