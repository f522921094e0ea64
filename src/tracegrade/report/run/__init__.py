"""The run report: the latest scoring of an eval run, built in `build`, rendered by `text`
(its case table in `table`), `markdown` and `junit`."""
