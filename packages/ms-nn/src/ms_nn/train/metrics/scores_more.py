"""``Perplexity``, ``Dice``, ``CosineSimilarity`` and ``BleuScore`` with MindSpore's
arguments, accumulation and results."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from ms_nn.train.metrics.metric import Metric, check_inputs, empty_error, rearrange_inputs

__all__ = ["Perplexity", "Dice", "CosineSimilarity", "BleuScore"]


class Perplexity(Metric):
    """exp of the mean negative log-probability of the labels; ``ignore_label`` is skipped.

    >>> m = Perplexity(); m.update(Tensor([[0.5, 0.5], [0.25, 0.75]]), Tensor([0, 1]))
    >>> round(m.eval(), 4)
    1.633
    """

    def __init__(self, ignore_label=None):
        super().__init__()
        if ignore_label is not None and not isinstance(ignore_label, int):
            raise TypeError(f"Perplexity: ignore_label must be an int or None, got "
                            f"{ignore_label!r}")
        self.ignore_label = ignore_label
        self.clear()

    def clear(self):
        self._sum_metric, self._num_inst = 0.0, 0

    @rearrange_inputs
    def update(self, *inputs):
        check_inputs("Perplexity", inputs, 2)
        pred, label = (self._convert_data(v) for v in inputs)
        if label.size != pred.size / pred.shape[-1]:
            raise RuntimeError(f"Perplexity.update: labels (shape {label.shape}) must have one "
                               f"entry per row of the predictions (shape {pred.shape})")
        label = label.reshape(-1).astype(int)
        probs = pred.reshape(-1, pred.shape[-1])[np.arange(label.size), label]
        num = probs.size
        if self.ignore_label is not None:
            ignore = label == self.ignore_label
            num -= int(ignore.sum())
            probs = np.where(ignore, 1.0, probs)
        self._sum_metric -= float(np.sum(np.log(np.maximum(1e-10, probs))))
        self._num_inst += num

    def eval(self):
        if self._num_inst == 0:
            raise empty_error(self)
        return math.exp(self._sum_metric / self._num_inst)


class Dice(Metric):
    """Mean over updates of 2 * |X & Y| / (|X| + |Y| + smooth) (dot products of the inputs).

    >>> m = Dice(); m.update(Tensor([[0.0, 1.0], [1.0, 1.0]]), Tensor([[0.0, 1.0], [1.0, 0.0]]))
    >>> round(m.eval(), 4)
    0.4
    """

    def __init__(self, smooth=1e-5):
        super().__init__()
        if isinstance(smooth, bool) or not isinstance(smooth, (int, float)) or smooth <= 0:
            raise ValueError(f"Dice: smooth must be a positive float, got {smooth!r}")
        self.smooth = float(smooth)
        self.clear()

    def clear(self):
        self._dice_coeff_sum, self._samples_num = 0.0, 0

    @rearrange_inputs
    def update(self, *inputs):
        check_inputs("Dice", inputs, 2)
        y_pred, y = (self._convert_data(v).astype(np.float64).ravel() for v in inputs)
        shapes = [self._convert_data(v).shape for v in inputs]
        if shapes[0] != shapes[1]:
            raise ValueError(f"Dice.update: y_pred shape {shapes[0]} and y shape {shapes[1]} "
                             f"must be equal")
        self._samples_num += shapes[1][0] if shapes[1] else 1
        union = y_pred @ y_pred + y @ y
        self._dice_coeff_sum += 2 * float(y_pred @ y) / float(union + self.smooth)

    def eval(self):
        if self._samples_num == 0:
            raise empty_error(self)
        return self._dice_coeff_sum / float(self._samples_num)


class CosineSimilarity(Metric):
    """The (N, N) cosine (or dot) similarity matrix of the rows of the last update, its
    diagonal zeroed by default, reduced per row with 'sum'/'mean'.

    >>> m = CosineSimilarity(); m.update(Tensor([[1.0, 0.0], [1.0, 1.0]]))
    >>> (m.eval() * 1e4).round().tolist()
    [[0.0, 7071.0], [7071.0, 0.0]]
    """

    def __init__(self, similarity="cosine", reduction="none", zero_diagonal=True):
        super().__init__()
        if similarity not in ("dot", "cosine"):
            raise ValueError(f"CosineSimilarity: similarity must be 'dot' or 'cosine', got "
                             f"{similarity!r}")
        if reduction not in ("none", "sum", "mean"):
            raise ValueError(f"CosineSimilarity: reduction must be 'none', 'sum' or 'mean', got "
                             f"{reduction!r}")
        if not isinstance(zero_diagonal, bool):
            raise TypeError(f"CosineSimilarity: zero_diagonal must be a bool, got "
                            f"{zero_diagonal!r}")
        self.similarity, self.reduction = similarity, reduction
        self.zero_diagonal = zero_diagonal
        self.clear()

    def clear(self):
        self.sqr_mtx_res = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, inputs):
        data = self._convert_data(inputs)
        if self.similarity == "cosine":
            data = data / np.linalg.norm(data, ord=2, axis=1)[:, None]
        self.sqr_mtx_res = data @ data.T
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise empty_error(self)
        res = np.array(self.sqr_mtx_res, copy=True)
        if self.zero_diagonal:
            np.fill_diagonal(res, 0)
        if self.reduction == "mean":
            return res.mean(-1)
        if self.reduction == "sum":
            return res.sum(-1)
        return res


def _ngrams(words, n_gram) -> Counter:
    return Counter(tuple(words[j:j + i]) for i in range(1, n_gram + 1)
                   for j in range(len(words) - i + 1))


class BleuScore(Metric):
    """Corpus BLEU of candidate token lists against lists of references (Papineni et al.),
    with an optional add-one smoothing of the n-gram precisions.

    >>> m = BleuScore(n_gram=2)
    >>> m.update([["the", "cat", "sat"]], [[["the", "cat", "sat", "down"]]])
    >>> round(float(m.eval()), 4)
    0.7165
    """

    def __init__(self, n_gram=4, smooth=False):
        super().__init__()
        if isinstance(n_gram, bool) or not isinstance(n_gram, int) or not 1 <= n_gram <= 4:
            raise ValueError(f"BleuScore: n_gram must be an int from 1 to 4, got {n_gram!r}")
        if not isinstance(smooth, bool):
            raise TypeError(f"BleuScore: smooth must be a bool, got {smooth!r}")
        self.n_gram, self.smooth = n_gram, smooth
        self.clear()

    def clear(self):
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._c = self._r = 0.0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        check_inputs("BleuScore", inputs, 2)
        candidates, references = inputs
        if len(candidates) != len(references):
            raise ValueError(f"BleuScore.update: {len(candidates)} candidates but "
                             f"{len(references)} reference lists")
        for candidate, refs in zip(candidates, references):
            self._c += len(candidate)
            lengths = [len(r) for r in refs]
            diffs = [abs(len(candidate) - n) for n in lengths]
            self._r += lengths[diffs.index(min(diffs))]
            counts = _ngrams(candidate, self.n_gram)
            best = Counter()
            for ref in refs:
                best |= _ngrams(ref, self.n_gram)
            for gram, n in (counts & best).items():
                self._numerator[len(gram) - 1] += n
            for gram, n in counts.items():
                self._denominator[len(gram) - 1] += n
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise empty_error(self)
        if min(self._numerator) == 0.0:
            return np.array(0.0)
        if self.smooth:
            precision = (self._numerator + 1) / (self._denominator + 1)
        else:
            precision = self._numerator / self._denominator
        geometric_mean = np.exp(np.sum(np.log(precision) / self.n_gram))
        penalty = np.array(1.0) if self._c > self._r else np.exp(1 - self._r / self._c)
        return penalty * geometric_mean
