"""microspore's deployment: export (MINDIR, ONNX), the lite model format and converter, a small runtime, int8 quantization, ONNX import and a C code generator"""

__version__ = "0.1.0"
