"""Read paths: visibility, look-ups by ID or slug, and batched loading of linked records."""
