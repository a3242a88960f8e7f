# The scripts run when imported; the tests run them by path through the launcher.
collect_ignore = ["train_sharded.py", "redistribute_ranks.py", "train_pipeline.py",
                  "train_model.py", "train_compiled.py",
                  "train_model_pipeline.py", "train_reshard.py", "pipeline_reshard.py",
                  "model_gather_rows.py"]
