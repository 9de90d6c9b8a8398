"""Reading user files as data (never code) and writing files whole or not at all."""
