"""Tests for snippets/attention_basics.py, checked against PyTorch's own ops."""

import attention_basics as ab
import pytest
import torch
import torch.nn.functional as F
from inputs import inputs


def test_scores_are_dot_products_with_journey():
    assert torch.allclose(ab.scores_journey, inputs @ inputs[1])
    # Token 2 scores highest against itself and its near-twin "starts".
    assert ab.scores_journey.argmax() == 1
    assert ab.scores_journey.topk(2).indices.tolist() == [1, 2]


def test_naive_normalisation_sums_to_one_but_fails_on_negative_scores():
    assert torch.isclose(ab.normalise_by_sum(ab.scores_journey).sum(), torch.tensor(1.0))
    odd = ab.normalise_by_sum(torch.tensor([1.0, -1.0, 0.5]))
    assert (odd < 0).any() and (odd > 1).any()


@pytest.mark.parametrize(
    "scores",
    [ab.scores_journey, torch.tensor([1.0, -1.0, 0.5]), torch.randn(50) * 10, torch.tensor([1000.0, 999.0])],
)
def test_softmax_by_hand_matches_torch(scores):
    ours = ab.softmax_by_hand(scores)
    assert torch.allclose(ours, torch.softmax(scores, dim=0), atol=1e-7)
    assert torch.isfinite(ours).all() and (ours >= 0).all()
    assert torch.isclose(ours.sum(), torch.tensor(1.0))


def test_unshifted_softmax_overflows_where_ours_does_not():
    big = torch.tensor([1000.0, 999.0])
    naive = torch.exp(big) / torch.exp(big).sum()
    assert torch.isnan(naive).all()
    assert torch.allclose(ab.softmax_by_hand(big), torch.tensor([0.7311, 0.2689]), atol=1e-4)


def test_context_vector_is_weighted_sum():
    assert torch.allclose(ab.context_journey, ab.weights_journey @ inputs, atol=1e-7)
    # A convex combination stays inside the per-coordinate range of the inputs.
    assert (ab.context_journey >= inputs.min(0).values).all()
    assert (ab.context_journey <= inputs.max(0).values).all()


def test_matrix_form_equals_loops():
    assert torch.allclose(ab.scores, ab.scores_loop, atol=1e-7)
    assert torch.allclose(ab.scores, ab.scores.T)  # X X^T is symmetric
    assert torch.allclose(ab.weights.sum(dim=-1), torch.ones(6))
    assert torch.allclose(ab.weights[1], ab.weights_journey)
    assert torch.allclose(ab.context[1], ab.context_journey, atol=1e-7)
    # The attention matrix itself is not symmetric: rows are normalised separately.
    assert not torch.allclose(ab.weights, ab.weights.T)


def test_matches_scaled_dot_product_attention_with_scale_one():
    expected = F.scaled_dot_product_attention(inputs, inputs, inputs, scale=1.0)
    assert torch.allclose(ab.context, expected, atol=1e-6)


def test_function_works_on_a_batch():
    batch = torch.stack([inputs, inputs.flip(0)])
    context, weights = ab.attention_without_weights(batch)
    assert context.shape == (2, 6, 3) and weights.shape == (2, 6, 6)
    assert torch.allclose(context[0], ab.context, atol=1e-7)
    # Permuting the tokens permutes the outputs: no notion of position here.
    assert torch.allclose(context[1], ab.context.flip(0), atol=1e-6)
    expected = F.scaled_dot_product_attention(batch, batch, batch, scale=1.0)
    assert torch.allclose(context, expected, atol=1e-6)


def test_unmasked_heatmap_is_svg_with_a_name():
    svg = ab.unmasked_heatmap()
    assert svg.startswith("<svg ") and svg.rstrip().endswith("</svg>")
    assert 'role="img"' in svg and "aria-label=" in svg
    for token in ab.tokens:
        assert f">{token}</text>" in svg
