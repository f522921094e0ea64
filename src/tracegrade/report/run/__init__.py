"""The run report: the latest scoring of an eval run, built in `build`, rendered by `text` (with `table`), `markdown` and `junit`."""
