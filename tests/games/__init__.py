"""Tests of games in distributions of their own (each folder here is one, installed by scripts/setup-env dev)."""
