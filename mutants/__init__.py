"""Planted bugs, each with the check that must catch it, and the runner that proves it does
(`python -m mutants`)."""
