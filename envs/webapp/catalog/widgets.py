"""Form-shaped apps."""
FAMILIES: list = []
