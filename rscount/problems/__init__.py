"""Problems: a task, a support, a map class and supervision; several tasks as one; parts, quotients,
interchangeable values and the CNF encoding."""
