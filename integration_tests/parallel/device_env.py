"""Prints what a rank of a rank-table job is given: RANK_ID, DEVICE_ID, RANK_SIZE and the
table's path, as an Ascend training script reads them."""

import os

from microspore.communication import get_rank, init

init()
print(f"rank {get_rank()}: RANK_ID={os.environ['RANK_ID']} DEVICE_ID={os.environ['DEVICE_ID']} "
      f"RANK_SIZE={os.environ['RANK_SIZE']} table={os.environ['RANK_TABLE_FILE']}", flush=True)
