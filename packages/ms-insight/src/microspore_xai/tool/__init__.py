"""``mindspore_xai.tool`` for microspore."""
