"""Pipeline operations, one module per family (map, batch, shuffle, repeat, ...)."""
