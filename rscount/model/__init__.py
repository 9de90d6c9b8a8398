"""The task model: concepts, labels and knowledge (Task), and supports of concept vectors."""
