"""What ``tools/api_coverage.py`` counts: the out-of-scope table and the grouping rules.

Both are tables to review, not code to read: a MindSpore name is out of scope when MindSpore
marks it ``@deprecated`` (the listing records that) or when a row of ``OUT_OF_SCOPE``
matches it; every other name missing from microspore is put in the first group of its
family whose pattern matches (``GROUPS``). Patterns are regular expressions searched in
the name; Primitive class names are matched in snake case (``ScatterNdAdd`` as
``scatter_nd_add``), so one pattern serves ``ops.ScatterNdAdd`` and ``ops.scatter_nd_add``.
"""

from __future__ import annotations

import re

__all__ = ["OUT_OF_SCOPE", "GROUPS", "FAMILY", "WHY_MISSING", "out_of_scope", "group_of",
           "snake"]

_ASCEND = (
    "Ascend-only fused kernels (attention, MoE, LLM inference, float-status registers, "
    "fused optimizer updates): MindSpore has no CPU kernel for them either")
_COMPILER = (
    "operators MindSpore's graph compiler emits for Python syntax (scalar, tuple, list, "
    "dict and string ops, augmented assignment, iterators, switches) or its runtime "
    "bookkeeping; not user API, and ms-graph lowers the same syntax without them")
_CUSTOM = (
    "MindSpore's ways to define new operators (TBE/AKG/AiCPU registration, Custom, "
    "PrimitiveWithInfer): microspore adds operators with OpDef through its plugin hook "
    "(docs/plugins.md)")
_IMPL = ("implementation modules (generated operator tables, validators), not a namespace "
         "users import")
_LEAK = "imported for internal use and not in the namespace's __all__ (the API name is elsewhere)"
_CORPUS = (
    "a reader for one benchmark corpus's own archive layout, beyond the tutorials' "
    "Mnist/Cifar/CelebA/VOC/COCO/ImageFolder set; any of them loads through "
    "GeneratorDataset, and they are added on demand")
_ENGINE = ("engine internals of mindspore.dataset leaked by its star imports (validators, "
           "pipeline node classes that Dataset methods return, converters); not in __all__")
_CLUSTER = ("Ascend cluster reliability and launch tuning (silent-data-corruption checks, "
            "MindIO, fault-tolerance, kernel-launch capture)")

#: (namespace pattern, name pattern, reason, only when the name is missing from ``__all__``)
OUT_OF_SCOPE: tuple[tuple[str, str, str, bool], ...] = (
    (r".", r"flash_attention|paged_attention|^nsa_|^moe_|lightning_indexer|ring_attention|"
           r"reshape_and_cache|group_topk|apply_rotary_pos_emb|rotary_position_embedding|"
           r"all_gather_matmul|matmul_reduce_scatter|add_rms_norm|add_layer_norm|swiglu|"
           r"^npu|multi_scale_deformable_attn|rotated_iou|fused_cast_adam|"
           r"fused_weight_scale|fused_ada_factor_with|all_finite|dynamic_gruv2|dynamic_rnn|"
           r"basic_lstm_cell|attention_score|speed_fusion", _ASCEND, False),
    (r"^mindspore\.ops$", r"^(augassign_|scalar_(add|sub|mul|div|floordiv|mod|pow|eq|ne|lt|le|"
                          r"gt|ge|uadd|usub|log|max|min)$|tuple_|list_|dict_|make_(tuple|list|"
                          r"dict|slice|range)$|(not_)?in_dict$|is_$|is_not$|bool_(and|or|not|"
                          r"eq)$|string_(concat|eq)$|ms_(hasnext|next)$|iter_converter|environ_|"
                          r"env_get|ge_?switch|^merge$|^switch|hastype|typeof|isconstant|"
                          r"is_sequence_|is_dynamic_sequence|is_tensor_bool_cond|shape_mul|"
                          r"reduced_shape|broadcast_gradient_args|array_reduce|array_to_scalar|"
                          r"update_state|slice_get_item|zip_operation|hyper_add|^reusing$|"
                          r"py_execute|tensor_to_tuple|(stop_gradient|reshape|shape|print)_$|"
                          r"(tensor_)?operator_registry|vm_impl|get_vm_impl_fn|^j$|dtype_to_enum|^tensor_shape$|"
                          r"_view$|copy_with_slice|ref_to_embed|row_tensor_inner)",
     _COMPILER, False),
    (r"^mindspore\.ops$", r"reg_op$|^data_type$|op_info_register|custom_info_register|"
                          r"custom_op_builder|^custom$|^(ms_)?kernel$|^py_func$|"
                          r"prim_(arg|attr)_register|primitive_with_(infer|check)", _CUSTOM, False),
    (r"^mindspore\.ops$", r"^(pull|push|map_cache_idx|map_uniform|make_map_parameter)$",
     "parameter-server and embedding-cache operators of MindSpore's PS mode", False),
    (r"^mindspore\.ops$", r"^(auto_generate|gen_\w+|pyboost_inner_prim|cpp_create_prim_instance_"
                          r"helper|functional_overload|array_ops|linalg_ops|other_ops|"
                          r"deprecated)$", _IMPL, False),
    (r".", r"^(py_transforms_util|validators?|\w+_pb2)$", _IMPL, False),
    (r"^mindspore\.Tensor$", r"^(assign_value_cpp|convert_bytes_to_tensor|data_sync|delete_|"
                             r"flush_from_cache|get_bytes|(get|set)item_index_info|"
                             r"set_device_address|set_cast_dtype|(set_)?const_arg|"
                             r"(set_)?init_flag|init_finished|(set_)?param_info|parent_tensor_|"
                             r"index_of_parent_|virtual_flag|delta_seed|offload(_file_path)?|"
                             r"wait_pipeline|symbolic_shape|is_meta)$",
     "run-time internals of MindSpore's C++ tensor (device addresses, parameter info, "
     "lazy-init and pipeline flags); not in Tensor's documented API", False),
    (r".", r"^(is_invalid_or_jit_forbidden_method|is_jit_forbidden_module|get_obj_module_and_"
           r"name_info|jit_forbidden_register|jit_view_unsupported|JitExecutor_|MSContext|"
           r"AscendEnvChecker|MsDispatchMode|EnvProfiler)$",
     "helpers of MindSpore's compiler and context leaked by imports; not in __all__", False),
    (r"^mindspore$", r"sdc_detect|stress_detect|TFTCommValue|TrainFaultTolerance|RSCPluginHandle|"
                     r"mindio|comm_exec_order_check|runtime_execution_order_check|"
                     r"set_kernel_launch", _CLUSTER, False),
    (r"^mindspore\.(train|nn)$", r"TrainFaultTolerance|OptTFTWrapper", _CLUSTER, False),
    (r"^mindspore$", r"^(hifloat8|qint4x2)$",
     "Ascend-only storage dtypes with no numpy equivalent", False),
    (r"^mindspore\.(?!$)", r"^(Tensor|Parameter|Cell|constexpr|jit|jit_class|mutable|"
                           r"absolute_import)$", _LEAK, True),
    (r"^mindspore\.mint", r"(_ext|_impl|_op|_)$|^(nllloss|cross_entropy)$", _LEAK, True),
    (r"^mindspore\.dataset$", r"^check_|^(close_worker|worker_is_alive|flatten_single_lists|"
                              r"replace_none|to_list|select_sampler|shuffle_to_shuffle_mode|"
                              r"mstype_to_detype|int_to_mstype|mstype_to_int|encrypt|"
                              r"DE_C_INTER_SENTENCEPIECE_MODE|ITERATORS_LIST|MAX_METADATA_LENGTH|"
                              r"OffloadToManualOffloadMode|ShuffleToShuffleMode|BlockReleasePair|"
                              r"WorkerTarget|FuncWrapper|ExceptionHandler|GetOffloadModel|"
                              r"ToNumpy|Implementation|DummyIterator|SentencePieceModel)$|"
                              r"^(Batch|BucketBatchByLength|Concat|Filter|Map|PaddedBatch|Project|"
                              r"Rename|Repeat|Shuffle|Skip|SyncWait|Take|Transfer|Zip|"
                              r"Deserialized)Dataset$", _ENGINE, True),
    (r"^mindspore\.dataset$", r"^(AGNews|AmazonReview|CLUE|CoNLL2000|DBpedia|EnWik9|IMDB|"
                              r"IWSLT2016|IWSLT2017|Multi30k|PennTreebank|SQuAD|SST2|SogouNews|"
                              r"UDPOS|WikiText|YahooAnswers|YelpReview|CMUArctic|GTZAN|LJSpeech|"
                              r"LibriTTS|SpeechCommands|Tedlium|YesNo|Caltech101|Caltech256|"
                              r"Cityscapes|DIV2K|Flickr|Flowers102|Food101|KITTI|LFW|LSUN|"
                              r"Omniglot|PhotoTour|Places365|RenderedSST2|SBD|SBU|STL10|SUN397|"
                              r"SVHN|Semeion|USPS|WIDERFace)Dataset$", _CORPUS, False),
    (r"^mindspore\.dataset$", r"^(OBSMindDataset|sync_wait_for_dataset)$",
     "reads MindRecord shards from Huawei Cloud OBS, or waits for those downloads (needs its "
     "SDK and credentials)", False),
    (r"^mindspore\.dataset", r"^(DecodeVideo|VideoDecoder|read_video|read_video_timestamps)$",
     "video decoding through FFmpeg inside MindSpore's C++ data engine", False),
    (r"^mindspore\.dataset\.transforms$", r"^Plugin$",
     "loads MindData C++ plugin libraries (.so) into MindSpore's data engine", False),
)

_METRICS = (r"^(Accuracy|MAE|MSE|Precision|Recall|F1|Fbeta|ROC|auc|Perplexity|Dice|"
            r"HausdorffDistance|MeanSurfaceDistance|RootMeanSquareDistance|OcclusionSensitivity|"
            r"ConfusionMatrix\w*|Top\w*Accuracy|BleuScore|CosineSimilarity|Loss|Metric|"
            r"get_metric_fn|names|rearrange_inputs)$")

#: family -> ordered (group, pattern); the first match wins, the last row catches the rest
GROUPS: dict[str, tuple[tuple[str, str], ...]] = {
    "ops": (
        ("in-place (trailing _)", r"[a-z0-9]_$"),
        ("communication", r"all_gather|all_reduce|all_to_all|allto_?all|^broadcast$|"
                          r"reduce_scatter|barrier|^send|^recv|i_?send|i_?recv|neighbor_exchange|"
                          r"collective|p2_?p_op|"
                          r"process_group|^get_(rank|world_size|group_rank|global_rank|backend)$|"
                          r"new_group|^is_(initialized|available)$|gather_into_tensor|_object"
                          r"(_list)?$|scatter_tensor|tcp_store|^reduce(_op)?$|^receive$|reshard|"
                          r"^distribute$|set_comm_ops_inplace"),
        ("sparse", r"^(coo|csr|row_tensor)|sparse|coalesce|to_(coo|csr)|make_(coo|csr|row)"),
        ("fft and windows", r"fft|stft|_window$"),
        ("random", r"rand|uniform|normal|bernoulli|multinomial|poisson|^gamma$|cauchy|laplace|"
                   r"exponential|(?<!grid_)sampler|choice|seed"),
        ("optimizer updates", r"^(apply|fused|sparse_apply)_|adam|^sgd$|lars|ftrl|adagrad"),
        ("linear algebra", r"cholesky|svd|^qr$|^eig|det$|^det|inverse|solve|lstsq|^lu_|matrix|"
                           r"geqrf|orgqr|ormqr|pinv|^norm$|vector_norm|nuclear_norm|euclidean_norm|"
                           r"lp_norm|renorm|trace|kron|outer|inner|dot|^ger$|^mm$|^mv$|addmm|"
                           r"addmv|addbmm|baddbmm|^addr|einsum|cdist|pdist|^dist$|^cross$|"
                           r"tridiagonal|adjoint|vecdot|triangular|^t$|^m?[thTH]$"),
        ("nn", r"conv|pool|dropout|loss|softmax|relu|gelu|selu|celu|glu|elu$|silu|mish|shrink|"
               r"hardtanh|sigmoid|lrn|norm|interpolate|upsample|resize|grid_sampl|affine_grid|"
               r"pixel_(un)?shuffle|channel_shuffle|im2_?col|col2_?im|fold$|embed|ctc|bias_add|"
               r"dense|lstm|gru|rnn|attention|threshold|softmin|nll|kl_div|deformable|roi|iou|"
               r"nms|non_max|bounding_box|crop_and_resize|hsv|rgb|adjust_|patches|mirror_pad|"
               r"^pad|dilation|logit$|similarity"),
        ("indexing and scatter", r"scatter|gather|index|masked|^take|^put|select|slice|nonzero|"
                                 r"argwhere|^where$|fill_diagonal|inplace_|_indices$|unravel|non_?zero"),
        ("sort, search and counting", r"sort|top_?k|intopk|nth_element|kthvalue|searchsorted|"
                                      r"bucketize|unique|segment|bound$|bincount|hist|median|"
                                      r"quantile|cummax|cummin|count_nonzero|equal_count|aminmax"),
        ("graph, autodiff and control flow", r"grad|jac|vmap|jvp|vjp|jet|derivative|linearize|"
                                             r"depend|hook|stop_gradient|print|dump|summary|assert|"
                                             r"^cond$|while_loop|fori_loop|^scan$|partial|"
                                             r"hyper_map|^map$|multitype|constexpr|add_flags|"
                                             r"recompute|primitive|signature|check_numerics|"
                                             r"register|^(composite|function|functional|"
                                             r"operations|communication)$|^p$|get_next|"
                                             r"float_status"),
        ("reduction", r"^reduce_|sum|mean|prod|std|var|logsumexp|logcumsumexp|cumulative|^amin|"
                      r"^amax|^all$|^any$|argmax|argmin|accumulate|^max|^min|ptp"),
        ("shape and creation", r"reshape|shape|size$|^rank$|numel|nelement|ndimension|expand|"
                               r"broadcast|squeeze|flatten|ravel|stack|split|chunk|unbind|concat|"
                               r"^cat$|tile|repeat|flip|rot90|roll|transpose|permute|movedim|swap|"
                               r"lin_?space|log_?space|permutation|cartesian|"
                               r"narrow|diag|tril|triu|space_to|batch_to|depth_to|atleast|meshgrid|"
                               r"combinations|cartesian|vander|reverse|view|^(zeros|ones|empty|"
                               r"full|eye|fill|new_)|like$|linspace|logspace|range|^pack$|"
                               r"^unpack$|identity_n|contiguous|stride|storage|clone|^copy_?$|resize"),
        ("dtype, conversion and attributes", r"^(bool|int|float|half|double|long|short|byte|"
                                             r"bfloat16)$|^to$|^to_|type|cast|dtype|^is_|^item|"
                                             r"tolist|numpy|dlpack|data_ptr|^data$|device|"
                                             r"nbytes|itemsize|scalar_to|^value$|^init$|has_init|"
                                             r"move_to|pin_memory|^tensor$"),
        ("special functions", r"bessel|gamma|zeta|erfinv|^i0|sinc|betainc|xlogy|xdivy|igamma"),
        ("elementwise math", r"."),
    ),
    "nn": (
        ("losses", r"Loss$|loss"),
        ("optimizers", r"Adam|^(AdaFactor|AdaMax|Adadelta|Adagrad|ASGD|FTRL|Lamb|LARS|LazyAdam|"
                       r"Momentum|Optimizer|ProximalAdagrad|RMSProp|Rprop|SGD)$|[Tt]hor"),
        ("learning-rate schedules", r"LR$|_lr$|LearningRate|Decay|WarmUp"),
        ("metrics", _METRICS),
        ("recurrent and transformer", r"RNN|GRU|LSTM|Transformer|Attention"),
        ("training wrappers and parallel", r"Cell$|Wrapper|Reducer|Interleaved|Pipeline|"
                                           r"VirtualDataset|GetNext|ValueAndGrad|^[JV]vp$|"
                                           r"Accumulation|no_init_parameters"),
        ("convolution", r"Conv"),
        ("pooling", r"Pool"),
        ("padding", r"Pad"),
        ("normalization", r"Norm"),
        ("activations", r"ReLU|LU$|Sigmoid|Tanh|Softmax|Softmin|Shrink|Mish|Threshold|Hard|"
                        r"Softsign|Swish"),
        ("embedding and dropout", r"Embedding|Dropout"),
        ("other layers", r"."),
    ),
    "data": (
        ("sources", r"Dataset$|LineReader"),
        ("samplers", r"Sampler$"),
        ("random transforms", r"^Random|Augment|MixUp|CutMix|CutOut|^Uniform|not_random"),
        ("image I/O", r"^(read|write|encode|decode)_|ImageReadMode|^get_image"),
        ("options and enums", r"(Mode|Policy|Format|Inter|Border|Type)$|^[A-Z]+_"),
        ("config, callbacks and debug", r"config|seed|[Cc]allback|[Dd]ebug|serialize|show|"
                                        r"compare|^(get|set|sync)_|Schema|[Cc]ache|Iterator|"
                                        r"zip|Hook|worker"),
        ("transforms", r"."),
    ),
    "comm": (("process groups and ranks", r"."),),
    "train": (
        ("metrics", _METRICS),
        ("callbacks", r"Callback|Monitor|Checkpoint$|Config$|EarlyStopping|ReduceLR|History|"
                      r"Lambda|Summary|BackupAndRestore|OnRequestExit|Flops|Landscape|ExitByRequest"),
        ("checkpoints and export", r"checkpoint|ckpt|safetensors|export|^load|^save|mindir|"
                                   r"merge_|transform_|[Cc]onvert|obf|_enc_|dec_mode|broadcast"),
        ("parallel and distribution", r"parallel|shard|algo_param|ps_context|group_info|rank|"
                                      r"Layout|pipeline|strategy|sync_pipeline|communication|ParallelMode"),
        ("device, memory and streams", r"memory|stream|Stream|device|Device|synchron|empty_cache|"
                                       r"Alloc|MemPool|^Event$|launch|cpu_affinity|dispatch|"
                                       r"^hal$|^runtime$|deterministic|storage|Storage"),
        ("random state", r"seed|rng|[Gg]enerator"),
        ("dtypes", r"^(bool|byte|cdouble|cfloat|float|float8_\w+|int|intc|intp|list_|long|number|"
                   r"short|string|tuple_|type_none|ubyte|uintc|uintp|ushort|tensor_type|Int|"
                   r"TensorType|Type|QuantDtype|dtype_to_\w+|pytype_to_dtype|get_py_obj_dtype)$"),
        ("tensor creation and autodiff", r"^tensor$|from_numpy|frombuffer|dlpack|swap_tensors|grad|"
                                         r"jac|vmap|jvp|vjp|saved_tensors|hook"),
        ("profiling and logging", r"Profiler|flops|_level$|log_config|run_check"),
        ("graph compilation", r"jit|mutable|constexpr|inline|lazy|recompute|Symbol|dynamic|"
                              r"recursion|JitConfig|data_sink|DatasetHelper|connect_network|"
                              r"^(COMPATIBLE|LAX|STRICT)$|Node|ScopedValue|SymbolTree"),
        ("mixed precision", r"LossScale|mixed_precision|precision|_list$|float_status|finite"),
        ("mindrecord", r"ToMR$|FileReader|FileWriter|MindPage|^SUCCESS$|^FAILED$"),
        ("sparse tensors", r"COO|CSR|RowTensor|SparseTensor"),
        ("other", r"."),
    ),
}

#: namespace -> family of ``GROUPS``, in the order the doc lists namespaces
FAMILY = {
    "mindspore": "train", "mindspore.ops": "ops", "mindspore.Tensor": "ops",
    "mindspore.nn": "nn", "mindspore.dataset": "data", "mindspore.dataset.vision": "data",
    "mindspore.dataset.transforms": "data", "mindspore.train": "train",
    "mindspore.amp": "train", "mindspore.communication": "comm", "mindspore.mint": "ops",
    "mindspore.mint.nn": "nn", "mindspore.mint.nn.functional": "ops",
    "mindspore.mint.optim": "nn",
}


#: Why a group of in-scope names is still missing, by (namespace, group): the reason is
#: printed beside the names, so a missing name is never just absent without a word.
_THOR = "the THOR second-order optimizer and its layers, not built"
_LATER = "not built yet"
WHY_MISSING: dict[tuple[str, str], str] = {
    ("mindspore.ops", "communication"):
        "NeighborExchangeV2 is Ascend's 2-d halo exchange; distribute belongs to MindSpore's "
        "DTensor API, a sharded tensor type not built (ms-parallel shards through Layout, "
        "shard and reshard); TCPStore is a torch-style rendezvous, which MPI's launcher "
        "does here",
    ("mindspore.ops", "dtype, conversion and attributes"): _LATER + " (ops.scalar_to_tensor "
                                                            "does the same)",
    ("mindspore.ops", "elementwise math"):
        "Morph runs a Python function with user-written inference inside MindSpore's graphs; "
        "ms-graph compiles the Python function itself, so it was not built",
    ("mindspore.ops", "graph, autodiff and control flow"):
        "jet, derivative and linearize need Taylor-mode (higher-order forward) differentiation, "
        "and get_grad the gradient ids of grad(return_ids=True); not built",
    ("mindspore.ops", "in-place (trailing _)"): _LATER,
    ("mindspore.ops", "indexing and scatter"): "an Ascend view operator (no CPU kernel)",
    ("mindspore.ops", "linear algebra"):
        _LATER + ": TensorFlow's banded diagonals (MatrixDiagV3) and LAPACK's raw Householder "
        "form (geqrf); ops.orgqr/ormqr exist, their class forms do not",
    ("mindspore.ops", "nn"):
        "Mish is the third-party operator of the example plugin (plugins/ms-plugin-example, "
        "which the plugin tutorial and ms-lite's tests use), so the framework leaves the name "
        "to it; embed is an undocumented internal of MindSpore 2.10",
    ("mindspore.ops", "random"): _LATER,
    ("mindspore.ops", "sort, search and counting"): _LATER + " (ops.bincount and ops.quantile "
                                                     "exist; their class forms do not)",
    ("mindspore.ops", "submodules"):
        "the signature declarations of PrimitiveWithInfer-style operators; operators here are "
        "declared with OpDef",
    ("mindspore.nn", "normalization"): "batch statistics across devices: not built",
    ("mindspore.nn", "optimizers"): _THOR,
    ("mindspore.nn", "other layers"): _LATER,
    ("mindspore.nn", "submodules"): _LATER + " (probability is MindSpore's distributions "
                                             "library)",
    ("mindspore.nn", "training wrappers and parallel"):
        _LATER + ": AdaSum, gradient accumulation and micro-batch interleaving cells of "
                 "MindSpore's parallel training",
    ("mindspore.Tensor", "dtype, conversion and attributes"): _LATER,
    ("mindspore.Tensor", "graph, autodiff and control flow"): _LATER + " (tensor gradient hooks)",
    ("mindspore.Tensor", "in-place (trailing _)"): _LATER,
    ("mindspore.Tensor", "indexing and scatter"): _LATER,
    ("mindspore.Tensor", "linear algebra"): _LATER,
    ("mindspore.Tensor", "nn"): _LATER,
    ("mindspore.Tensor", "shape and creation"): _LATER + " (storage objects)",
    ("mindspore.train", "checkpoints and export"):
        "ConvertModelUtils/ConvertNetUtils convert a model to " + _THOR + "; export_split_mindir "
        "splits MINDIR files over 2 GB for Ascend: not built",
    ("mindspore.train", "submodules"): _THOR,
    ("mindspore.mint", "in-place (trailing _)"): _LATER,
    ("mindspore.mint", "linear algebra"): _LATER,
    ("mindspore.mint", "nn"): _LATER + " (SyncBatchNorm's statistics functions, conv_tbc)",
    ("mindspore.mint", "sort, search and counting"): _LATER,
    ("mindspore.mint", "submodules"): _LATER + " (mint.distributed; the same collectives are "
                                               "in microspore.communication)",
    ("mindspore.mint.nn", "normalization"): "batch statistics across devices: not built",
}


def snake(name: str) -> str:
    """``ScatterNdAdd`` -> ``scatter_nd_add``; snake-case names are returned as they are."""
    if not name[:1].isupper():
        return name
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def out_of_scope(ns: str, name: str, entry: dict) -> str | None:
    """Why ``ns.name`` is out of scope (``entry`` is the listing's record of ``ns``), or None."""
    if name in entry.get("deprecated", {}):
        return f"deprecated in MindSpore ({entry['deprecated'][name]})"
    not_in_all = set(entry.get("not_in_all", ()))
    for ns_pattern, pattern, reason, needs_not_in_all in OUT_OF_SCOPE:
        if needs_not_in_all and name not in not_in_all:
            continue
        if re.search(ns_pattern, ns) and (re.search(pattern, name) or re.search(pattern,
                                                                                 snake(name))):
            return reason
    return None


def group_of(ns: str, name: str, kind: str) -> str:
    """The group a missing ``ns.name`` of the given kind is listed under."""
    if kind == "module":
        return "submodules"
    family = FAMILY.get(ns, "train")
    key = snake(name) if family == "ops" else name
    return next(group for group, pattern in GROUPS[family] if re.search(pattern, key))
