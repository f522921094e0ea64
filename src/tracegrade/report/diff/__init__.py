"""The diff of two runs: built in `build` (one model), rendered by `text`; Markdown and the pages render the same model."""
