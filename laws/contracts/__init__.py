"""CrossHair targets: the laws as plain functions over the model, leading asserts assume, trailing
asserts claim (see laws/confirmed.py).

    views   the laws of merge, fit and context over small views, on the model's own functions
    twins   the model's pure functions and their production twins, for CrossHair's diffbehavior
"""
