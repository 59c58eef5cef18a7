"""Memory across runs: the history store, its reads and what is computed from them."""
