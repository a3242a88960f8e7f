"""SentencePiece vocabularies and tokenizer: the pieces equal MindSpore 2.10's for the same
corpus and settings (both run Google's sentencepiece trainer)."""

import random

import numpy as np
import pytest

import ms_data as ds
from ms_data import text

pytest.importorskip("sentencepiece")

WORDS = ("the quick brown fox jumps over lazy dog and cat runs fast while bird sings loudly "
         "in morning light").split()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    rng = random.Random(0)
    lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 12)))
             for _ in range(300)]
    path = tmp_path_factory.mktemp("sp") / "corpus.txt"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_unigram_from_file_matches_mindspore(corpus, tmp_path):
    vocab = text.SentencePieceVocab.from_file([corpus], 40, 0.9995,
                                              text.SentencePieceModel.UNIGRAM, {})
    pieces = text.SentencePieceTokenizer(vocab, text.SPieceTokenizerOutType.STRING)
    assert pieces("the quick brown fox jumps").tolist() == \
        ["▁the", "▁quick", "▁", "b", "r", "o", "w", "n", "▁fox", "▁jumps"]
    ids = text.SentencePieceTokenizer(vocab, text.SPieceTokenizerOutType.INT)("the quick brown fox")
    assert ids.dtype == np.int32 and ids.tolist() == [4, 8, 39, 22, 33, 36, 25, 37, 11]
    text.SentencePieceVocab.save_model(vocab, str(tmp_path), "m.model")
    from_file = text.SentencePieceTokenizer(str(tmp_path / "m.model"),
                                            text.SPieceTokenizerOutType.STRING)
    assert from_file("lazy dog sings").tolist() == \
        ["▁", "l", "a", "z", "y", "▁", "d", "o", "g", "▁", "s", "i", "n", "g", "s"]


def test_bpe_and_word_models_match_mindspore(corpus):
    bpe = text.SentencePieceVocab.from_file([corpus], 35, 1.0, text.SentencePieceModel.BPE, {})
    assert text.SentencePieceTokenizer(bpe, text.SPieceTokenizerOutType.STRING)(
        "the quick brown fox jumps").tolist() == [
        "▁", "t", "h", "e", "▁", "q", "u", "i", "c", "k", "▁b", "r", "o", "w", "n", "▁f", "o",
        "x", "▁", "j", "u", "m", "p", "s"]
    data = ds.TextFileDataset(corpus, shuffle=False)
    word = text.SentencePieceVocab.from_dataset(data, ["text"], 20, 0.9995,
                                                text.SentencePieceModel.WORD, {})
    assert text.SentencePieceTokenizer(word, text.SPieceTokenizerOutType.STRING)(
        "the quick brown fox zebra").tolist() == ["▁the", "▁quick", "▁brown", "▁fox", "▁zebra"]
    same = data.build_sentencepiece_vocab(["text"], 20, 0.9995, text.SentencePieceModel.WORD, {})
    assert same.model_proto == word.model_proto


def test_tokenizer_in_a_pipeline_and_errors(corpus):
    vocab = text.SentencePieceVocab.from_file([corpus], 40, 0.9995,
                                              text.SentencePieceModel.UNIGRAM, {})
    tokenizer = text.SentencePieceTokenizer(vocab, text.SPieceTokenizerOutType.STRING)
    data = ds.TextFileDataset(corpus, shuffle=False).map(tokenizer).take(1)
    row = next(data.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert row[0].tolist()[:3] == ["▁bird", "▁quick", "▁"]  # MindSpore's first row
    with pytest.raises(ValueError, match="does not exist"):
        text.SentencePieceVocab.from_file(["/nonexistent.txt"], 40, 0.9995,
                                          text.SentencePieceModel.UNIGRAM, {})
    with pytest.raises(RuntimeError, match="Vocabulary size too high"):
        text.SentencePieceVocab.from_file([corpus], 600, 0.9995,
                                          text.SentencePieceModel.UNIGRAM, {})
    with pytest.raises(TypeError, match="out_type"):
        text.SentencePieceTokenizer(vocab, "string")
