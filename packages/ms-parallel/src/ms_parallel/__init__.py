"""microspore's distributed training on MPI: communication, collectives as operators, data/semi-auto/auto/pipeline parallel, strategy search, launcher"""

__version__ = "0.1.0"
