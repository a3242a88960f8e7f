"""ms-ops-scipy: operators whose CPU kernels are SciPy's special and matrix functions.

Nothing needs importing: the ``microspore`` entry point registers the operators, and they
appear as ``ops.lgamma``, ``ops.BesselJ0``, ``Tensor.digamma``... once ms-ops loads its
registry. The modules are importable for their ``OpDef`` objects.
"""

__version__ = "0.1.0"
