"""Shared readers: one reader per format (settings, front matter, fences, includes, page text, limits, math, citations)."""
