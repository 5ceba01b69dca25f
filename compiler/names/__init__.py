"""Names people and skills write: path and name safety rules, look-alikes, close matches."""
