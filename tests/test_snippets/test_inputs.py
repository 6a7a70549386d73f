"""Tests for snippets/inputs.py: the chapter-3 example embeddings."""

import torch
from inputs import inputs, sentence


def test_one_row_per_word():
    assert inputs.shape == (len(sentence.split()), 3) == (6, 3)
    assert inputs.dtype == torch.float32


def test_book_values():
    # First and last rows ("Your", "step") as printed in the book.
    assert torch.equal(inputs[0], torch.tensor([0.43, 0.15, 0.89]))
    assert torch.equal(inputs[-1], torch.tensor([0.05, 0.80, 0.55]))
