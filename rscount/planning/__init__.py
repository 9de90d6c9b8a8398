"""Which counters, in which order (the plan), carrying it out, and several tasks counted together and in turn."""
