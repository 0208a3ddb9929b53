"""The ASL assistant's fixed terms, shared by its rules and its orders template:
the two sides and the length of a roll's public purpose."""

ALLIED, AXIS = "allied", "axis"
MAX_PURPOSE = 200  # characters of a DR/dr's public purpose
