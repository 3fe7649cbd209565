"""What a run injected and did, counted by kind: a run that injected no crash cannot pass for one
that survived them."""

from collections import Counter


class Counts(Counter):
    def add(self, kind: str, n: int = 1) -> None:
        self[kind] += n
