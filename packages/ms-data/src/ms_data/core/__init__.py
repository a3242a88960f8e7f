"""``mindspore.dataset.core``: the pipeline-wide settings module (``core.config``).

>>> from ms_data.core import config
>>> config.get_callback_timeout()
60
"""

from ms_data import config

__all__ = ["config"]
