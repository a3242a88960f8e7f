"""MindSpore's dataset base classes, so ``isinstance`` checks and ``build_vocab`` work.

``SourceDataset``/``MappableDataset`` are the leaves (every source here has random access);
``VisionBaseDataset``, ``TextBaseDataset`` and ``AudioBaseDataset`` say what a dataset holds,
``UnionBaseDataset`` is all three (generators, record files, and every operation's node).
"""

from __future__ import annotations

from ms_data.dataset import Dataset

__all__ = ["SourceDataset", "MappableDataset", "VisionBaseDataset", "TextBaseDataset",
           "AudioBaseDataset", "UnionBaseDataset"]


class VisionBaseDataset(Dataset):
    """A dataset of images."""


class TextBaseDataset(Dataset):
    """A dataset of text; it can build a vocabulary from its words."""

    def build_vocab(self, columns, freq_range, top_k, special_tokens, special_first):
        """A ``text.Vocab`` of the words in ``columns`` (see ``Vocab.from_dataset``)."""
        from ms_data.text.vocab import Vocab

        return Vocab.from_dataset(self, columns, freq_range, top_k, special_tokens,
                                  special_first)


    def build_sentencepiece_vocab(self, columns, vocab_size, character_coverage, model_type,
                                  params):
        """A ``text.SentencePieceVocab`` trained on ``columns`` (one column)."""
        from ms_data.text.sentencepiece import SentencePieceVocab

        return SentencePieceVocab.from_dataset(self, columns, vocab_size, character_coverage,
                                               model_type, params)


class AudioBaseDataset(Dataset):
    """A dataset of audio."""


class UnionBaseDataset(VisionBaseDataset, TextBaseDataset, AudioBaseDataset):
    """A dataset that may hold anything."""


class SourceDataset(Dataset):
    """A leaf of the pipeline: reads rows from files, memory or a generator."""

    def is_shuffled(self) -> bool:
        """Whether the sampler gives the rows in a random order."""
        from ms_data import samplers as S

        sampler = getattr(self, "sampler", None)
        while sampler is not None:
            if isinstance(sampler, (S.RandomSampler, S.SubsetRandomSampler,
                                    S.WeightedRandomSampler)) or getattr(sampler, "shuffle",
                                                                         False):
                return True
            sampler = sampler.child_sampler
        return False

    def is_sharded(self) -> bool:
        """Whether the sampler reads one shard of several."""
        from ms_data import samplers as S

        sampler = getattr(self, "sampler", None)
        while sampler is not None:
            if isinstance(sampler, S.DistributedSampler):
                return True
            sampler = sampler.child_sampler
        return False


class MappableDataset(SourceDataset):
    """A source with random access, read through a sampler."""

    def use_sampler(self, new_sampler) -> None:
        """Replace the sampler."""
        from ms_data.sources.base import select_sampler

        if new_sampler is None:
            raise TypeError("use_sampler: new_sampler must not be None")
        self.sampler = select_sampler(None, None, new_sampler, None, None)
        self._record_sampler()

    def add_sampler(self, new_sampler) -> None:
        """Sample with ``new_sampler`` from what the current sampler picks."""
        new_sampler.add_child(self.sampler)
        self.sampler = new_sampler
        self._record_sampler()

    def _record_sampler(self) -> None:
        """Make the recorded constructor call (``ds.serialize``) use the new sampler."""
        call = self.__dict__.get("_init_call")
        if call is not None:
            kwargs = {k: v for k, v in call[1].items()
                      if k not in ("shuffle", "num_samples", "num_shards", "shard_id")}
            self.__dict__["_init_call"] = (call[0], {**kwargs, "sampler": self.sampler})
