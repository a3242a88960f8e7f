"""ms_data.text: every expected value below is MindSpore 2.10's output for the same call."""

import numpy as np
import pytest

import ms_data as ds
from ms_data import text

VOCAB = text.Vocab.from_list(["[UNK]", "[CLS]", "want", "##ed", "un", "##aff", "##able",
                              "runn", "##ing", "hello", ","])


def _lists(out):
    return [o.tolist() for o in out] if isinstance(out, tuple) else out.tolist()


@pytest.mark.parametrize("op, arg, expected", [
    (text.WhitespaceTokenizer(), "Welcome  to\tBeijing! ", ["Welcome", "to", "Beijing!"]),
    (text.WhitespaceTokenizer(True), "Welcome  to Beijing!",
     [["Welcome", "to", "Beijing!"], [0, 9, 12], [7, 11, 20]]),
    (text.WhitespaceTokenizer(), "   ", [""]),
    (text.UnicodeCharTokenizer(), "héllo 北京", ["h", "é", "l", "l", "o", " ", "北", "京"]),
    (text.UnicodeCharTokenizer(True), "hé北", [["h", "é", "北"], [0, 1, 3], [1, 3, 6]]),
    (text.RegexTokenizer(r"\s+"), "Welcome  to Beijing", ["Welcome", "to", "Beijing"]),
    (text.RegexTokenizer(r"\s+", r"\s+"), "Welcome  to Beijing",
     ["Welcome", "  ", "to", " ", "Beijing"]),
    (text.RegexTokenizer(r"\s+", with_offsets=True), "ab  cd", [["ab", "cd"], [0, 4], [2, 6]]),
    (text.RegexReplace(r"\d+", "N"), "a1b22c", "aNbNc"),
    (text.RegexReplace(r"\d+", "N", False), "a1b22c", "aNb22c"),
    (text.BasicTokenizer(), "Hello, World!  I'm 北京人。",
     ["Hello", ",", "World", "!", "I", "'", "m", "北", "京", "人", "。"]),
    (text.BasicTokenizer(keep_whitespace=True), "a  b\tc", ["a", "  ", "b", " ", "c"]),
    (text.BasicTokenizer(with_offsets=True), "Hi, 北京",
     [["Hi", ",", "北", "京"], [0, 2, 4, 7], [2, 3, 7, 10]]),
    (text.BasicTokenizer(lower_case=True, with_offsets=True), "Ａb ﬁx ①2 Éclair naïve ǅ ß İ",
     [["ab", "fix", "12", "eclair", "naive", "dz", "ss", "i"],
      [0, 3, 7, 10, 17, 23, 26, 29], [2, 6, 9, 16, 22, 25, 28, 30]]),
    (text.BasicTokenizer(lower_case=True, with_offsets=True), "a—b…c",
     [["a", "—", "b", ".", ".", ".", "c"], [0, 1, 4, 5, 6, 7, 8], [1, 4, 5, 6, 7, 8, 9]]),
    (text.BasicTokenizer(), "x [CLS] [unused1] [MASK] y", ["x", "[CLS]", "[unused1]", "[MASK]",
                                                             "y"]),
    (text.BasicTokenizer(preserve_unused_token=False), "x [CLS] y", ["x", "[", "CLS", "]", "y"]),
    (text.BasicTokenizer(), "a\x00b\tc\u200bd e", ["a", "b", "c", "d", "e"]),
    (text.BasicTokenizer(normalization_form=text.NormalizeForm.NFKC), "ｱ①", ["ア1"]),
    (text.WordpieceTokenizer(VOCAB), np.array(["unwanted", "running", "xyz"]),
     ["[UNK]", "runn", "##ing", "[UNK]"]),
    (text.WordpieceTokenizer(VOCAB, with_offsets=True), np.array(["unaffable"]),
     [["un", "##aff", "##able"], [0, 2, 5], [2, 5, 9]]),
    (text.BertTokenizer(VOCAB, lower_case=True), "Hello, UNwanted running",
     ["hello", ",", "[UNK]", "runn", "##ing"]),
    (text.BertTokenizer(VOCAB, with_offsets=True), "hello running",
     [["hello", "runn", "##ing"], [0, 6, 10], [5, 10, 13]]),
    (text.Lookup(VOCAB, "[UNK]"), np.array(["want", "zzz", "hello"]), [2, 0, 9]),
    (text.Ngram(2), np.array(["a", "b", "c", "d"]), ["a b", "b c", "c d"]),
    (text.Ngram([1, 3], left_pad=("_", 2), right_pad=("-", 1), separator="+"),
     np.array(["a", "b", "c"]), ["a", "b", "c", "_+_+a", "_+a+b", "a+b+c", "b+c+-"]),
    (text.Ngram(5), np.array(["a", "b"]), [""]),
    (text.SlidingWindow(2), np.array([1, 2, 3, 4]), [[1, 2], [2, 3], [3, 4]]),
    (text.SlidingWindow(2), np.array(["a", "b", "c"]), [["a", "b"], ["b", "c"]]),
    (text.SlidingWindow(5), np.array([1, 2, 3]), []),
    (text.ToNumber(np.float32), np.array(["1.5", "2e3"]), [1.5, 2000.0]),
    (text.CaseFold(), "HeLLo ß", "hello ss"),
    (text.NormalizeUTF8(text.NormalizeForm.NFKC), "ｱ①", "ア1"),
    (text.AddToken("TOKEN", True), np.array(["a", "b"]), ["TOKEN", "a", "b"]),
    (text.AddToken("TOKEN", False), np.array(["a", "b"]), ["a", "b", "TOKEN"]),
    (text.Truncate(2), np.array(["a", "b", "c"]), ["a", "b"]),
])
def test_operations_match_mindspore(op, arg, expected):
    assert _lists(op(arg)) == expected


def test_pair_and_number_operations():
    a, b = text.TruncateSequencePair(4)(np.array([1, 2, 3]), np.array([4, 5, 6]))
    assert (a.tolist(), b.tolist()) == ([1, 2], [4, 5])
    a, b = text.TruncateSequencePair(5)(np.array([1, 2]), np.array([4, 5, 6, 7, 8]))
    assert (a.tolist(), b.tolist()) == ([1, 2], [4, 5, 6])
    out = text.ToNumber(np.int32)(np.array(["1", "-2", "3"]))
    assert out.dtype == np.int32 and out.tolist() == [1, -2, 3]
    with pytest.raises(RuntimeError, match="out of bounds if cast to int8"):
        text.ToNumber(np.int8)(np.array(["300"]))
    with pytest.raises(RuntimeError, match='invalid to convert "abc"'):
        text.ToNumber(np.int32)(np.array(["abc"]))
    lookup = text.Lookup(VOCAB, "[UNK]", np.int64)(np.array(["want", "nope"]))
    assert lookup.dtype == np.int64 and lookup.tolist() == [2, 0]
    assert text.Lookup(VOCAB)("want").tolist() == 2


def test_errors_match_mindspore():
    with pytest.raises(RuntimeError, match="doesn't exist in vocab and no unknown token"):
        text.Lookup(VOCAB)(np.array(["zzz"]))
    with pytest.raises(RuntimeError, match='"<x>" doesn\'t exist in vocab'):
        text.Lookup(VOCAB, "<x>")
    with pytest.raises(RuntimeError, match="supports 1D input only"):
        text.SlidingWindow(2)(np.array([[1, 2], [3, 4]]))
    with pytest.raises(RuntimeError, match="should be scalar"):
        text.WhitespaceTokenizer()(np.array(["a b", "c"]))
    with pytest.raises(ValueError, match="gram_0 must be greater than 0"):
        text.Ngram(0)
    with pytest.raises(ValueError, match="duplicate word: a"):
        text.Vocab.from_list(["a", "a"])
    with pytest.raises(TypeError, match="NumPy array"):
        text.PythonTokenizer(str.split)("a b")


def test_vocab_builders(tmp_path):
    assert VOCAB.tokens_to_ids(["want", "nope"]) == [2, -1] and VOCAB.tokens_to_ids("want") == 2
    assert VOCAB.ids_to_tokens([2, 100]) == ["want", ""] and VOCAB.ids_to_tokens(3) == "##ed"
    assert text.Vocab.from_list(["a", "b"], ["<pad>", "<unk>"], False).vocab() == \
        {"a": 0, "b": 1, "<pad>": 2, "<unk>": 3}
    assert text.Vocab.from_dict({"a": 3, "b": 5}).vocab() == {"a": 3, "b": 5}
    path = tmp_path / "vocab.txt"
    path.write_text("w1,x\nw2\nw3 y\n")
    assert text.Vocab.from_file(str(path), ",", 2, ["<s>"], True).vocab() == \
        {"<s>": 0, "w1": 1, "w2": 2}
    data = ds.NumpySlicesDataset(["a b b c", "b c c c", "d"], column_names=["t"],
                                 shuffle=False).map(text.WhitespaceTokenizer())
    assert text.Vocab.from_dataset(data, "t").vocab() == {"c": 0, "b": 1, "a": 2, "d": 3}
    assert text.Vocab.from_dataset(data, ["t"], freq_range=(2, 10), top_k=1,
                                   special_tokens=["<u>"]).vocab() == {"<u>": 0, "c": 1}
    assert data.build_vocab(["t"], None, 2, ["<u>"], False).vocab() == \
        {"c": 0, "b": 1, "<u>": 2}


def test_text_operations_in_a_pipeline():
    vocab = text.Vocab.from_list(["a", "b", "c"])
    data = ds.NumpySlicesDataset(["a b", "c"], column_names=["t"], shuffle=False)
    data = data.map(text.WhitespaceTokenizer()).map(text.Lookup(vocab))
    assert [r[0].tolist() for r in data.create_tuple_iterator(output_numpy=True)] == [[0, 1], [2]]
    data = ds.NumpySlicesDataset(["a b"], column_names=["t"], shuffle=False).map(
        text.WhitespaceTokenizer(True), input_columns="t", output_columns=["tok", "s", "e"])
    rows = [[c.tolist() for c in r] for r in data.create_tuple_iterator(output_numpy=True)]
    assert rows == [[["a", "b"], [0, 2], [1, 3]]]
    data = ds.NumpySlicesDataset(["a-b-c"], column_names=["t"], shuffle=False)
    row = next(data.map(text.PythonTokenizer(lambda s: s.split("-"))).create_tuple_iterator(
        output_numpy=True))
    assert row[0].tolist() == ["a", "b", "c"]
    assert text.to_str(np.array([b"ab", b"c"])).tolist() == ["ab", "c"]
    assert text.to_bytes(np.array(["ab", "c"])).tolist() == [b"ab", b"c"]
