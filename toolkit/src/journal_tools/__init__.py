"""The toolkit behind the LLM learning journal (build, page tests, serve), as one installable package;
toolkit/DEVELOPING.md maps its modules and entry points.
"""
