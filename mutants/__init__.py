"""Planted bugs, each with the check that must catch it [STYLE 11]."""
