import numpy as np
import pytest

from ms_lite import Context, Model, ModelType
from ms_lite.format import save
from ms_lite.ir import Graph, Node, Value
from ms_lite.runtime.executor import Executor, plan_arena


def _mlp(batch=2):
    rng = np.random.default_rng(0)
    g = Graph([Value("x", (batch, 4), "float32")], [Value("y", (batch, 3), "float32")],
              [Node("Dense", ["x", "w1", "b1"], ["h"], {}, "fc1"),
               Node("ReLU", ["h"], ["a"], {}, "relu"),
               Node("Reshape", ["a"], ["r"], {"input_shape": (batch, -1)}, "flat"),
               Node("Dense", ["r", "w2", "b2"], ["y"], {}, "fc2")],
              {"w1": rng.standard_normal((5, 4)).astype(np.float32),
               "b1": rng.standard_normal(5).astype(np.float32),
               "w2": rng.standard_normal((3, 5)).astype(np.float32),
               "b2": rng.standard_normal(3).astype(np.float32)}, "mlp")
    g.values.update({"h": Value("h", (batch, 5), "float32"), "a": Value("a", (batch, 5), "float32"),
                     "r": Value("r", (batch, 5), "float32")})
    return g


def _reference(g, x):
    c = g.constants
    a = np.maximum(x @ c["w1"].T + c["b1"], 0)
    return a @ c["w2"].T + c["b2"]


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "mlp.ms"
    save(_mlp(), path)
    ctx = Context()
    ctx.target = ["cpu"]
    ctx.cpu.thread_num = 1
    m = Model()
    m.build_from_file(str(path), ModelType.MINDIR_LITE, ctx)
    return m


def test_predict_matches_numpy(model):
    x = np.random.default_rng(1).standard_normal((2, 4)).astype(np.float32)
    inputs = model.get_inputs()
    assert [t.name for t in inputs] == ["x"] and inputs[0].shape == [2, 4]
    inputs[0].set_data_from_numpy(x)
    out = model.predict(inputs)[0].get_data_to_numpy()
    np.testing.assert_allclose(out, _reference(_mlp(), x), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(model.get_outputs()[0].get_data_to_numpy(), out)


def test_outputs_survive_the_next_prediction(model):
    inputs = model.get_inputs()
    inputs[0].set_data_from_numpy(np.ones((2, 4), np.float32))
    first = model.predict(inputs)[0].get_data_to_numpy()
    inputs[0].set_data_from_numpy(np.zeros((2, 4), np.float32))
    model.predict(inputs)
    np.testing.assert_allclose(first, _reference(_mlp(), np.ones((2, 4), np.float32)),
                               rtol=1e-5)


def test_resize_follows_the_batch_through_reshape(model):
    inputs = model.get_inputs()
    model.resize(inputs, [[7, 4]])
    inputs = model.get_inputs()
    assert inputs[0].shape == [7, 4]
    x = np.random.default_rng(2).standard_normal((7, 4)).astype(np.float32)
    inputs[0].set_data_from_numpy(x)
    out = model.predict(inputs)[0].get_data_to_numpy()
    assert out.shape == (7, 3)
    np.testing.assert_allclose(out, _reference(_mlp(), x), rtol=1e-5, atol=1e-6)


def test_wrong_data_is_named(model):
    t = model.get_inputs()[0]
    with pytest.raises(ValueError, match=r"tensor 'x': data has shape \(3, 4\), expected"):
        t.set_data_from_numpy(np.ones((3, 4), np.float32))
    with pytest.raises(TypeError, match="dtype float64, expected float32"):
        t.set_data_from_numpy(np.ones((2, 4)))
    with pytest.raises(ValueError, match="holds no data"):
        model.predict(model.get_inputs())


def test_context_rejects_other_targets_and_bad_threads():
    ctx = Context()
    with pytest.raises(ValueError, match="runs on"):
        ctx.target = ["gpu"]
    with pytest.raises(ValueError, match="thread_num"):
        ctx.cpu.thread_num = -1


def test_unknown_operator_is_named(tmp_path):
    g = Graph([Value("x", (2,), "float32")], [Value("y", (2,), "float32")],
              [Node("NoSuchOp", ["x"], ["y"], {}, "n0")], {}, "bad")
    save(g, tmp_path / "bad.ms")
    with pytest.raises(LookupError, match="'NoSuchOp' is not registered"):
        Model().build_from_file(str(tmp_path / "bad.ms"), ModelType.MINDIR_LITE, Context())


def test_arena_never_overlaps_live_buffers():
    rng = np.random.default_rng(3)
    for _ in range(50):
        n = int(rng.integers(1, 12))
        sizes = [int(s) for s in rng.integers(1, 500, n)]
        life = []
        for _ in range(n):
            a = int(rng.integers(0, 10))
            life.append((a, a + int(rng.integers(0, 5))))
        offs, total = plan_arena(sizes, life)
        for i in range(n):
            assert offs[i] + sizes[i] <= total
            for j in range(i):
                if not (life[i][1] < life[j][0] or life[j][1] < life[i][0]):
                    assert offs[i] + sizes[i] <= offs[j] or offs[j] + sizes[j] <= offs[i]


def test_pool_reuses_dead_buffers():
    nodes = [Node(op, [i], [o], {}, o) for op, i, o in
             (("Neg", "x", "a"), ("ReLU", "a", "b"), ("Neg", "b", "c"), ("Neg", "c", "y"))]
    g = Graph([Value("x", (64, 64), "float32")], [Value("y", (64, 64), "float32")], nodes, {})
    e = Executor(g)
    assert e.arena_bytes == 2 * 64 * 64 * 4 < e.unplanned_bytes
    x = np.random.default_rng(4).standard_normal((64, 64)).astype(np.float32)
    for _ in range(2):
        np.testing.assert_array_equal(e.run([x])[0], np.maximum(-x, 0))
