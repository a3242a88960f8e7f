"""BERT's tokenizers: BasicTokenizer (words and punctuation), WordpieceTokenizer (pieces in
a vocabulary) and BertTokenizer (both), as MindSpore 2.10's.

BasicTokenizer first normalizes the whole string: with ``lower_case`` it case-folds,
decomposes (NFKD) and drops the combining marks, otherwise it applies
``normalization_form``. It then splits on whitespace and control characters and makes every
punctuation mark and CJK ideograph its own token; ``[CLS]``-style tokens stay whole with
``preserve_unused_token``, and kept whitespace becomes spaces. As in MindSpore, offsets
(UTF-8 bytes) point into the normalized string.
"""

from __future__ import annotations

import re
import unicodedata

from ms_data.text._strings import scalar_string, string_array, tokens_out
from ms_data.text.ops import NormalizeForm
from ms_data.text.tokenizers import byte_spans
from ms_data.text.vocab import Vocab
from ms_data.transforms.base import TensorOperation

__all__ = ["BasicTokenizer", "WordpieceTokenizer", "BertTokenizer"]

_UNUSED = re.compile(r"\[(?:CLS|SEP|UNK|PAD|MASK|unused\d+)\]")
_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
        (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def _is_cjk(c: str) -> bool:
    cp = ord(c)
    return any(a <= cp <= b for a, b in _CJK)


def _is_punct(c: str) -> bool:
    cp = ord(c)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(c).startswith("P")


def _is_space(c: str) -> bool:
    return c.isspace() or unicodedata.category(c) == "Zs"


def _is_control(c: str) -> bool:
    return c in "\x00\ufffd" or unicodedata.category(c) in ("Cc", "Cf")


def _check_bool(op, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"{op}: {name} must be a bool, got {value!r}")
    return value


class BasicTokenizer(TensorOperation):
    """Words, punctuation marks and CJK characters of one string (see the module doc)."""

    def __init__(self, lower_case=False, keep_whitespace=False,
                 normalization_form=NormalizeForm.NONE, preserve_unused_token=True,
                 with_offsets=False):
        op = type(self).__name__
        self.lower_case = _check_bool(op, "lower_case", lower_case)
        self.keep_whitespace = _check_bool(op, "keep_whitespace", keep_whitespace)
        if not isinstance(normalization_form, NormalizeForm):
            raise TypeError(f"{op}: normalization_form must be a NormalizeForm, got "
                            f"{normalization_form!r}")
        self.normalization_form = normalization_form
        self.preserve_unused_token = _check_bool(op, "preserve_unused_token",
                                                 preserve_unused_token)
        self.with_offsets = _check_bool(op, "with_offsets", with_offsets)

    def normalize(self, text: str) -> str:
        """The string the tokens come from; ``[CLS]``-style tokens stay as they are."""
        if self.preserve_unused_token:
            parts, start = [], 0
            for m in _UNUSED.finditer(text):
                parts += [self._normalized(text[start:m.start()]), m.group()]
                start = m.end()
            return "".join(parts) + self._normalized(text[start:])
        return self._normalized(text)

    def _normalized(self, text: str) -> str:
        if self.lower_case:
            text = unicodedata.normalize("NFKD", text.casefold())
            return "".join(x for x in text if unicodedata.category(x) != "Mn")
        if self.normalization_form is not NormalizeForm.NONE:
            return unicodedata.normalize(self.normalization_form.value, text)
        return text

    def tokenize(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """``[(token, (start, end) character span)]`` of a normalized string."""
        kept = [m.span() for m in _UNUSED.finditer(text)] if self.preserve_unused_token \
            else []
        out: list = []
        word: list = []  # pieces of the current word, and where it started
        start = 0

        def flush(end):
            if word:
                out.append(("".join(word), (start, end)))
                word.clear()

        i = 0
        while i < len(text):
            span = next((s for s in kept if s[0] == i), None)
            if span is not None:
                flush(i)
                out.append((text[span[0]:span[1]], span))
                i = span[1]
                continue
            c = text[i]
            if _is_space(c) or _is_control(c):
                flush(i)
                j = i
                while j < len(text) and _is_space(text[j]):
                    j += 1
                if self.keep_whitespace and j > i:
                    out.append((" " * (j - i), (i, j)))
                i = max(j, i + 1)
                continue
            if _is_cjk(c) or _is_punct(c):
                flush(i)
                out.append((c, (i, i + 1)))
            else:
                if not word:
                    start = i
                word.append(c)
            i += 1
        flush(len(text))
        return [(t, s) for t, s in out if t or self.keep_whitespace]

    def __call__(self, *inputs):
        if len(inputs) != 1:
            raise TypeError(f"{type(self).__name__}: expected 1 input, got {len(inputs)}")
        text = self.normalize(scalar_string(type(self).__name__, inputs[0]))
        pairs = self.tokenize(text)
        spans = byte_spans(text, [s for _, s in pairs]) if self.with_offsets else None
        return tokens_out([t for t, _ in pairs], spans)


class WordpieceTokenizer(TensorOperation):
    """Each word of a string array as its longest-match pieces in ``vocab``; later pieces
    carry ``suffix_indicator``. A word without a split, or longer than
    ``max_bytes_per_token``, becomes ``unknown_token`` (itself when that is empty)."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100,
                 unknown_token="[UNK]", with_offsets=False):
        op = type(self).__name__
        if not isinstance(vocab, Vocab):
            raise TypeError(f"{op}: vocab must be a text.Vocab, got {type(vocab).__name__}")
        if not isinstance(suffix_indicator, str) or not isinstance(unknown_token, str):
            raise TypeError(f"{op}: suffix_indicator and unknown_token must be str")
        if not isinstance(max_bytes_per_token, int) or max_bytes_per_token < 0:
            raise ValueError(f"{op}: max_bytes_per_token must be a non-negative int, got "
                             f"{max_bytes_per_token!r}")
        self.vocab, self.suffix_indicator = vocab, suffix_indicator
        self.max_bytes_per_token, self.unknown_token = max_bytes_per_token, unknown_token
        self.with_offsets = _check_bool(op, "with_offsets", with_offsets)

    def pieces(self, word: str) -> list[tuple[str, tuple[int, int]]]:
        """``[(piece, (start, end) byte span within the word)]``."""
        size = len(word.encode("utf-8"))
        unknown = [(self.unknown_token or word, (0, size))]
        if size > self.max_bytes_per_token:
            return unknown
        words = self.vocab.vocab()
        out, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else self.suffix_indicator + word[start:end]
                if piece in words:
                    break
                end -= 1
            if end == start:
                return unknown
            a = len(word[:start].encode("utf-8"))
            out.append((piece, (a, a + len(word[start:end].encode("utf-8")))))
            start = end
        return out

    def __call__(self, *inputs):
        if len(inputs) != 1:
            raise TypeError(f"{type(self).__name__}: expected 1 input, got {len(inputs)}")
        words = string_array(type(self).__name__, inputs[0]).reshape(-1)
        pairs = [p for w in words for p in self.pieces(str(w))]
        return tokens_out([t for t, _ in pairs],
                          [s for _, s in pairs] if self.with_offsets else None)


class BertTokenizer(TensorOperation):
    """BasicTokenizer, then WordpieceTokenizer on its words (offsets into the string)."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100,
                 unknown_token="[UNK]", lower_case=False, keep_whitespace=False,
                 normalization_form=NormalizeForm.NONE, preserve_unused_token=True,
                 with_offsets=False):
        self.basic = BasicTokenizer(lower_case, keep_whitespace, normalization_form,
                                    preserve_unused_token, with_offsets)
        self.wordpiece = WordpieceTokenizer(vocab, suffix_indicator, max_bytes_per_token,
                                            unknown_token, with_offsets)
        self.with_offsets = with_offsets

    def __call__(self, *inputs):
        if len(inputs) != 1:
            raise TypeError(f"BertTokenizer: expected 1 input, got {len(inputs)}")
        text = self.basic.normalize(scalar_string("BertTokenizer", inputs[0]))
        words = self.basic.tokenize(text)
        starts = [a for a, _ in byte_spans(text, [s for _, s in words])]
        pairs = [(p, (s0 + a, s0 + b)) for (w, _), s0 in zip(words, starts)
                 for p, (a, b) in self.wordpiece.pieces(w)]
        return tokens_out([t for t, _ in pairs],
                          [s for _, s in pairs] if self.with_offsets else None)
