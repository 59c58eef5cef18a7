"""Helpers shared between test modules: a test module imports them from here or from conftest,
never from another test module."""
