"""ONNX in and out."""
