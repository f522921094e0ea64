"""The diff of two runs: one model, built in `build`, that `text`, the run's Markdown and the
pages all render, so they cannot disagree."""
