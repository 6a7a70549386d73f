"""Attention with no trainable weights: each token is its own query, key, value.

Sections (for pymdownx.snippets): imports, attention_scores,
naive_normalisation, softmax, context_vector, all_scores_loop, matrix_form,
function, heatmap.
The 2025-07-26 entry includes them in this order; tests/test_snippets/
test_attention_basics.py checks them against PyTorch's own operations.
"""

# --8<-- [start:imports]
import torch
from inputs import inputs, sentence

tokens = sentence.split()  # ['Your', 'journey', 'starts', ..., 'step']
# --8<-- [end:imports]


# --8<-- [start:attention_scores]
def dot_scores(query, keys):
    """One score per row of `keys`: the dot product of that row with `query`."""
    scores = torch.empty(keys.shape[0])
    for j, key in enumerate(keys):
        scores[j] = torch.dot(query, key)  # sum of elementwise products
    return scores


query = inputs[1]  # token 2, "journey", asks the question
scores_journey = dot_scores(query, inputs)  # one per token, itself included
# --8<-- [end:attention_scores]


# --8<-- [start:naive_normalisation]
def normalise_by_sum(scores):
    """Divide by the total: sums to 1, but only behaves for positive scores."""
    return scores / scores.sum()
# --8<-- [end:naive_normalisation]


# --8<-- [start:softmax]
def softmax_by_hand(scores):
    """exp(s_j) / sum_k exp(s_k), with the largest score subtracted first.

    The shift cancels between numerator and denominator, so the result is the
    same softmax, but exp() never sees a large positive number and overflows.
    """
    exps = torch.exp(scores - scores.max())
    return exps / exps.sum()
# --8<-- [end:softmax]


# --8<-- [start:context_vector]
weights_journey = torch.softmax(scores_journey, dim=0)

# The context vector of "journey": each input row times its weight, summed.
context_journey = torch.zeros(inputs.shape[1])
for weight, x in zip(weights_journey, inputs):
    context_journey += weight * x
# --8<-- [end:context_vector]


# --8<-- [start:all_scores_loop]
n_tokens = inputs.shape[0]
scores_loop = torch.empty(n_tokens, n_tokens)
for i in range(n_tokens):  # row i: token i as the query
    for j in range(n_tokens):  # column j: token j as the key
        scores_loop[i, j] = torch.dot(inputs[i], inputs[j])
# --8<-- [end:all_scores_loop]


# --8<-- [start:matrix_form]
scores = inputs @ inputs.T  # (6, 3) @ (3, 6) -> (6, 6): every pair at once
weights = torch.softmax(scores, dim=-1)  # softmax along each row
context = weights @ inputs  # (6, 6) @ (6, 3) -> (6, 3): one context per token
# --8<-- [end:matrix_form]


# --8<-- [start:function]
def attention_without_weights(x):
    """Context vectors and weights for x of shape (..., n_tokens, d).

    The token vectors serve as queries, keys and values alike: nothing here
    is learned. Works on a batch too (leading dimensions are kept).
    """
    scores = x @ x.transpose(-2, -1)
    weights = torch.softmax(scores, dim=-1)
    return weights @ x, weights
# --8<-- [end:function]


# --8<-- [start:heatmap]
from figures import attention_heatmap


def unmasked_heatmap():
    """The 6x6 weights above as an SVG heatmap (the build inlines it)."""
    return attention_heatmap(
        weights,
        tokens,
        title="Attention weights, no trainable weights",
        description=(
            "Heatmap of the 6 by 6 attention weights for the sentence "
            "'Your journey starts with one step'. Row i is query token i, "
            "column j is key token j; every row sums to 1."
        ),
    )
# --8<-- [end:heatmap]
