"""The traffic report: a scoring of production turns, built in `build`, rendered by `text`,
`markdown` and `junit`."""
