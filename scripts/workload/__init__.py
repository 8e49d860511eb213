"""What the benchmarks send: synthetic CVs recombined from the real ones, and query texts never sent before."""
