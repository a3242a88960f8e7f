# The training script runs when imported; the tests run it by path through the launcher.
collect_ignore = ["train_sharded.py"]
