"""The lists of runs and of traffic scorings: built in `build`, rendered by `text`."""
