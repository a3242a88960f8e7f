"""The scripts here run when imported (on every rank of a job, under the launcher): the
tests start them by path, so pytest's doctest collection must not import them."""

collect_ignore = ["async_comm.py", "collectives.py", "direct_paths.py", "grad_reducer.py",
                  "management.py", "more_collectives.py", "p2p_grad.py", "p2p_graph.py"]
