"""Queues: FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue, PriorityQueue."""

__all__ = []
