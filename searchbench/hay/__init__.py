"""hay: a literal code search that ranks a symbol's declaration first (docs/method.md §7).

Candidate lines come from ripgrep's JSON output; searchbench.hay.signals scores them,
searchbench.hay.rank orders and prints them, searchbench.hay.cli is the `hay` command.
Kept free of heavy imports so that `hay` starts fast.
"""
