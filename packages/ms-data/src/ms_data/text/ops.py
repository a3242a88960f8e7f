"""Text operations on string (and token) tensors: Lookup, Ngram, SlidingWindow, ToNumber,
TruncateSequencePair, Truncate, AddToken, CaseFold, NormalizeUTF8, RegexReplace."""

from __future__ import annotations

import enum
import re
import unicodedata

import numpy as np

from ms_data.text._strings import string_array
from ms_data.transforms.base import TensorOperation

__all__ = ["NormalizeForm", "Lookup", "Ngram", "SlidingWindow", "ToNumber",
           "TruncateSequencePair", "Truncate", "AddToken", "CaseFold", "NormalizeUTF8",
           "RegexReplace"]


class NormalizeForm(enum.Enum):
    """Unicode normalization forms (``NormalizeUTF8``, ``BasicTokenizer``)."""

    NONE = "NONE"
    NFC = "NFC"
    NFKC = "NFKC"
    NFD = "NFD"
    NFKD = "NFKD"


def _numpy_dtype(op: str, data_type) -> np.dtype:
    """A framework dtype (``mindspore.int32``) or numpy dtype as numpy's."""
    np_name = getattr(data_type, "np", None)
    try:
        return np.dtype(np_name if np_name is not None else data_type)
    except TypeError:
        raise TypeError(f"{op}: data_type must be a dtype, got {data_type!r}") from None


def _one(op: str, inputs):
    if len(inputs) != 1:
        raise TypeError(f"{op}: expected 1 input, got {len(inputs)}")
    return inputs[0]


class Lookup(TensorOperation):
    """Words -> ids of ``vocab``; unknown words take ``unknown_token``'s id (an error
    without one)."""

    def __init__(self, vocab, unknown_token=None, data_type=None):
        from ms_data.text.vocab import Vocab

        if not isinstance(vocab, Vocab):
            raise TypeError(f"Lookup: vocab must be a text.Vocab, got {type(vocab).__name__}")
        self.vocab, self.unknown_token = vocab, unknown_token
        self.dtype = _numpy_dtype("Lookup", data_type) if data_type is not None \
            else np.dtype(np.int32)
        if self.dtype.kind not in "iu":
            raise TypeError(f"Lookup: data_type must be an integer type, got {self.dtype}")
        self._unknown = None
        if unknown_token is not None:
            self._unknown = vocab.vocab().get(unknown_token)
            if self._unknown is None:
                raise RuntimeError(f'Lookup: "{unknown_token}" doesn\'t exist in vocab.')

    def __call__(self, *inputs):
        words = string_array("Lookup", _one("Lookup", inputs))
        ids = self.vocab.vocab()
        out = np.empty(words.shape, self.dtype)
        for index, w in np.ndenumerate(words):
            i = ids.get(str(w), self._unknown)
            if i is None:
                raise RuntimeError(f'Lookup: invalid data, token: "{w}" doesn\'t exist in vocab '
                                   f"and no unknown token is specified.")
            out[index] = i
        return out


class Ngram(TensorOperation):
    """The n-grams of a 1-D string tensor for every n of ``n``, joined by ``separator``;
    up to n-1 of the ``(pad, width)`` pads go on each side."""

    def __init__(self, n, left_pad=("", 0), right_pad=("", 0), separator=" "):
        ns = [n] if isinstance(n, int) else list(n)
        for k, g in enumerate(ns):
            if not isinstance(g, int) or isinstance(g, bool):
                raise TypeError(f"Ngram: n must be an int or a list of ints, got {n!r}")
            if g <= 0:
                raise ValueError(f"Input gram_{k} must be greater than 0.")
        for name, pad in (("left_pad", left_pad), ("right_pad", right_pad)):
            if not (isinstance(pad, tuple) and len(pad) == 2 and isinstance(pad[0], str)
                    and isinstance(pad[1], int) and pad[1] >= 0):
                raise ValueError(f"Ngram: {name} must be a (str, non-negative int) tuple, "
                                 f"got {pad!r}")
        if not isinstance(separator, str):
            raise TypeError(f"Ngram: separator must be a str, got {separator!r}")
        self.n, self.left_pad, self.right_pad, self.separator = ns, left_pad, right_pad, \
            separator

    def __call__(self, *inputs):
        words = string_array("Ngram", _one("Ngram", inputs))
        if words.ndim != 1:
            raise RuntimeError(f"Ngram: Ngram only supports 1D input, got {words.ndim}D")
        out = []
        for g in self.n:
            seq = ([self.left_pad[0]] * min(g - 1, self.left_pad[1]) + [str(w) for w in words]
                   + [self.right_pad[0]] * min(g - 1, self.right_pad[1]))
            out += [self.separator.join(seq[i:i + g]) for i in range(len(seq) - g + 1)]
        return np.array(out if out else [""], dtype=str)


class SlidingWindow(TensorOperation):
    """Windows of ``width`` consecutive elements of a 1-D tensor, as rows."""

    def __init__(self, width, axis=0):
        if not isinstance(width, int) or width < 1:
            raise ValueError(f"SlidingWindow: width must be a positive int, got {width!r}")
        if not isinstance(axis, int):
            raise TypeError(f"SlidingWindow: axis must be an int, got {axis!r}")
        self.width, self.axis = width, axis

    def __call__(self, *inputs):
        x = np.asarray(_one("SlidingWindow", inputs))
        if x.ndim != 1:
            raise RuntimeError(f"SlidingWindow: SlidingWindow supports 1D input only for now, "
                               f"but got {x.ndim}D.")
        if self.axis not in (0, -1):
            raise RuntimeError(f"SlidingWindow: axis {self.axis} is out of range for a 1D input")
        if len(x) < self.width:
            return np.empty((0,), x.dtype)
        return np.lib.stride_tricks.sliding_window_view(x, self.width).copy()


class ToNumber(TensorOperation):
    """Strings -> numbers of ``data_type``; out-of-range or malformed strings are errors."""

    def __init__(self, data_type):
        self.data_type = data_type
        self.dtype = _numpy_dtype("ToNumber", data_type)
        if self.dtype.kind not in "iuf":
            raise TypeError(f"ToNumber: data_type must be numeric, got {self.dtype}")

    def _convert(self, s: str):
        try:
            value = int(s) if self.dtype.kind in "iu" else float(s)
        except ValueError:
            raise RuntimeError(f'ToNumber: it is invalid to convert "{s}" to a number.') \
                from None
        info = np.iinfo(self.dtype) if self.dtype.kind in "iu" else np.finfo(self.dtype)
        if not info.min <= value <= info.max:
            raise RuntimeError(f"ToNumber: string input {s} will be out of bounds if cast to "
                               f"{self.dtype}. The valid range is: [{info.min}, {info.max}].")
        return value

    def __call__(self, *inputs):
        words = string_array("ToNumber", _one("ToNumber", inputs))
        out = np.empty(words.shape, self.dtype)
        for index, w in np.ndenumerate(words):
            out[index] = self._convert(str(w))
        return out


class TruncateSequencePair(TensorOperation):
    """Shorten two 1-D tensors, the longer first, until their lengths add up to
    ``max_length``."""

    def __init__(self, max_length):
        if not isinstance(max_length, int) or max_length < 0:
            raise ValueError(f"TruncateSequencePair: max_length must be a non-negative int, "
                             f"got {max_length!r}")
        self.max_length = max_length

    def __call__(self, *inputs):
        if len(inputs) != 2:
            raise TypeError(f"TruncateSequencePair: expected 2 inputs, got {len(inputs)}")
        a, b = (np.asarray(x) for x in inputs)
        la, lb = len(a), len(b)
        while la + lb > self.max_length:
            if la > lb:
                la -= 1
            else:
                lb -= 1
        return a[:la], b[:lb]


class Truncate(TensorOperation):
    """The first ``max_seq_len`` elements of a 1-D tensor."""

    def __init__(self, max_seq_len):
        if not isinstance(max_seq_len, int) or max_seq_len < 1:
            raise ValueError(f"Truncate: max_seq_len must be a positive int, got "
                             f"{max_seq_len!r}")
        self.max_seq_len = max_seq_len

    def __call__(self, *inputs):
        x = np.asarray(_one("Truncate", inputs))
        if x.ndim != 1:
            raise RuntimeError(f"Truncate: the input must be 1D, got {x.ndim}D")
        return x[:self.max_seq_len]


class AddToken(TensorOperation):
    """``token`` added at the start (``begin=True``) or the end of a 1-D string tensor."""

    def __init__(self, token, begin=True):
        if not isinstance(token, str) or not isinstance(begin, bool):
            raise TypeError(f"AddToken: expected a str token and a bool begin, got "
                            f"{token!r}, {begin!r}")
        self.token, self.begin = token, begin

    def __call__(self, *inputs):
        words = [str(w) for w in string_array("AddToken", _one("AddToken", inputs)).reshape(-1)]
        return np.array([self.token, *words] if self.begin else [*words, self.token], dtype=str)


def _map_strings(op: str, x, fn) -> np.ndarray:
    words = string_array(op, x)
    return np.vectorize(fn, otypes=[str])(words) if words.size else words


class CaseFold(TensorOperation):
    """Unicode case folding (``str.casefold``)."""

    def __call__(self, *inputs):
        return _map_strings("CaseFold", _one("CaseFold", inputs), str.casefold)


class NormalizeUTF8(TensorOperation):
    """Unicode normalization to ``normalize_form``."""

    def __init__(self, normalize_form=NormalizeForm.NFKC):
        if not isinstance(normalize_form, NormalizeForm):
            raise TypeError(f"NormalizeUTF8: normalize_form must be a NormalizeForm, got "
                            f"{normalize_form!r}")
        self.normalize_form = normalize_form

    def __call__(self, *inputs):
        form = self.normalize_form.value
        x = _one("NormalizeUTF8", inputs)
        if form == "NONE":
            return string_array("NormalizeUTF8", x)
        return _map_strings("NormalizeUTF8", x, lambda s: unicodedata.normalize(form, s))


class RegexReplace(TensorOperation):
    """Replace matches of ``pattern`` by ``replace`` (all, or the first)."""

    def __init__(self, pattern, replace, replace_all=True):
        if not isinstance(pattern, str) or not isinstance(replace, str):
            raise TypeError("RegexReplace: pattern and replace must be str")
        try:
            self._regex = re.compile(pattern)
        except re.error as e:
            raise ValueError(f"RegexReplace: invalid pattern {pattern!r}: {e}") from None
        self.pattern, self.replace, self.replace_all = pattern, replace, bool(replace_all)

    def __call__(self, *inputs):
        count = 0 if self.replace_all else 1
        return _map_strings("RegexReplace", _one("RegexReplace", inputs),
                            lambda s: self._regex.sub(self.replace, s, count=count))
