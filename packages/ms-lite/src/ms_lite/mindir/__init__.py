"""MindSpore's MINDIR format: write a lite graph that MindSpore 2.10 loads, read one back."""
