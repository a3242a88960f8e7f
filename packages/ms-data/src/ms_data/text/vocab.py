"""``Vocab``: words and their ids, built from a list, a dict, a file or a dataset column.

>>> v = Vocab.from_list(["a", "b"], special_tokens=["<pad>"])
>>> v.tokens_to_ids(["b", "zz"]), v.ids_to_tokens(0)
([2, -1], '<pad>')
"""

from __future__ import annotations

import os
from collections import Counter

import numpy as np

__all__ = ["Vocab"]


def _specials(special_tokens, special_first):
    specials = list(special_tokens or [])
    if len(set(specials)) != len(specials):
        raise ValueError(f"special_tokens contains duplicate words: {specials}")
    if not isinstance(special_first, bool):
        raise TypeError(f"special_first must be a bool, got {special_first!r}")
    return specials


def _numbered(words: list[str], specials: list[str], special_first: bool) -> dict:
    words = [w for w in words if w not in specials]
    ordered = specials + words if special_first else words + specials
    return {w: i for i, w in enumerate(ordered)}


class Vocab:
    """A word -> id table (MindSpore's ``text.Vocab``); make one with a ``from_*`` method."""

    def __init__(self):
        self._ids: dict[str, int] = {}
        self._words: dict[int, str] = {}

    @classmethod
    def _of(cls, ids: dict) -> Vocab:
        vocab = cls()
        vocab._ids = dict(ids)
        vocab._words = {i: w for w, i in ids.items()}
        return vocab

    @classmethod
    def from_list(cls, word_list, special_tokens=None, special_first=True) -> Vocab:
        """Ids in list order; ``special_tokens`` before (or after) the words."""
        words = [str(w) for w in word_list]
        seen = set()
        for w in words:
            if w in seen:
                raise ValueError(f"word_list contains duplicate word: {w}.")
            seen.add(w)
        return cls._of(_numbered(words, _specials(special_tokens, special_first),
                                 special_first))

    @classmethod
    def from_dict(cls, word_dict) -> Vocab:
        """The ids given: ``{word: id}``."""
        if not isinstance(word_dict, dict):
            raise TypeError(f"from_dict: word_dict must be a dict, got {type(word_dict).__name__}")
        bad = [(w, i) for w, i in word_dict.items() if not isinstance(i, int) or i < 0]
        if bad:
            raise ValueError(f"from_dict: ids must be non-negative ints, got {bad[:3]}")
        return cls._of({str(w): i for w, i in word_dict.items()})

    @classmethod
    def from_file(cls, file_path, delimiter="", vocab_size=None, special_tokens=None,
                  special_first=True) -> Vocab:
        """One word per line (the text before ``delimiter`` when given), the first
        ``vocab_size`` lines."""
        if not os.path.isfile(file_path):
            raise ValueError(f"from_file: the vocabulary file {file_path} does not exist")
        if vocab_size is not None and (not isinstance(vocab_size, int) or vocab_size < 1):
            raise ValueError(f"from_file: vocab_size must be a positive int, got {vocab_size!r}")
        specials = _specials(special_tokens, special_first)
        words: list[str] = []
        with open(file_path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if vocab_size is not None and len(words) >= vocab_size:
                    break
                word = line.rstrip("\r\n")
                word = word.split(delimiter)[0] if delimiter else word
                if word in words or word in specials:
                    raise ValueError(f"from_file: {file_path} line {number}: duplicate word "
                                     f"{word!r}")
                words.append(word)
        return cls._of(_numbered(words, specials, special_first))

    @classmethod
    def from_dataset(cls, dataset, columns=None, freq_range=None, top_k=None,
                     special_tokens=None, special_first=True) -> Vocab:
        """The words of ``columns`` of ``dataset`` whose counts fall in ``freq_range``,
        most frequent first (ties in word order), at most ``top_k`` of them."""
        columns = [columns] if isinstance(columns, str) else columns
        columns = list(columns) if columns is not None else dataset.get_col_names()
        low, high = freq_range if freq_range is not None else (0, None)
        if top_k is not None and (not isinstance(top_k, int) or top_k < 1):
            raise ValueError(f"from_dataset: top_k must be a positive int, got {top_k!r}")
        specials = _specials(special_tokens, special_first)
        counts: Counter = Counter()
        for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
            for c in columns:
                values = np.asarray(row[c])
                if values.dtype.kind == "S":
                    values = np.char.decode(values, "utf-8")
                counts.update(str(w) for w in values.reshape(-1))
        words = sorted((w for w, n in counts.items()
                        if n >= (low or 0) and (high is None or n <= high)),
                       key=lambda w: (-counts[w], w))
        return cls._of(_numbered(words[:top_k], specials, special_first))

    def vocab(self) -> dict:
        """``{word: id}``."""
        return dict(self._ids)

    def tokens_to_ids(self, tokens):
        """Ids of ``tokens`` (a word or a list); -1 for unknown words."""
        if isinstance(tokens, (str, np.str_)):
            return self._ids.get(str(tokens), -1)
        return [self._ids.get(str(t), -1) for t in tokens]

    def ids_to_tokens(self, ids):
        """Words of ``ids`` (an id or a list); '' for unknown ids."""
        if isinstance(ids, (int, np.integer)):
            return self._words.get(int(ids), "")
        return [self._words.get(int(i), "") for i in ids]

    def __len__(self) -> int:
        return len(self._ids)
