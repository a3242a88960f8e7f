"""The C templates of ms-ops' operators, float32 and int8, registered by ``plugin``."""
