"""Argument checks shared by the layers: each error names the layer and the bad value."""

from __future__ import annotations


def positive_int(layer: str, name: str, value) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{layer}: {name} must be a positive int, got {value!r}")
    return value


def int_tuple(layer: str, name: str, value, n: int, minimum: int = 1) -> tuple:
    """An int or a tuple of ``n`` ints, each at least ``minimum``, as an ``n``-tuple."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value,) * n
    if isinstance(value, list):
        value = tuple(value)
    if not (isinstance(value, tuple) and len(value) == n
            and all(isinstance(v, int) and not isinstance(v, bool) and v >= minimum
                    for v in value)):
        raise ValueError(f"{layer}: {name} must be an int >= {minimum} or a tuple of {n} such "
                         f"ints, got {value!r}")
    return value


def one_of(layer: str, name: str, value, choices: tuple):
    if value not in choices:
        raise ValueError(f"{layer}: {name} must be one of {', '.join(map(repr, choices))}, "
                         f"got {value!r}")
    return value


def rank(layer: str, x, ranks: tuple, layout: str):
    """Raise unless ``x`` has one of ``ranks`` dimensions; ``layout`` says what is expected."""
    if x.ndim not in ranks:
        raise ValueError(f"{layer}: input shape {tuple(x.shape)} must be {layout}")
