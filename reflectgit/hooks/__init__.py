"""Lean entry points that git, pre-commit and agent harnesses call. Import little; never block."""
