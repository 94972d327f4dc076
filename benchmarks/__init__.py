"""jetjobs benchmarks: `python -m benchmarks` (see README, "Benchmarks")."""
