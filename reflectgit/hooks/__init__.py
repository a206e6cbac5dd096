"""Tiny entry points that git, pre-commit and agent harnesses call. They import the minimum."""
