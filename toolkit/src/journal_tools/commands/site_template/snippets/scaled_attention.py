"""Scaled dot-product attention (Vaswani et al. 2017, eq. 1) on three tokens.

Sections (for pymdownx.snippets): inputs, attention. The example entry
includes them in this order; tests/test_snippets/test_scaled_attention.py
checks the function against PyTorch's own.
"""

# --8<-- [start:inputs]
import math

import torch

# Three tokens, two dimensions each; the queries are the keys here.
queries = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
keys = queries
values = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
# --8<-- [end:inputs]


# --8<-- [start:attention]
def scaled_dot_product_attention(q, k, v):
    """softmax(q k^T / sqrt(d_k)) v, and the weights (rows sum to 1)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-1])
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
# --8<-- [end:attention]
