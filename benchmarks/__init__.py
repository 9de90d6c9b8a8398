"""The benchmark suite: instances as data (suite.yaml), a runner, and the recorded tables in docs/."""
