"""Scoring: the pieces SQL scorers cannot do alone, and their pure-Python references."""
