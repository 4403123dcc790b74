"""A benchmark of how well code-search tools rank the file that declares a symbol."""
