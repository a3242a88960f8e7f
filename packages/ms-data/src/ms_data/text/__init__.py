"""``mindspore.dataset.text``: tokenizers, vocabularies and string operations.

>>> import numpy as np
>>> from ms_data import text
>>> vocab = text.Vocab.from_list(["[UNK]", "##want", "##ed", "un"])
>>> text.BertTokenizer(vocab)("unwanted running").tolist()
['un', '##want', '##ed', '[UNK]']
"""

from ms_data.text._strings import to_bytes, to_str
from ms_data.text.bert import BasicTokenizer, BertTokenizer, WordpieceTokenizer
from ms_data.text.ops import (
    AddToken,
    CaseFold,
    Lookup,
    Ngram,
    NormalizeForm,
    NormalizeUTF8,
    RegexReplace,
    SlidingWindow,
    ToNumber,
    Truncate,
    TruncateSequencePair,
)
from ms_data.text.sentencepiece import (
    SentencePieceModel,
    SentencePieceTokenizer,
    SentencePieceVocab,
    SPieceTokenizerLoadType,
    SPieceTokenizerOutType,
)
from ms_data.text.tokenizers import (
    PythonTokenizer,
    RegexTokenizer,
    UnicodeCharTokenizer,
    WhitespaceTokenizer,
)
from ms_data.text.vocab import Vocab

__all__ = [
    "Vocab", "Lookup", "WhitespaceTokenizer", "UnicodeCharTokenizer", "RegexTokenizer",
    "RegexReplace", "BasicTokenizer", "BertTokenizer", "WordpieceTokenizer", "Ngram",
    "SlidingWindow", "ToNumber", "TruncateSequencePair", "Truncate", "PythonTokenizer",
    "AddToken", "CaseFold", "NormalizeUTF8", "NormalizeForm", "to_str", "to_bytes",
    "SentencePieceVocab", "SentencePieceTokenizer", "SentencePieceModel",
    "SPieceTokenizerOutType", "SPieceTokenizerLoadType",
]
