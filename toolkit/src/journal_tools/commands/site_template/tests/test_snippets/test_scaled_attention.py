"""Tests for snippets/scaled_attention.py, checked against PyTorch's own function."""

import scaled_attention as sa
import torch
import torch.nn.functional as F


def test_matches_torch_scaled_dot_product_attention():
    """The output is PyTorch's for the same queries, keys and values."""
    output, _ = sa.scaled_dot_product_attention(sa.queries, sa.keys, sa.values)
    expected = F.scaled_dot_product_attention(sa.queries, sa.keys, sa.values)
    assert torch.allclose(output, expected, atol=1e-6)


def test_weights_are_rows_of_probabilities():
    """Each query's weights are positive and sum to 1, so its output mixes the values."""
    _, weights = sa.scaled_dot_product_attention(sa.queries, sa.keys, sa.values)
    assert (weights > 0).all()
    assert torch.allclose(weights.sum(dim=-1), torch.ones(3))


def test_works_on_a_batch():
    """Leading dimensions are kept: two copies give two equal results."""
    batch = torch.stack([sa.queries, sa.queries])
    output, weights = sa.scaled_dot_product_attention(batch, batch, torch.stack([sa.values, sa.values]))
    assert output.shape == (2, 3, 2) and weights.shape == (2, 3, 3)
    assert torch.equal(output[0], output[1])
