"""The diff of two traffic scorings: built in `build`, rendered by `text`."""
