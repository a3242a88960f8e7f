"""The kernels of lite operators: the converter's fused forms (``fused``) and the int8
forms (``quantized``, with the hot loops in the Cython module ``_int8``)."""
