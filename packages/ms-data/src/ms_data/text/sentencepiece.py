"""SentencePiece vocabularies and tokenizer (``text.SentencePieceVocab``,
``text.SentencePieceTokenizer``) on Google's ``sentencepiece`` library, which MindSpore
builds into its C++ engine; install it with ``pip install ms-data[text]``.

A vocabulary is a trained model (its serialized proto); ``save_model`` writes the
``.model`` file that ``SentencePieceTokenizer`` (and the library itself) reads back.
"""

from __future__ import annotations

import enum
import io
import os

import numpy as np

from ms_data.text._strings import scalar_string
from ms_data.transforms.base import TensorOperation

__all__ = ["SentencePieceModel", "SPieceTokenizerOutType", "SPieceTokenizerLoadType",
           "SentencePieceVocab", "SentencePieceTokenizer"]


class SentencePieceModel(enum.Enum):
    UNIGRAM = 0
    BPE = 1
    CHAR = 2
    WORD = 3


class SPieceTokenizerOutType(enum.Enum):
    STRING = 0
    INT = 1


class SPieceTokenizerLoadType(enum.Enum):
    FILE = 0
    MODEL = 1


def _spm():
    try:
        import sentencepiece
    except ImportError:
        raise ImportError("SentencePiece needs the sentencepiece package: "
                          "pip install sentencepiece (or ms-data[text])") from None
    return sentencepiece


def _check(vocab_size, character_coverage, model_type, params):
    if not isinstance(vocab_size, int) or vocab_size < 1:
        raise ValueError(f"SentencePieceVocab: vocab_size must be a positive int, got "
                         f"{vocab_size!r}")
    if not isinstance(character_coverage, (int, float)) or not 0.98 <= character_coverage <= 1:
        raise ValueError(f"SentencePieceVocab: character_coverage must be in [0.98, 1.0], "
                         f"got {character_coverage!r}")
    if not isinstance(model_type, SentencePieceModel):
        raise TypeError(f"SentencePieceVocab: model_type must be a SentencePieceModel, got "
                        f"{model_type!r}")
    if not isinstance(params, dict):
        raise TypeError(f"SentencePieceVocab: params must be a dict, got {params!r}")


class SentencePieceVocab:
    """A trained SentencePiece model: ``from_file``, ``from_dataset``, ``save_model``."""

    def __init__(self, model_proto: bytes = b""):
        self.model_proto = model_proto

    @classmethod
    def _train(cls, vocab_size, character_coverage, model_type, params, **source):
        _check(vocab_size, character_coverage, model_type, params)
        out = io.BytesIO()
        try:
            _spm().SentencePieceTrainer.train(
                model_writer=out, vocab_size=vocab_size,
                character_coverage=float(character_coverage),
                model_type=model_type.name.lower(), minloglevel=2, **params, **source)
        except RuntimeError as e:
            raise RuntimeError(f"SentencePieceVocab: {e}") from None
        return cls(out.getvalue())

    @classmethod
    def from_file(cls, file_path, vocab_size, character_coverage, model_type, params):
        """Train on the lines of the files ``file_path`` (a list of paths)."""
        paths = [file_path] if isinstance(file_path, str) else list(file_path)
        missing = [p for p in paths if not os.path.isfile(p)]
        if missing:
            raise ValueError(f"SentencePieceVocab.from_file: {missing[0]} does not exist or "
                             f"is not a file")
        return cls._train(vocab_size, character_coverage, model_type, params,
                          input=",".join(paths))

    @classmethod
    def from_dataset(cls, dataset, col_names, vocab_size, character_coverage, model_type,
                     params):
        """Train on the strings of the column ``col_names`` (one name, or a list of one)."""
        names = [col_names] if isinstance(col_names, str) else list(col_names)
        if len(names) != 1:
            raise ValueError(f"SentencePieceVocab.from_dataset: col_names must name one "
                             f"column, got {col_names!r}")

        def sentences():
            for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
                for s in np.asarray(row[names[0]]).reshape(-1):
                    yield s.decode("utf-8") if isinstance(s, bytes) else str(s)

        return cls._train(vocab_size, character_coverage, model_type, params,
                          sentence_iterator=sentences())

    @classmethod
    def save_model(cls, vocab, path, filename):
        """Write ``vocab``'s model to ``path/filename``."""
        if not isinstance(vocab, SentencePieceVocab):
            raise TypeError(f"save_model: vocab must be a SentencePieceVocab, got "
                            f"{type(vocab).__name__}")
        if not os.path.isdir(path):
            raise ValueError(f"save_model: {path} is not a directory")
        with open(os.path.join(path, filename), "wb") as f:
            f.write(vocab.model_proto)


class SentencePieceTokenizer(TensorOperation):
    """Pieces (``STRING``) or piece ids (``INT``) of one string, by a SentencePiece model
    given as a ``SentencePieceVocab`` or a ``.model`` file path."""

    def __init__(self, mode, out_type):
        if isinstance(mode, SentencePieceVocab):
            proto = mode.model_proto
        elif isinstance(mode, str):
            if not os.path.isfile(mode):
                raise ValueError(f"SentencePieceTokenizer: model file {mode} does not exist")
            with open(mode, "rb") as f:
                proto = f.read()
        else:
            raise TypeError(f"SentencePieceTokenizer: mode must be a str path or a "
                            f"SentencePieceVocab, got {type(mode).__name__}")
        if not isinstance(out_type, SPieceTokenizerOutType):
            raise TypeError(f"SentencePieceTokenizer: out_type must be an "
                            f"SPieceTokenizerOutType, got {out_type!r}")
        self.mode, self.out_type = mode, out_type
        self._proto = proto
        self._processor = None

    def __getstate__(self):  # the processor is a C++ object: rebuilt in a worker process
        return {**self.__dict__, "_processor": None}

    def __call__(self, *inputs):
        if len(inputs) != 1:
            raise TypeError(f"SentencePieceTokenizer: expected 1 input, got {len(inputs)}")
        if self._processor is None:
            self._processor = _spm().SentencePieceProcessor(model_proto=self._proto)
        text = scalar_string("SentencePieceTokenizer", inputs[0])
        if self.out_type is SPieceTokenizerOutType.INT:
            return np.array(self._processor.encode(text, out_type=int), dtype=np.int32)
        return np.array(self._processor.encode(text, out_type=str), dtype=str)
