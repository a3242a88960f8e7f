"""The registry operators whose ONNX form is one node of the same inputs and no
attributes (imported by the plugin's table, so kept free of imports)."""

# Registry operator -> ONNX operator of the same inputs and no attributes.
SAME_NAME = ("Add", "Sub", "Mul", "Div", "Pow", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt",
             "Abs", "Neg", "Floor", "Ceil", "Sin", "Cos", "Erf", "Reciprocal", "Sign",
             "Softsign", "Softplus", "Equal", "Greater", "Less", "Identity", "Tan", "Asin",
             "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "IsInf")
RENAMED = {"ReLU": "Relu", "Maximum": "Max", "Minimum": "Min", "HSwish": "HardSwish",
           "GreaterEqual": "GreaterOrEqual", "LessEqual": "LessOrEqual",
           "LogicalAnd": "And", "LogicalOr": "Or", "LogicalNot": "Not", "Select": "Where",
           "LogicalXor": "Xor", "IsNan": "IsNaN", "ACos": "Acos"}
