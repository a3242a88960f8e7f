"""``mindspore_xai`` renamed: ``microspore_xai.explainer`` and ``microspore_xai.benchmark``
are ms-insight's explainers and their metrics."""

__all__ = ["explainer", "benchmark"]


def __getattr__(name):
    if name in __all__:
        import importlib

        return importlib.import_module(f"microspore_xai.{name}")
    raise AttributeError(f"module 'microspore_xai' has no attribute {name!r}")
