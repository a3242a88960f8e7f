"""ms-plugin-example: the Mish activation, added to microspore from outside.

Installing the package is all a user does; microspore finds ``ms_plugin_example.plugin``
through the ``microspore`` entry-point group, and ``ops.mish``, ``ops.Mish`` and
``Tensor.mish`` appear. Importing this module is only needed to use ``Mish`` directly.
"""

from ms_plugin_example.mish import Mish

__version__ = "0.1.0"

__all__ = ["Mish"]
