"""Admin reports and exports from the stored results."""
