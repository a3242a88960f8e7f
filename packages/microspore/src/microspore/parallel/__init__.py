"""``mindspore.parallel``: layouts, ``shard``/``reshard``, the strategy search's parameters
and the distributed-checkpoint functions, from ms-parallel (the same objects as the top
level's ``ms.Layout``, ``ms.shard``...). ``function`` holds ``reshard``."""

from microspore._lazy import forward

_TRANSFORM = "ms_parallel.auto.transform"
_NAMES = {
    "Layout": "ms_parallel.auto.layout", "shard": "ms_parallel.auto.shard_fn",
    **dict.fromkeys(("set_algo_parameters", "get_algo_parameters", "reset_algo_parameters"),
                    "ms_parallel.auto.algo"),
    "build_searched_strategy": "ms_parallel.auto.strategy_file",
    "merge_pipeline_strategys": "ms_parallel.auto.strategy_file",
    "restore_group_info_list": "ms_parallel.auto.group_info",
    **dict.fromkeys(("transform_checkpoints", "transform_checkpoint_by_rank",
                     "rank_list_for_transform", "load_distributed_checkpoint"), _TRANSFORM),
    "merge_sliced_parameter": "microspore.train",
}
_SUBMODULES = ("function",)

__getattr__, __dir__ = forward(__name__, globals(), (), _NAMES, _SUBMODULES)

__all__ = [*_NAMES, *_SUBMODULES]
