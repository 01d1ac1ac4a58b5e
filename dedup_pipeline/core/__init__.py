"""The pure core: text -> features -> fingerprint or sketch -> block keys, and every similar pair. No I/O."""
