"""CrossHair targets: the laws as plain functions over the model, leading asserts assume, trailing
asserts claim (see laws/confirmed.py)."""
