"""Generic counters: any problem, through its CNF encoding (Ganak, SDD, ApproxMC, SAT enumeration) or by brute force."""
