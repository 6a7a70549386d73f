"""The running example: a six-word sentence, each word as a 3-d embedding.

The numbers are the hand-picked embeddings used throughout chapter 3 of
"Build a Large Language Model (From Scratch)"; one row per word.
"""

import torch

# --8<-- [start:inputs]
sentence = "Your journey starts with one step"

inputs = torch.tensor(
    [
        [0.43, 0.15, 0.89],  # Your
        [0.55, 0.87, 0.66],  # journey
        [0.57, 0.85, 0.64],  # starts
        [0.22, 0.58, 0.33],  # with
        [0.77, 0.25, 0.10],  # one
        [0.05, 0.80, 0.55],  # step
    ]
)
# --8<-- [end:inputs]
