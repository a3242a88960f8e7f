"""``mindspore.train.dataset_helper``: ``DatasetHelper`` and
``connect_network_with_dataset`` (sink-mode data feeding)."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_nn.train.data_sink",))
