"""microspore: MindSpore's namespace, assembled from the ms-* packages.

``import microspore as ms`` gives what ``import mindspore as ms`` gives: ``ms.Tensor``,
``ms.Parameter``, the dtypes, ``ms.set_context``, ``ms.grad``, ``ms.nn``, ``ms.ops``,
``ms.dataset``, ``ms.train``, ``ms.Model``, ``ms.LossMonitor``, checkpoints, ``ms.amp``...
Only ms-tensor (Tensor, dtypes, context) loads with the package; everything else imports on
first use, so ``import microspore`` stays cheap and plugins load on the first operator call.

>>> import numpy as np, microspore as ms
>>> ms.ops.tensor_pow(ms.Tensor(np.array([1.0, 2.0, 4.0]), ms.float32), 3.0)
Tensor(shape=[3], dtype=Float32, value= [ 1.00000000e+00,  8.00000000e+00,  6.40000000e+01])
"""

from microspore._lazy import forward
from ms_tensor import (
    GRAPH_MODE,
    PYNATIVE_MODE,
    DType,
    Parameter,
    ParameterTuple,
    Tensor,
    bfloat16,
    bool_,
    complex64,
    complex128,
    double,
    dtype,
    float16,
    float32,
    float64,
    float_,
    get_context,
    half,
    int8,
    int16,
    int32,
    int64,
    int_,
    is_tensor,
    reset_context,
    set_context,
    single,
    uint,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ms_tensor.seed import get_seed, set_seed

__version__ = "0.1.0"

_TRAIN = "microspore.train"
_NAMES = {
    # functional differentiation (ms-autodiff)
    "grad": "ms_autodiff", "value_and_grad": "ms_autodiff", "vjp": "ms_autodiff",
    "jvp": "ms_autodiff", "jacrev": "ms_autodiff", "jacfwd": "ms_autodiff", "vmap": "ms_autodiff",
    "recompute": "ms_nn.cell_recompute",  # recompute(block, *args): one call, checkpointed
    # distributed training (ms-parallel)
    **dict.fromkeys(("set_auto_parallel_context", "get_auto_parallel_context",
                     "reset_auto_parallel_context", "ParallelMode"), "ms_parallel.context"),
    "Layout": "ms_parallel.auto.layout",  # semi-auto parallel's tensor layouts
    "shard": "ms_parallel.auto.shard_fn",
    "reshard": "ms_parallel.auto.reshard",
    **dict.fromkeys(("set_algo_parameters", "get_algo_parameters", "reset_algo_parameters"),
                    "ms_parallel.auto.algo"),
    # distributed checkpoints: the strategy file's layouts, re-cutting the ranks' files
    "build_searched_strategy": "ms_parallel.auto.strategy_file",
    "restore_group_info_list": "ms_parallel.auto.group_info",
    "merge_pipeline_strategys": "ms_parallel.auto.strategy_file",
    **dict.fromkeys(("transform_checkpoints", "transform_checkpoint_by_rank",
                     "rank_list_for_transform", "load_distributed_checkpoint",
                     "get_ckpt_path_with_strategy"), "ms_parallel.auto.transform"),
    # MindSpore's other dtype names and type conversions, tensor creation, random state
    **dict.fromkeys(("bool", "byte", "short", "int", "long", "float", "ubyte", "ushort",
                     "intc", "uintc", "intp", "uintp", "cfloat", "cdouble", "dtype_to_nptype",
                     "dtype_to_pytype", "pytype_to_dtype", "get_py_obj_dtype"),
                    "ms_tensor.dtype_names"),
    **dict.fromkeys(("tensor", "from_numpy", "frombuffer", "from_dlpack", "to_dlpack",
                     "swap_tensors"), "ms_tensor.creation"),
    **dict.fromkeys(("set_device", "get_current_device", "set_deterministic", "run_check"),
                    "ms_tensor.device"),
    # streams and events (host semantics: every operator is done when its call returns)
    **dict.fromkeys(("Stream", "Event", "StreamCtx", "current_stream", "default_stream",
                     "set_cur_stream", "launch_blocking"), "ms_tensor.streams"),
    # compile hints (ms-graph needs them for nothing; they return what they are given)
    **dict.fromkeys(("constexpr", "jit_class", "lazy_inline", "no_inline", "enable_dynamic",
                     "mutable", "set_recursion_limit", "STRICT", "COMPATIBLE", "LAX"),
                    "ms_graph.hints"),
    **dict.fromkeys(("manual_seed", "initial_seed", "seed", "get_rng_state", "set_rng_state"),
                    "ms_tensor.seed"),
    # device synchronization and memory, also under ms.runtime
    **dict.fromkeys(("synchronize", "memory_allocated", "max_memory_allocated",
                     "memory_reserved", "max_memory_reserved", "memory_stats", "memory_summary",
                     "reset_peak_memory_stats", "reset_max_memory_allocated",
                     "reset_max_memory_reserved", "empty_cache"), "ms_tensor.runtime"),
    # sparse tensors (ms-ops)
    **dict.fromkeys(("COOTensor", "CSRTensor", "RowTensor", "SparseTensor"),
                    "ms_ops.sparse_tensors"),
    # graph compilation by ms-graph (see microspore._jit)
    "jit": "microspore._jit",
    # training (ms-nn), as MindSpore's top level re-exports mindspore.train
    **dict.fromkeys((
        "Model", "Callback", "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint",
        "CheckpointConfig", "EarlyStopping", "LearningRateScheduler", "History",
        "LambdaCallback", "Metric", "Accuracy", "Precision", "Recall", "F1", "Loss",
        "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "TopKCategoricalAccuracy",
        "ConfusionMatrix", "save_checkpoint", "load_checkpoint", "load_param_into_net",
        "async_ckpt_thread_status", "OnRequestExit",
        "FixedLossScaleManager", "DynamicLossScaleManager", "LossScaleManager",
        "build_train_network", "get_metric_fn", "names", "MAE", "MSE", "Fbeta",
        "rearrange_inputs", "BleuScore", "ConfusionMatrixMetric", "CosineSimilarity", "Dice",
        "HausdorffDistance", "MeanSurfaceDistance", "OcclusionSensitivity", "Perplexity", "ROC",
        "RootMeanSquareDistance", "auc", "ReduceLROnPlateau", "BackupAndRestore",
        "ckpt_to_safetensors", "safetensors_to_ckpt", "load_checkpoint_async",
        "merge_sliced_parameter"), _TRAIN),
    # MindRecord files (ms-data)
    **dict.fromkeys(("FileWriter", "FileReader"), "microspore.mindrecord"),
    # summaries and the profiler (ms-insight)
    **dict.fromkeys(("SummaryRecord", "SummaryCollector", "Profiler", "SummaryLandscape",
                     "FlopsUtilizationCollector"), "ms_insight"),
    # export to MINDIR / ONNX and loading a MINDIR graph (ms-lite)
    "export": "ms_lite.export", "load": "ms_lite.export",
    # data sink (ms-nn's device queue and GetNext)
    **dict.fromkeys(("data_sink", "DatasetHelper", "connect_network_with_dataset"), _TRAIN),
}
_SUBMODULES = ("ops", "nn", "dataset", "train", "common", "context", "amp", "communication",
               "profiler", "runtime", "mint", "mindrecord", "parallel")

__getattr__, __dir__ = forward(__name__, globals(), (), _NAMES, _SUBMODULES)

__all__ = [
    "Tensor", "Parameter", "ParameterTuple", "DType", "dtype", "is_tensor",
    "GRAPH_MODE", "PYNATIVE_MODE", "set_context", "get_context", "reset_context",
    "set_seed", "get_seed",
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
    "float_", "int_", "uint", "half", "single", "double",
    *_NAMES, *_SUBMODULES,
]
