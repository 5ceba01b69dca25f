"""Benchmark helpers for skillc (synthetic tree generator, timers)."""
