"""Reports read CaseResults and their aggregates; they never recompute metrics."""
