"""What a count is: the counters' tallies, CountResult and concept maps, and their notebook views."""
