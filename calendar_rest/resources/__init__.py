"""Resource classes: one per collection, responders named ``on_<method>[_<shape>]``."""
