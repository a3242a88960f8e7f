"""The save-and-load tutorial's patterns: save_checkpoint of a Cell and of a list of
Parameters, load_checkpoint/load_param_into_net, export to MINDIR and load as a GraphCell."""

import mindspore
import numpy as np
from _common import report
from mindspore import Parameter, Tensor, nn


def make_net(seed):
    net = nn.SequentialCell(nn.Dense(4, 8), nn.Tanh(), nn.Dense(8, 3))
    rng = np.random.default_rng(seed)
    for p in net.trainable_params():
        p.set_data(Tensor(rng.standard_normal(p.shape).astype(np.float32)))
    return net


x = Tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
trained = make_net(4)
mindspore.save_checkpoint(trained, "model.ckpt")
fresh = make_net(5)
param_dict = mindspore.load_checkpoint("model.ckpt")
not_loaded = mindspore.load_param_into_net(fresh, param_dict)
extra = [Parameter(Tensor(np.arange(3, dtype=np.float32)), name="extra")]
mindspore.save_checkpoint(extra, "extra.ckpt")
extra_back = mindspore.load_checkpoint("extra.ckpt")["extra"]
mindspore.export(trained, x, file_name="model", file_format="MINDIR")
graph = mindspore.load("model.mindir")
served = nn.GraphCell(graph)(x)
report(names=sorted(param_dict), not_loaded=list(not_loaded), same=fresh(x), trained=trained(x),
       extra=extra_back, served=served)
