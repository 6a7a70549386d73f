"""Checks and the record: the page and post checks that stop a build, every mistake of one
build, the verified record and badge, atomic writes."""
