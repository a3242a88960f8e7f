"""The converter (MindSpore Lite's converter_lite): read a MINDIR or ONNX model, run the
registered ``"lite"`` passes, optionally quantize, write a .ms file and a report."""
