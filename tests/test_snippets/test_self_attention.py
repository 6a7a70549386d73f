"""Tests for snippets/self_attention.py, checked against PyTorch's own
scaled_dot_product_attention rather than against hard-coded outputs only."""

import pytest
import torch
import torch.nn.functional as F
from inputs import inputs
from self_attention import (
    SelfAttention_v1,
    SelfAttention_v2,
    causal_weights_neg_inf,
    causal_weights_renormalise,
)

ATOL = 1e-6
MASKING = [causal_weights_renormalise, causal_weights_neg_inf]


def example_qkv():
    """Projections of the book's 6x3 example through v2 (seed 789)."""
    torch.manual_seed(789)
    sa = SelfAttention_v2(d_in=3, d_out=2)
    with torch.no_grad():
        return sa.W_query(inputs), sa.W_key(inputs), sa.W_value(inputs)


def random_qkv(batch=4, n=7, d_k=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(batch, n, d_k, generator=g) for _ in range(3))


CASES = {"book_6x3": example_qkv, "random_batch": random_qkv}


# --- the two self-attention classes ---------------------------------------


def test_v1_matches_sdpa():
    torch.manual_seed(123)
    sa = SelfAttention_v1(d_in=3, d_out=2)
    with torch.no_grad():
        got = sa(inputs)
        q, k, v = inputs @ sa.W_query, inputs @ sa.W_key, inputs @ sa.W_value
        want = F.scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(got, want, atol=ATOL, rtol=0)


def test_v1_book_first_row():
    torch.manual_seed(123)
    with torch.no_grad():
        out = SelfAttention_v1(d_in=3, d_out=2)(inputs)
    torch.testing.assert_close(out[0], torch.tensor([0.2996, 0.8053]), atol=5e-5, rtol=0)


def test_v2_matches_sdpa_on_random_batch():
    torch.manual_seed(0)
    sa = SelfAttention_v2(d_in=5, d_out=8, qkv_bias=True)
    x = torch.randn(3, 9, 5)
    with torch.no_grad():
        got = sa(x)
        want = F.scaled_dot_product_attention(sa.W_query(x), sa.W_key(x), sa.W_value(x))
    torch.testing.assert_close(got, want, atol=ATOL, rtol=0)


def test_v2_book_first_row():
    torch.manual_seed(789)
    with torch.no_grad():
        out = SelfAttention_v2(d_in=3, d_out=2)(inputs)
    torch.testing.assert_close(out[0], torch.tensor([-0.0739, 0.0713]), atol=5e-5, rtol=0)


def test_v1_and_v2_compute_the_same_function():
    torch.manual_seed(123)
    v1 = SelfAttention_v1(d_in=3, d_out=2)
    v2 = SelfAttention_v2(d_in=3, d_out=2)
    with torch.no_grad():
        # nn.Linear keeps W as (d_out, d_in) and computes x @ weight.T.
        v2.W_query.weight.copy_(v1.W_query.T)
        v2.W_key.weight.copy_(v1.W_key.T)
        v2.W_value.weight.copy_(v1.W_value.T)
        torch.testing.assert_close(v2(inputs), v1(inputs), atol=ATOL, rtol=0)


# --- causal masking -------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("causal_weights", MASKING)
def test_causal_context_matches_sdpa(causal_weights, case):
    q, k, v = CASES[case]()
    got = causal_weights(q, k) @ v
    want = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.testing.assert_close(got, want, atol=ATOL, rtol=0)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("causal_weights", MASKING)
def test_rows_sum_to_one_and_future_is_exactly_zero(causal_weights, case):
    q, k, _ = CASES[case]()
    w = causal_weights(q, k)
    n = w.shape[-1]
    torch.testing.assert_close(w.sum(dim=-1), torch.ones(w.shape[:-1]), atol=ATOL, rtol=0)
    future = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
    assert torch.all(w[..., future] == 0)
    # Nothing at or below the diagonal is masked: every visible weight is positive.
    assert torch.all(w[..., ~future] > 0)


@pytest.mark.parametrize("case", CASES)
def test_both_masking_methods_agree(case):
    q, k, _ = CASES[case]()
    torch.testing.assert_close(
        causal_weights_renormalise(q, k), causal_weights_neg_inf(q, k), atol=ATOL, rtol=0
    )


def test_book_causal_rows():
    q, k, _ = example_qkv()
    w = causal_weights_neg_inf(q, k)
    torch.testing.assert_close(w[1, :2], torch.tensor([0.5517, 0.4483]), atol=5e-5, rtol=0)
    torch.testing.assert_close(
        w[5], torch.tensor([0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]), atol=5e-5, rtol=0
    )
