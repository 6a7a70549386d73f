# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
#   series: attention-from-scratch
#   part: 3
# ---

# %% [markdown]
# # Attention, step by step
#
# *Written by the journal's editors, not by the author: a notebook added on
# November 29, 2026 and revised on December 4 and 6, 2026.*
#
# It picks up where the two entries stop: dropout on the attention weights, a
# compact causal attention module that takes a batch, and multi-head attention
# built two ways. Every module is checked against PyTorch's own implementation
# (`nn.MultiheadAttention`, `F.scaled_dot_product_attention`) with `assert`,
# and the whole notebook runs at every build and in `make test`.
#
# The code imports the example sentence and the heatmap drawer from the
# repository's `snippets/` folder, as every page's code can.

# %%
import math

import torch
import torch.nn.functional as F
from figures import heatmap_svg
from inputs import inputs, sentence
from IPython.display import HTML, display
from torch import nn

torch.set_printoptions(precision=4, sci_mode=False)
tokens = sentence.split()
print(tokens, tuple(inputs.shape))


# %%
def show(svg, caption):
    """Display an SVG figure with a caption (inline: it follows the theme)."""
    figure = f"{svg}<figcaption>{caption}</figcaption>"
    display(HTML(f'<figure class="journal-figure">{figure}</figure>'))


# %% [markdown]
# ## Dropout, first on a matrix of ones
#
# During training, dropout zeroes a random fraction $p$ of the attention
# weights $A_{ij}$ and scales the others by $\frac{1}{1-p}$, so that every
# weight keeps its expected value:
#
# $$
# \operatorname{dropout}(A)_{ij} = \frac{m_{ij}}{1-p} \, A_{ij}, \qquad
# m_{ij} \sim \operatorname{Bernoulli}(1-p), \qquad
# \mathbb{E}\bigl[\operatorname{dropout}(A)_{ij}\bigr] = A_{ij}
# $$
#
# A token then sees a random subset of the others at each step, which keeps
# the model from leaning on a few positions. As in the book, the cell below
# first applies dropout with $p = 0.5$ to a $6 \times 6$ matrix of ones, where
# the effect is plain: every entry comes out 0 or $1/(1-p) = 2$, about half of
# them 0. Which entries are dropped depends on the random number generator,
# and the same seed gives different masks on different platforms, so the
# notebook checks only what holds everywhere.

# %%
torch.manual_seed(123)
p = 0.5
dropout = nn.Dropout(p)  # a new module is in training mode
ones = torch.ones(6, 6)
dropped = dropout(ones)
print(torch.unique(dropped))
assert set(torch.unique(dropped).tolist()) <= {0.0, 1 / (1 - p)}

big = dropout(torch.ones(1000, 1000))
zeroed = (big == 0).float().mean()
print(f"fraction zeroed: {zeroed:.2f}, mean: {big.mean():.2f}")
assert abs(zeroed - p) < 0.01 and abs(big.mean() - 1) < 0.01

# In evaluation mode dropout is the identity.
dropout.eval()
assert torch.equal(dropout(ones), ones)

# %% [markdown]
# ## Causal attention on a batch
#
# A compact module: trainable projections $Q = X W^Q$, $K = X W^K$,
# $V = X W^V$, scores scaled by $1/\sqrt{d_k}$ ($d_k$: the length of a key
# vector), the future masked with $-\infty$ before the softmax, dropout on the
# weights, then the weighted sum of the values:
#
# $$
# A = \operatorname{softmax}\Bigl(\frac{Q K^{\top}}{\sqrt{d_k}} + M\Bigr),
# \qquad M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}
# $$
#
# $$
# Z = \operatorname{dropout}(A)\, V \quad \text{in training}, \qquad
# Z = A V \quad \text{in evaluation}
# $$
#
# The input now has a batch dimension, shape $(b, n, d_{\text{in}})$. The mask
# is built once for the longest sequence and stored as a buffer: it moves with
# the module between devices but is not trained. The module keeps the weights
# of its last call, before and after dropout, for the checks below.

# %%
class CausalAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout=0.0,
                 qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        # True above the diagonal: the positions a query must not see.
        ones = torch.ones(context_length, context_length, dtype=torch.bool)
        self.register_buffer("future", torch.triu(ones, diagonal=1))
        self.last_weights = self.last_dropped = None

    def forward(self, x):
        b, n, _ = x.shape
        q, k, v = self.W_query(x), self.W_key(x), self.W_value(x)
        # (b, n, n): transpose the last two dims only
        scores = q @ k.transpose(1, 2)
        # -inf before or after the scaling: the same weights
        scores = scores.masked_fill(self.future[:n, :n], float("-inf"))
        weights = torch.softmax(scores / math.sqrt(k.shape[-1]), dim=-1)
        self.last_weights = weights.detach()
        weights = self.dropout(weights)  # training mode only
        self.last_dropped = weights.detach()
        return weights @ v


# the sentence, and the sentence reversed
batch = torch.stack([inputs, inputs.flip(0)])
torch.manual_seed(123)
ca = CausalAttention(d_in=3, d_out=2, context_length=6, dropout=0.0)
context = ca(batch)
print(context.shape)
print(ca.last_weights[0])

# %% [markdown]
# Checks: the upper triangle is exactly zero, rows sum to 1, the first token
# attends only to itself, and the result equals PyTorch's fused causal
# attention on the same projections.

# %%
w = ca.last_weights
assert torch.all(w.triu(diagonal=1) == 0)
assert torch.allclose(w.sum(dim=-1), torch.ones(2, 6))
assert torch.all(w[:, 0, 0] == 1)

q, k, v = ca.W_query(batch), ca.W_key(batch), ca.W_value(batch)
fused = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(f"max |ours - fused| = {(context - fused).abs().max():.1e}")
assert torch.allclose(context, fused, atol=1e-6)

# A shorter sequence uses the top-left corner of the stored mask.
assert torch.allclose(ca(batch[:, :4]), context[:, :4], atol=1e-6)

# %% [markdown]
# The last check says more than it seems: with a causal
# mask, the output for a token depends only on that token and the ones before
# it, so cutting the sequence after its fourth token (`batch[:, :4]`, indices 0
# to 3) leaves the first four context vectors unchanged.
#
# ### Dropout on the attention weights
#
# The same module built with `dropout=0.5` and called in training mode (a
# new module's mode), as the book does: some weights come out 0, and every
# weight that is kept is twice what it was before dropout. The cell prints
# the weights of the first sentence after dropout (on another platform, other
# entries are zeroed), then checks the rule on every weight, and that the
# output is these weights times $V$: $Z = \operatorname{dropout}(A)\,V$, not
# $AV$. So the rows of the weights that make $Z$ no longer sum to 1 (the cell
# prints their sums): each sums to 1 only on average,
# $\mathbb{E}\bigl[\sum_j \operatorname{dropout}(A)_{ij}\bigr] = 1$. The first
# row holds one weight, 1, so its sum is 0 or 2, never 1. In evaluation mode
# the same module gives the weights and the output without dropout.

# %%
torch.manual_seed(123)  # the same projections as ca
ca_drop = CausalAttention(d_in=3, d_out=2, context_length=6, dropout=0.5)
assert ca_drop.training
out = ca_drop(batch)
before, after = ca_drop.last_weights, ca_drop.last_dropped
print(after[0])

kept = after != 0
assert torch.allclose(after[kept], 2 * before[kept])  # 1 / (1 - p) = 2
past = before != 0  # on and below the diagonal
print(f"{(past & ~kept).sum()} of {past.sum()} weights zeroed")
assert torch.allclose(out, after @ ca_drop.W_value(batch))

# The rows of dropout(A) no longer sum to 1: the first is 0 or 2, whatever
# the platform's mask; before dropout every row does.
row_sums = after.sum(dim=-1)
print("row sums after dropout:", row_sums[0])
assert set(row_sums[:, 0].tolist()) <= {0.0, 2.0}
assert not torch.allclose(row_sums, torch.ones(2, 6))
assert torch.allclose(before.sum(dim=-1), torch.ones(2, 6))

ca_drop.eval()
assert torch.allclose(ca_drop(batch), context, atol=1e-6)
assert torch.equal(ca_drop.last_dropped, ca_drop.last_weights)

# %% [markdown]
# ## Multi-head attention, first as a wrapper of heads
#
# Several causal attention modules ("heads") side by side, each with its own
# $W^Q_h, W^K_h, W^V_h$, their outputs concatenated:
#
# $$
# \operatorname{MultiHead}(X)
# = \bigl[\, Z_1 \;\; Z_2 \;\; \cdots \;\; Z_H \,\bigr], \qquad
# Z_h = \operatorname{CausalAttention}_h(X)
# $$

# %%
class MultiHeadWrapper(nn.Module):
    def __init__(self, d_in, d_head, context_length, num_heads, dropout=0.0,
                 qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList(
            CausalAttention(d_in, d_head, context_length, dropout, qkv_bias)
            for _ in range(num_heads)
        )

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


torch.manual_seed(123)
wrapper = MultiHeadWrapper(d_in=3, d_head=2, context_length=6, num_heads=2)
wrapped = wrapper(batch)
print(wrapped.shape)  # (batch, tokens, num_heads * d_head)

# %%
head_weights = [head.last_weights[0] for head in wrapper.heads]
svg = heatmap_svg(
    head_weights,
    tokens,
    titles=["head 1", "head 2"],
    hide_future=True,
    description="Two heatmaps of causal attention weights, one per head, "
    "for the sentence 'Your journey starts with one step'. Cells above the "
    "diagonal are blank.",
)
show(
    svg,
    "Causal attention weights of the two heads (first sequence of the "
    "batch). Same input, different weights: each head has its own "
    "projections.",
)
assert not torch.allclose(head_weights[0], head_weights[1])

# %% [markdown]
# ## Multi-head attention as one module
#
# The wrapper runs the heads one after another. The usual implementation does
# one projection of width $d_{\text{out}} = H \cdot d_{\text{head}}$ and splits
# the result into heads by reshaping: $(b, n, d_{\text{out}}) \to
# (b, n, H, d_{\text{head}}) \to (b, H, n, d_{\text{head}})$. One batched
# matrix product then scores all heads at once. An output projection $W^O$
# mixes the concatenated heads:
#
# $$
# \operatorname{MultiHead}(X)
# = \bigl[\, Z_1 \;\; \cdots \;\; Z_H \,\bigr] W^{O} + b^{O}
# $$

# %%
class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, num_heads, dropout=0.0,
                 qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.num_heads, self.d_head = num_heads, d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        ones = torch.ones(context_length, context_length, dtype=torch.bool)
        self.register_buffer("future", torch.triu(ones, diagonal=1))
        self.last_weights = None

    def split(self, t):
        """(b, n, H * d_head) -> (b, H, n, d_head): the heads as a batch."""
        b, n, _ = t.shape
        return t.view(b, n, self.num_heads, self.d_head).transpose(1, 2)

    def forward(self, x):
        b, n, _ = x.shape
        q = self.split(self.W_query(x))
        k = self.split(self.W_key(x))
        v = self.split(self.W_value(x))
        scores = q @ k.transpose(2, 3)  # (b, H, n, n)
        scores = scores.masked_fill(self.future[:n, :n], float("-inf"))
        weights = torch.softmax(scores / math.sqrt(self.d_head), dim=-1)
        self.last_weights = weights.detach()
        z = self.dropout(weights) @ v  # (b, H, n, d_head)
        # the heads side by side again: (b, n, H * d_head)
        z = z.transpose(1, 2).reshape(b, n, self.num_heads * self.d_head)
        return self.out_proj(z)


# %% [markdown]
# ### Check 1: the same numbers as the wrapper
#
# In the formulas' convention, $Q = X W^Q$ with $W^Q$ of shape
# $d_{\text{in}} \times d_{\text{out}}$, the one module's $W^Q$ is the heads'
# matrices side by side, $W^Q = \bigl[\, W^Q_1 \;\; W^Q_2 \,\bigr]$ (columns
# $1..2$ make head 1's queries, columns $3..4$ head 2's), and the same for
# $W^K$ and $W^V$. `nn.Linear` stores the transpose, $(W^Q)^{\top}$ of shape
# $d_{\text{out}} \times d_{\text{in}}$, as its `weight`, so in code the heads'
# stored weights are stacked row-wise (`torch.cat(..., dim=0)`). With
# $W^O = I$, $b^O = 0$ the two modules must agree.

# %%
mha = MultiHeadAttention(d_in=3, d_out=4, context_length=6, num_heads=2)
with torch.no_grad():
    for name in ("W_query", "W_key", "W_value"):
        parts = [getattr(h, name).weight for h in wrapper.heads]
        getattr(mha, name).weight.copy_(torch.cat(parts, dim=0))
    mha.out_proj.weight.copy_(torch.eye(4))
    mha.out_proj.bias.zero_()
diff = (mha(batch) - wrapped).abs().max()
print(f"max |one module - wrapper| = {diff:.1e}")
assert torch.allclose(mha(batch), wrapped, atol=1e-6)
for h, head in enumerate(wrapper.heads):
    assert torch.allclose(mha.last_weights[:, h], head.last_weights, atol=1e-6)

# %% [markdown]
# ### Check 2: `nn.MultiheadAttention` with copied weights
#
# PyTorch's module keeps $W^Q, W^K, W^V$ stacked in one `in_proj_weight` of
# shape $(3d, d)$ and needs $d_{\text{in}} = d_{\text{out}} = d$, so this check
# uses a wider random input: a batch of two sequences of 6 tokens with $d = 8$
# and 4 heads, biases on. Its `attn_mask` marks the *blocked* positions with
# `True`, the same convention as the `future` buffer.

# %%
torch.manual_seed(0)
d, heads = 8, 4
x = torch.randn(2, 6, d)
ours = MultiHeadAttention(d, d, context_length=6, num_heads=heads,
                          qkv_bias=True).eval()
theirs = nn.MultiheadAttention(d, heads, bias=True, batch_first=True).eval()
projections = (ours.W_query, ours.W_key, ours.W_value)
with torch.no_grad():
    theirs.in_proj_weight.copy_(torch.cat([p.weight for p in projections]))
    theirs.in_proj_bias.copy_(torch.cat([p.bias for p in projections]))
    theirs.out_proj.weight.copy_(ours.out_proj.weight)
    theirs.out_proj.bias.copy_(ours.out_proj.bias)

mask = torch.triu(torch.ones(6, 6, dtype=torch.bool), diagonal=1)
expected, expected_weights = theirs(
    x, x, x, attn_mask=mask, need_weights=True, average_attn_weights=False
)
got = ours(x)
print(f"max |ours - theirs| = {(got - expected).abs().max():.1e}")
assert torch.allclose(got, expected, atol=1e-5)
assert torch.allclose(ours.last_weights, expected_weights, atol=1e-6)

# %% [markdown]
# ### Check 3: `F.scaled_dot_product_attention` per head
#
# The fused function takes the heads as a batch dimension, $(b, H, n,
# d_{\text{head}})$, scales by $1/\sqrt{d_{\text{head}}}$ by default and applies
# the causal mask itself.

# %%
q = ours.split(ours.W_query(x))
k = ours.split(ours.W_key(x))
v = ours.split(ours.W_value(x))
z = F.scaled_dot_product_attention(q, k, v, is_causal=True)
fused = ours.out_proj(z.transpose(1, 2).reshape(2, 6, d))
print(f"max |ours - fused| = {(got - fused).abs().max():.1e}")
assert torch.allclose(got, fused, atol=1e-6)

# Gradients agree too: the backward pass goes through the same computation.
x1 = x.clone().requires_grad_(True)
x2 = x.clone().requires_grad_(True)
ours(x1).sum().backward()
theirs(x2, x2, x2, attn_mask=mask, need_weights=False)[0].sum().backward()
assert torch.allclose(x1.grad, x2.grad, atol=1e-5)

# %% [markdown]
# ## Heatmaps per head
#
# Back to the example sentence: a fresh module with four heads of size 2. Each
# head learns (here: starts from) its own notion of which earlier tokens
# matter, which is the point of having several. The four share one colour
# scale, that of every heatmap of the series; a weight above its top, such as
# the first token's [1.00]{= w[0, 0, 0].item() :.2f}, takes the top colour.

# %%
torch.manual_seed(123)
four = MultiHeadAttention(d_in=3, d_out=8, context_length=6, num_heads=4)
four.eval()
four(batch)
per_head = four.last_weights[0]  # (H, n, n), first sequence of the batch
svg = heatmap_svg(
    list(per_head),
    tokens,
    titles=[f"head {h + 1}" for h in range(4)],
    hide_future=True,
    description="Four heatmaps of causal attention weights, one per head of "
    "a multi-head attention module, for the sentence 'Your journey starts "
    "with one step'.",
)
show(
    svg,
    "Causal attention weights of the four heads (untrained, seed 123). "
    "Every row sums to 1; the first token can only attend to itself.",
)
assert torch.allclose(per_head.sum(dim=-1), torch.ones(4, 6))

# %% [markdown]
# With the weights untrained, these patterns are whatever the random
# initialisation gives; training is what turns them into something useful.
