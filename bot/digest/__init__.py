"""Staleness digests: which records nobody has confirmed for too long, most important first."""
