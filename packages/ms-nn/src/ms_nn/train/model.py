"""``Model``: MindSpore's high-level train / eval / predict driver.

Without sink each step is called from the host. ``dataset_sink_mode=True`` gives
MindSpore's data sink (``ms_nn.train.sink``): an epoch is ``sink_size`` steps that may
cross dataset epochs, the batches reach the step through a device queue filled by a
background thread and read by ``GetNext``, the step callbacks fire once per sink, and in
GRAPH_MODE the ``sink_size`` steps run as one compiled loop.
"""

from __future__ import annotations

import numpy as np

from ms_nn.train.callbacks.callback import CallbackList, CallbackParam, RunContext
from ms_nn.train.data import Batches
from ms_nn.train.metrics import Loss, get_metrics

__all__ = ["Model"]


def _positive_int(name: str, value) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"Model.train: {name} must be a positive int, got {value!r}")
    return value


class Model:
    """Train, evaluate and predict with a network.

    Args:
        network: the network (a Cell). Without ``loss_fn`` it must compute the loss itself;
            without ``optimizer`` it is used as the training network as it is (for example
            a ``TrainOneStepCell`` you built).
        loss_fn: loss Cell; the training network becomes
            ``TrainOneStepCell(WithLossCell(network, loss_fn), optimizer)``.
        optimizer: an Optimizer.
        metrics: a set of metric names (``{"accuracy"}``) or a dict name -> Metric, used by
            ``eval``.
        eval_network: the network ``eval`` runs; default ``WithEvalCell(network, loss_fn)``,
            whose outputs are ``(loss, outputs, label)``.
        eval_indexes: positions of loss, outputs and label in ``eval_network``'s outputs.
        amp_level: ``"O0"`` (float32) to ``"O3"``; see ``ms_nn.amp``.
        loss_scale_manager: a ``FixedLossScaleManager`` / ``DynamicLossScaleManager``.
        boost_level: accepted for MindSpore compatibility; only ``"O0"`` behaviour exists.

    >>> # model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
    >>> #               nn.Momentum(net.trainable_params(), 0.01, 0.9), metrics={"accuracy"})
    >>> # model.train(1, train_ds, callbacks=[LossMonitor()]); model.eval(test_ds)
    """

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
                 eval_indexes=None, amp_level="O0", loss_scale_manager=None, boost_level="O0",
                 **kwargs):
        if amp_level not in ("O0", "O1", "O2", "O3", "auto"):
            raise ValueError(f"Model: amp_level must be 'O0', 'O1', 'O2', 'O3' or 'auto', got "
                             f"{amp_level!r}")
        if eval_indexes is not None and (not isinstance(eval_indexes, (list, tuple))
                                         or len(eval_indexes) != 3):
            raise ValueError(f"Model: eval_indexes must be a list of 3 ints (loss, outputs, "
                             f"label positions), got {eval_indexes!r}")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._amp_level = amp_level
        self._loss_scale_manager = loss_scale_manager
        self._boost_level = boost_level
        self._kwargs = kwargs
        self._metric_fns = get_metrics(metrics)
        self._train_network = self._build_train_network()
        self._eval_network, self._eval_indexes = self._build_eval_network(eval_network,
                                                                          eval_indexes)
        self._predict_network = network

    @property
    def train_network(self):
        """The Cell one training step calls (with the optimizer inside)."""
        return self._train_network

    @property
    def eval_network(self):
        return self._eval_network

    @property
    def predict_network(self):
        return self._predict_network

    def _build_train_network(self):
        if self._optimizer is None:
            if self._loss_fn is not None:  # MindSpore's: the loss, computed, no update
                from ms_nn.wrap import WithLossCell
                return WithLossCell(self._network, self._loss_fn)
            return self._network
        if self._amp_level != "O0" or self._loss_scale_manager is not None:
            from ms_nn import amp
            return amp.build_train_network(self._network, self._optimizer, self._loss_fn,
                                           level=self._amp_level,
                                           loss_scale_manager=self._loss_scale_manager,
                                           **self._kwargs)
        from ms_nn.wrap import TrainOneStepCell, WithLossCell
        net = self._network
        if self._loss_fn is not None:
            net = WithLossCell(net, self._loss_fn)
        return TrainOneStepCell(net, self._optimizer)

    def _build_eval_network(self, eval_network, eval_indexes):
        if eval_network is not None:
            return eval_network, (list(eval_indexes) if eval_indexes is not None else None)
        if self._loss_fn is None:
            return None, None
        from ms_nn.wrap import WithEvalCell
        return WithEvalCell(self._network, self._loss_fn), [0, 1, 2]

    # -- training -------------------------------------------------------------------------

    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1,
              initial_epoch=0):
        """Train for ``epoch`` epochs (counting from ``initial_epoch``).

        Args:
            epoch: the last epoch number to reach.
            train_dataset: an ms_data dataset (anything with ``create_tuple_iterator`` and
                ``get_dataset_size``) or an iterable of ``(inputs..., label)`` batches.
            callbacks: a Callback or a list of them.
            dataset_sink_mode: MindSpore's sink semantics (see the module docstring).
            sink_size: steps per epoch in sink mode (-1: the dataset's size); ignored
                without sink mode, as in MindSpore.
            initial_epoch: epochs already done (resuming); epochs ``initial_epoch + 1`` ..
                ``epoch`` run.
        """
        self._train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size,
                    initial_epoch)

    def fit(self, epoch, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None,
            dataset_sink_mode=False, valid_dataset_sink_mode=False, sink_size=-1,
            initial_epoch=0):
        """``train`` with an evaluation on ``valid_dataset`` every ``valid_frequency`` epochs.

        The results reach the callbacks' epoch end as ``cb_params.metrics`` and
        ``cb_params.eval_results`` (which also names a ``Loss`` metric's value
        ``"eval_loss"``, the name ``EarlyStopping`` watches by default).
        """
        if valid_dataset is None:
            return self._train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size,
                               initial_epoch)
        if isinstance(valid_frequency, int):
            if isinstance(valid_frequency, bool) or valid_frequency < 1:
                raise ValueError(f"Model.fit: valid_frequency must be a positive int or a list "
                                 f"of epochs, got {valid_frequency!r}")
            due = lambda e: e % valid_frequency == 0 or e == epoch  # noqa: E731
        else:
            epochs = set(valid_frequency)
            due = epochs.__contains__

        def evaluate(cb):
            if not due(cb.cur_epoch_num):
                cb["metrics"] = None
                return
            results = self.eval(valid_dataset, dataset_sink_mode=valid_dataset_sink_mode)
            self._train_network.set_train(True)
            cb["metrics"] = results
            cb["eval_results"] = dict(results)
            for name, metric in self._metric_fns.items():
                if isinstance(metric, Loss):
                    cb["eval_results"].setdefault("eval_loss", results[name])

        return self._train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size,
                           initial_epoch, before_epoch_end=evaluate)

    def _train(self, epoch, train_dataset, callbacks, dataset_sink_mode, sink_size,
               initial_epoch, before_epoch_end=None):
        _positive_int("epoch", epoch)
        if not isinstance(initial_epoch, int) or not 0 <= initial_epoch < epoch:
            raise ValueError(f"Model.train: initial_epoch must be an int in [0, epoch={epoch}), "
                             f"got {initial_epoch!r}")
        if not isinstance(sink_size, int) or (sink_size != -1 and sink_size <= 0):
            raise ValueError(f"Model.train: sink_size must be -1 or a positive int, got "
                             f"{sink_size!r}")
        if self._train_network is None:
            raise ValueError("Model.train: the model has no training network")
        data = Batches(train_dataset, "Model.train")
        epochs_to_run = epoch - initial_epoch
        if dataset_sink_mode:
            steps = sink_size if sink_size > 0 else data.size
        else:
            steps = data.size
        cb = CallbackParam(
            train_network=self._train_network, network=self._network,
            optimizer=self._optimizer, loss_fn=self._loss_fn,
            loss_scale_mananger=self._loss_scale_manager, epoch_num=epoch,
            batch_num=steps, cur_epoch_num=initial_epoch,
            cur_step_num=initial_epoch * steps if steps else 0,
            initial_step=initial_epoch * steps if steps else 0, net_outputs=None,
            dataset_sink_mode=dataset_sink_mode, sink_size=sink_size,
            train_dataset=train_dataset, train_dataset_element=None, mode="train",
            parallel_mode="stand_alone", device_number=1, last_save_ckpt_step=None,
            latest_ckpt_file=None, initial_epoch=initial_epoch)
        cb["list_callback"] = callbacks = CallbackList(callbacks)
        run_context = RunContext(cb)
        self._train_network.set_train(True)
        runner = None
        with callbacks:
            try:
                if dataset_sink_mode and (sink_size > 0 or data.size):
                    from ms_nn.train.sink import SinkRunner  # the device queue and GetNext
                    runner = SinkRunner(self._train_network, data.stream(
                        -(-epochs_to_run * steps // data.size) if data.size else None),
                        "Model.train", describe=repr(train_dataset))
                callbacks.on_train_begin(run_context)
                for ep in range(initial_epoch + 1, epoch + 1):
                    cb.cur_epoch_num = ep
                    callbacks.on_train_epoch_begin(run_context)
                    if runner is not None:
                        self._sink_run(runner, steps, cb, callbacks, run_context)
                    elif dataset_sink_mode:
                        self._sink_epoch(data.epoch(epochs_to_run), cb, callbacks, run_context)
                    else:
                        self._plain_epoch(data.epoch(epochs_to_run), cb, callbacks,
                                          run_context)
                    if before_epoch_end is not None:
                        before_epoch_end(cb)
                    callbacks.on_train_epoch_end(run_context)
                    if run_context.get_stop_requested():
                        break
                callbacks.on_train_end(run_context)
            finally:
                if runner is not None:
                    runner.close()
                data.close()

    def _step(self, batch, cb):
        cb.train_dataset_element = batch
        return self._train_network(*batch)

    def _plain_epoch(self, batches, cb, callbacks, run_context):
        count = 0
        for batch in batches:
            count += 1
            callbacks.on_train_step_begin(run_context)
            cb.cur_step_num += 1
            cb.net_outputs = self._step(batch, cb)
            if not cb.batch_num:  # a sized-later iterable: count the first epoch's steps
                cb.batch_num = count
            callbacks.on_train_step_end(run_context)
            if run_context.get_stop_requested():
                break
        if count and cb.batch_num != count and cb.cur_epoch_num == cb.initial_epoch + 1:
            cb.batch_num = count

    def _sink_run(self, runner, steps, cb, callbacks, run_context):
        """One sink of ``steps`` steps through the device queue (``ms_nn.train.sink``)."""
        callbacks.on_train_step_begin(run_context)
        cb.net_outputs = runner.run(steps)
        cb.train_dataset_element = runner.last_batch
        cb.cur_step_num += steps
        callbacks.on_train_step_end(run_context)

    def _sink_epoch(self, batches, cb, callbacks, run_context):
        """One sink of a dataset of unknown size: one pass between step_begin and step_end."""
        callbacks.on_train_step_begin(run_context)
        count = 0
        for batch in batches:
            cb.net_outputs = self._step(batch, cb)
            count += 1
        if count == 0:
            raise ValueError("Model.train: the dataset gave no batches in sink mode")
        if not cb.batch_num:
            cb.batch_num = count
        cb.cur_step_num += count
        callbacks.on_train_step_end(run_context)

    # -- evaluation and prediction --------------------------------------------------------

    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        """Run ``eval_network`` over one pass of ``valid_dataset``; return ``{name: value}``.

        With the default eval network, a ``Loss`` metric receives the loss and every other
        metric ``(outputs, label)``; with your own ``eval_network`` and no ``eval_indexes``,
        each metric receives all of its outputs.
        """
        if not self._metric_fns:
            raise ValueError("Model.eval: metrics can not be None or empty; pass metrics= to "
                             "Model")
        if self._eval_network is None:
            raise ValueError("Model.eval: no eval network: pass loss_fn or eval_network to "
                             "Model")
        data = Batches(valid_dataset, "Model.eval")
        for metric in self._metric_fns.values():
            metric.clear()
        cb = CallbackParam(eval_network=self._eval_network, network=self._network,
                           valid_dataset=valid_dataset, batch_num=data.size, cur_step_num=0,
                           cur_epoch_num=1, epoch_num=1, net_outputs=None,
                           dataset_sink_mode=dataset_sink_mode, mode="eval",
                           eval_dataset_element=None, metrics=None)
        cb["list_callback"] = callbacks = CallbackList(callbacks)
        run_context = RunContext(cb)
        self._eval_network.set_train(False)
        runner = None
        try:
            with callbacks, self._whole_parameters():
                if dataset_sink_mode and data.size:
                    from ms_nn.train.sink import SinkRunner  # the device queue and GetNext
                    runner = SinkRunner(self._eval_network, data.stream(1), "Model.eval",
                                        describe=repr(valid_dataset))
                callbacks.on_eval_begin(run_context)
                callbacks.on_eval_epoch_begin(run_context)
                for batch in (data.epoch(1) if runner is None else range(data.size)):
                    callbacks.on_eval_step_begin(run_context)
                    cb.cur_step_num += 1
                    if runner is None:
                        cb.eval_dataset_element = batch
                        outputs = self._eval_network(*batch)
                    else:  # one step per call: the metrics see every step's outputs
                        outputs = runner.run(1)
                        cb.eval_dataset_element = runner.last_batch
                    cb.net_outputs = outputs
                    self._update_metrics(outputs)
                    callbacks.on_eval_step_end(run_context)
                    if run_context.get_stop_requested():
                        break
                if not cb.batch_num:
                    cb.batch_num = cb.cur_step_num
                cb.metrics = {name: m.eval() for name, m in self._metric_fns.items()}
                callbacks.on_eval_epoch_end(run_context)
                callbacks.on_eval_end(run_context)
        finally:
            if runner is not None:
                runner.close()
            data.close()
        return cb.metrics

    def _update_metrics(self, outputs):
        if not isinstance(outputs, (tuple, list)):
            outputs = (outputs,)
        idx = self._eval_indexes
        if idx is not None and len(outputs) < 3:
            raise ValueError(f"Model.eval: with eval_indexes {idx} the eval network must return "
                             f"at least 3 outputs (loss, outputs, label), got {len(outputs)}")
        for metric in self._metric_fns.values():
            if idx is None:
                metric.update(*outputs)
            elif isinstance(metric, Loss):
                metric.update(outputs[idx[0]])
            else:
                metric.update(outputs[idx[1]], outputs[idx[2]])

    def predict(self, *predict_data, backend=None, config=None):
        """The network's output for ``predict_data`` in inference mode."""
        self._predict_network.set_train(False)
        with self._whole_parameters():
            return self._predict_network(*[_as_tensor(x) for x in predict_data])

    def _whole_parameters(self):
        """After SEMI_AUTO/AUTO_PARALLEL training the Parameters hold slices: the sharded
        step (ms-parallel's) gathers them while eval/predict run, before any graph runs."""
        step = getattr(self._train_network, "_parallel_step", None)
        whole = getattr(step, "whole_parameters", None)
        if whole is None:
            from contextlib import nullcontext
            return nullcontext()
        return whole()


def _as_tensor(x):
    from ms_tensor import Tensor
    return Tensor(x) if isinstance(x, np.ndarray) else x
