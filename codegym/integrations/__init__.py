"""Adapters exposing codegym envs to other RL libraries (TRL: :mod:`codegym.integrations.trl`)."""
