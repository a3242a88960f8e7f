"""Tokenizers that split one string: whitespace, characters, a regex, a Python function.

Offsets (``with_offsets=True``) are UTF-8 byte positions, as MindSpore gives them.
"""

from __future__ import annotations

import re

import numpy as np

from ms_data.text._strings import scalar_string, tokens_out
from ms_data.transforms.base import TensorOperation

__all__ = ["WhitespaceTokenizer", "UnicodeCharTokenizer", "RegexTokenizer", "PythonTokenizer",
           "byte_spans"]


def byte_spans(text: str, char_spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Character spans of ``text`` as UTF-8 byte spans."""
    starts = np.cumsum([0] + [len(c.encode("utf-8")) for c in text])
    return [(int(starts[a]), int(starts[b])) for a, b in char_spans]


def _check_bool(op: str, name: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{op}: {name} must be a bool, got {value!r}")
    return value


class _Tokenizer(TensorOperation):
    """Base: ``_spans(text)`` gives the character spans of the tokens."""

    def __init__(self, with_offsets=False):
        self.with_offsets = _check_bool(type(self).__name__, "with_offsets", with_offsets)

    def _spans(self, text: str) -> list[tuple[int, int]]:
        raise NotImplementedError

    def __call__(self, *inputs):
        if len(inputs) != 1:
            raise TypeError(f"{type(self).__name__}: expected 1 input, got {len(inputs)}")
        text = scalar_string(type(self).__name__, inputs[0])
        spans = self._spans(text)
        tokens = [text[a:b] for a, b in spans]
        return tokens_out(tokens, byte_spans(text, spans) if self.with_offsets else None)


class WhitespaceTokenizer(_Tokenizer):
    """Split on runs of whitespace."""

    def _spans(self, text):
        return [m.span() for m in re.finditer(r"\S+", text)]


class UnicodeCharTokenizer(_Tokenizer):
    """One token per character."""

    def _spans(self, text):
        return [(i, i + 1) for i in range(len(text))]


class RegexTokenizer(_Tokenizer):
    """Split where ``delim_pattern`` matches; delimiters that also match
    ``keep_delim_pattern`` are kept as tokens."""

    def __init__(self, delim_pattern, keep_delim_pattern="", with_offsets=False):
        super().__init__(with_offsets)
        for name, value in (("delim_pattern", delim_pattern),
                            ("keep_delim_pattern", keep_delim_pattern)):
            if not isinstance(value, str):
                raise TypeError(f"RegexTokenizer: {name} must be a str, got {value!r}")
        self.delim_pattern, self.keep_delim_pattern = delim_pattern, keep_delim_pattern
        self._delim = re.compile(delim_pattern)
        self._keep = re.compile(keep_delim_pattern) if keep_delim_pattern else None

    def _spans(self, text):
        spans, start = [], 0
        for m in self._delim.finditer(text):
            if m.start() == m.end():
                continue
            if m.start() > start:
                spans.append((start, m.start()))
            if self._keep is not None and self._keep.fullmatch(m.group()):
                spans.append(m.span())
            start = m.end()
        if start < len(text):
            spans.append((start, len(text)))
        return spans


class PythonTokenizer(TensorOperation):
    """Tokens from ``tokenizer(str) -> list of str``."""

    python_callable = True
    gil_free = False

    def __init__(self, tokenizer):
        if not callable(tokenizer):
            raise TypeError(f"PythonTokenizer: tokenizer must be callable, got "
                            f"{type(tokenizer).__name__}")
        self.tokenizer = tokenizer

    def __call__(self, *inputs):
        if len(inputs) != 1:
            raise TypeError(f"PythonTokenizer: expected 1 input, got {len(inputs)}")
        if not isinstance(inputs[0], np.ndarray):
            raise TypeError(f"input should be a NumPy array. Got {type(inputs[0])}.")
        return tokens_out(list(self.tokenizer(scalar_string("PythonTokenizer", inputs[0]))),
                          None)
