"""The ground floor: whole-command time and memory limits, signals, child processes, progress, the Dask client."""
