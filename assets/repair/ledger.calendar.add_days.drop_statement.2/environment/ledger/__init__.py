"""A tiny bookkeeping library."""
