"""The lite runtime: needs ms-tensor and ms-ops only (kernels come from the registry)."""
