"""The overview of a large run (a screen or two): built in `build`, rendered by `text`."""
