"""Widgets and cached resources every page of the dashboard shares (not a page itself)."""
