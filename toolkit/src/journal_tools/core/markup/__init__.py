"""Math and sources: TeX to MathML (a Markdown extension over math-core), citations and the
reference list (pybtex)."""
