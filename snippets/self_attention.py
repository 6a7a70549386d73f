"""Self-attention with trainable weights, and causal masking two ways.

Sections (for pymdownx.snippets): imports, self_attention_v1,
self_attention_v2, causal_renormalise, causal_neg_inf.
"""

# --8<-- [start:imports]
import torch
from torch import nn

# --8<-- [end:imports]


# The author's own class, as pasted in the entry of 2025-07-27 (indentation
# restored; names and comments are the author's): not to be tidied.
# tests/test_author_words.py checks these lines against the author's text.
# --8<-- [start:self_attention_v1]
class SelfAttention_v1(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))
    def forward(self, x): #x is an entire input tensor
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value #access the first by values[0], same for above
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(
            attn_scores / keys.shape[-1]**0.5, dim=-1
        )
        context_vec = attn_weights @ values
        return context_vec
# --8<-- [end:self_attention_v1]


# --8<-- [start:self_attention_v2]
class SelfAttention_v2(nn.Module):
    """The same computation, with nn.Linear layers holding the weights."""

    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        # nn.Linear stores its weight as (d_out, d_in) and computes x @ W.T,
        # and it initialises with small signed values instead of [0, 1).
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        queries = self.W_query(x)
        keys = self.W_key(x)
        values = self.W_value(x)
        d_k = keys.shape[-1]
        scores = queries @ keys.transpose(-2, -1)
        weights = torch.softmax(scores / d_k**0.5, dim=-1)
        return weights @ values
# --8<-- [end:self_attention_v2]


# --8<-- [start:causal_renormalise]
def causal_weights_renormalise(queries, keys):
    """Causal attention weights: softmax first, then zero the future and
    rescale each row so it sums to 1 again."""
    d_k = keys.shape[-1]
    n = keys.shape[-2]
    scores = queries @ keys.transpose(-2, -1)
    weights = torch.softmax(scores / d_k**0.5, dim=-1)
    # 1 on and below the diagonal (token i may look at tokens 0..i), 0 above.
    keep = torch.tril(torch.ones(n, n))
    masked = weights * keep
    return masked / masked.sum(dim=-1, keepdim=True)
# --8<-- [end:causal_renormalise]


# --8<-- [start:causal_neg_inf]
def causal_weights_neg_inf(queries, keys):
    """Causal attention weights in one pass: set future scores to -inf,
    so softmax gives them exactly 0 and normalises over the past only."""
    d_k = keys.shape[-1]
    n = keys.shape[-2]
    scores = queries @ keys.transpose(-2, -1)
    # True strictly above the diagonal: the positions after token i.
    future = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
    scores = scores.masked_fill(future, float("-inf"))
    return torch.softmax(scores / d_k**0.5, dim=-1)
# --8<-- [end:causal_neg_inf]
